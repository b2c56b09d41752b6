"""AST of trickle (``.trickle``): pipeline statements around tremor-script expressions.

Expressions, embedded scripts and ``use`` reuse the nodes of :mod:`compiler.ast.script`. Names
that diagnostics point at (node ids, stream references, ports, argument and ``with`` keys) are
:class:`Ident` nodes so each carries its own span. ``args``/``with`` values and ``state``
initialisers stay expressions; a later pass constant-folds them.

Each class docstring shows the surface syntax it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import Node
from .script import Expr, Script, Use

# --------------------------------------------------------------------------------------------
# Shared building blocks (also used by troy, see ``deploy.py``)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ident(Node):
    """A name: ``snot`` or a back-ticked ``\\`20ns\\``` (``name`` is without back-ticks)."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Target(Node):
    """A possibly module-qualified artefact name: ``name``, ``mod::name``, ``a::b::name``.

    ``module`` is the alias path as written; ``explicit`` is False when the target was implied
    by a ``create x`` without ``from`` (then the span is that of the alias).
    """

    module: tuple[str, ...]
    name: str
    explicit: bool = True

    @property
    def qualified(self) -> str:
        """``a::b::name`` as written."""
        return "::".join((*self.module, self.name))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigDirective(Node):
    """``#!config key = expr`` (at file start, or right after ``pipeline`` in a definition)."""

    key: Ident
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgDef(Node):
    """One definitional argument inside ``args a, b = default``; ``default`` is None if required.

    The span covers ``name`` through the default value (or just the name).
    """

    name: Ident
    default: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WithEntry(Node):
    """One ``key = expr`` entry inside ``with … [end]``; the span covers key through value."""

    key: Ident
    value: Expr


# --------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True, slots=True, kw_only=True)
class Stmt(Node):
    """Base of a trickle statement."""


#: A statement of a query or pipeline body: ``use`` (group forms expanded into one :class:`Use`
#: per module, in order) or any :class:`Stmt`.
QueryItem = Use | Stmt


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateStream(Stmt):
    """``create stream name``."""

    name: Ident


@dataclass(frozen=True, slots=True, kw_only=True)
class NamedScript(Node):
    """``script from port <exprs>`` inside ``define script`` (or ``script from tick`` in a
    window); ``port`` is the name after ``from``."""

    port: Ident
    script: Script


@dataclass(frozen=True, slots=True, kw_only=True)
class DefineWindow(Stmt):
    """``define window name from tumbling|sliding [with k = v, …] [state e]
    [script from tick <exprs>] [script <exprs>] end``.

    ``kind`` is ``tumbling`` or ``sliding``; ``config`` holds the ``with`` entries (no ``end`` of
    their own: the window's ``end`` closes everything). ``named`` holds every ``script from x``
    section in order (only ``tick`` is valid; checked later).
    """

    name: Ident
    kind: Ident
    config: tuple[WithEntry, ...] = ()
    state: Expr | None = None
    named: tuple[NamedScript, ...] = ()
    script: Script | None = None
    doc: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DefineOperator(Stmt):
    """``define operator name from ns::op [args a, b = d] [with k = v, … end]``.

    ``kind`` is the builtin operator (``module`` = ``(ns,)``, ``name`` = op).
    """

    name: Ident
    kind: Target
    args: tuple[ArgDef, ...] = ()
    config: tuple[WithEntry, ...] = ()
    doc: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DefineScript(Stmt):
    """``define script name [args a, b = d] [state e] [script from port <exprs>]*
    script <exprs> end``."""

    name: Ident
    args: tuple[ArgDef, ...] = ()
    state: Expr | None = None
    named: tuple[NamedScript, ...] = ()
    script: Script
    doc: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DefinePipeline(Stmt):
    """``define pipeline name [from p, …] [into q, …] [args …] pipeline [#!config …] <stmts>
    end``.

    Empty ``from_ports``/``into_ports`` mean the defaults (``in`` / ``out, err``).
    """

    name: Ident
    from_ports: tuple[Ident, ...] = ()
    into_ports: tuple[Ident, ...] = ()
    args: tuple[ArgDef, ...] = ()
    config: tuple[ConfigDirective, ...] = ()
    stmts: tuple[QueryItem, ...] = ()
    doc: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Create(Stmt):
    """Base of ``create <kind> alias [from target] [with k = v, … end]``."""

    name: Ident
    target: Target
    params: tuple[WithEntry, ...] = ()

    #: The keyword after ``create``.
    KIND = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateOperator(Create):
    """``create operator alias [from target] [with … end]``."""

    KIND = "operator"


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateScript(Create):
    """``create script alias [from target] [with … end]``."""

    KIND = "script"


@dataclass(frozen=True, slots=True, kw_only=True)
class CreatePipeline(Create):
    """``create pipeline alias [from target] [with … end]`` (trickle and troy)."""

    KIND = "pipeline"


# Select ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamRef(Node):
    """``stream`` or ``stream/port`` in ``from`` / ``into``; ``port`` None means the default
    (``out`` when reading, ``in`` when writing)."""

    stream: Ident
    port: Ident | None = None

    def port_or(self, default: str) -> str:
        """The explicit port name, else ``default``."""
        return self.port.name if self.port is not None else default


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupBy(Node):
    """Base of a ``group by`` definition."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupExpr(GroupBy):
    """``group by <expr>``: one group component."""

    expr: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupSet(GroupBy):
    """``set(g1, g2, …)``: several components (cartesian product of fan-outs)."""

    items: tuple[GroupBy, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupEach(GroupBy):
    """``each(<expr>)``: one group per array element."""

    expr: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Select(Stmt):
    """``select <expr> from s[/p][[w1, w2]] [where e] [group by g] into s[/p] [having e]``."""

    target: Expr
    from_: StreamRef
    windows: tuple[Target, ...] = ()
    where: Expr | None = None
    group_by: GroupBy | None = None
    into: StreamRef
    having: Expr | None = None

    @property
    def from_stream(self) -> str:
        """Name of the node read from."""
        return self.from_.stream.name

    @property
    def from_port(self) -> str:
        """Output port read from (default ``out``)."""
        return self.from_.port_or("out")

    @property
    def into_stream(self) -> str:
        """Name of the node written to."""
        return self.into.stream.name

    @property
    def into_port(self) -> str:
        """Input port written to (default ``in``)."""
        return self.into.port_or("in")

    @property
    def window_names(self) -> tuple[str, ...]:
        """Qualified names of the tilt-frame windows, in order (empty without windows)."""
        return tuple(w.qualified for w in self.windows)


# Root --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Query(Node):
    """A whole ``.trickle`` file: ``[#!config …] stmt; stmt; …``."""

    config: tuple[ConfigDirective, ...] = ()
    stmts: tuple[QueryItem, ...]


QueryDefinition = DefineWindow | DefineOperator | DefineScript | DefinePipeline
