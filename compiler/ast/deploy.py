"""AST of troy (``.troy``): flows of connectors and pipelines, and module files.

Pipelines inside flows are the trickle nodes of :mod:`compiler.ast.query`
(:class:`~compiler.ast.query.DefinePipeline`, :class:`~compiler.ast.query.CreatePipeline`);
args and ``with`` values stay expressions for a later constant-folding pass.

Each class docstring shows the surface syntax it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import Node
from .query import (
    ArgDef,
    ConfigDirective,
    Create,
    CreatePipeline,
    DefinePipeline,
    Ident,
    QueryDefinition,
    Stmt,
    Target,
    WithEntry,
)
from .script import Const, FnDef, Intrinsic, Use

#: The ``with`` keys a connector definition accepts (checked by a later pass).
CONNECTOR_WITH_KEYS = (
    "codec",
    "config",
    "metrics_interval_s",
    "postprocessors",
    "preprocessors",
    "reconnect",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class DefineConnector(Stmt):
    """``define connector name from kind [args a, b = d with k = v, … end]``.

    ``kind`` is the builtin connector type (``metronome``, ``exit``, …); ``config`` holds the
    ``with`` entries (keys restricted to :data:`CONNECTOR_WITH_KEYS`, checked later).
    """

    name: Ident
    kind: Ident
    args: tuple[ArgDef, ...] = ()
    config: tuple[WithEntry, ...] = ()
    doc: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateConnector(Create):
    """``create connector alias [from target] [with k = v, … end]``."""

    KIND = "connector"


@dataclass(frozen=True, slots=True, kw_only=True)
class Endpoint(Node):
    """``/connector/alias[/port]`` or ``/pipeline/alias[/port]`` in a ``connect``.

    ``kind`` is ``connector`` or ``pipeline``; ``port`` None means the default (``out`` on the
    ``from`` side, ``in`` on the ``to`` side).
    """

    kind: str
    alias: Ident
    port: Ident | None = None

    def port_or(self, default: str) -> str:
        """The explicit port name, else ``default``."""
        return self.port.name if self.port is not None else default


@dataclass(frozen=True, slots=True, kw_only=True)
class Connect(Stmt):
    """``connect /kind/a[/p] to /kind/b[/p]`` (connector→connector does not parse)."""

    from_: Endpoint
    to: Endpoint

    @property
    def from_port(self) -> str:
        """Source port (default ``out``)."""
        return self.from_.port_or("out")

    @property
    def to_port(self) -> str:
        """Destination port (default ``in``)."""
        return self.to.port_or("in")


#: A statement inside ``define flow … flow … end``.
FlowItem = Use | DefineConnector | DefinePipeline | Create | Connect


@dataclass(frozen=True, slots=True, kw_only=True)
class DefineFlow(Stmt):
    """``define flow name [args a, b = d] flow <flow-stmt>; … end``."""

    name: Ident
    args: tuple[ArgDef, ...] = ()
    stmts: tuple[FlowItem, ...] = ()
    doc: str | None = None

    def creates(self) -> tuple[Create, ...]:
        """The ``create connector``/``create pipeline`` statements, in order."""
        return tuple(s for s in self.stmts if isinstance(s, Create))

    def connects(self) -> tuple[Connect, ...]:
        """The ``connect`` statements, in order."""
        return tuple(s for s in self.stmts if isinstance(s, Connect))


@dataclass(frozen=True, slots=True, kw_only=True)
class DeployFlow(Stmt):
    """``deploy flow alias [from target] [with arg = v, … end]``."""

    name: Ident
    target: Target
    params: tuple[WithEntry, ...] = ()
    doc: str | None = None


#: A top-level statement of a ``.troy`` file.
DeployItem = Use | DefineFlow | DeployFlow


@dataclass(frozen=True, slots=True, kw_only=True)
class Deploy(Node):
    """A whole ``.troy`` file: ``[#!config …] [### doc] stmt; stmt; …``."""

    config: tuple[ConfigDirective, ...] = ()
    stmts: tuple[DeployItem, ...]
    doc: str | None = None


#: An item of a module file (``use``-d ``.tremor``/``.trickle``/``.troy``).
ModuleItem = Use | Const | FnDef | Intrinsic | QueryDefinition | DefineConnector | DefineFlow


@dataclass(frozen=True, slots=True, kw_only=True)
class Module(Node):
    """A module file: ``[### doc] item; item; …`` where items are ``use``, ``const``, ``fn``,
    ``intrinsic`` and ``define window|operator|script|pipeline|connector|flow``."""

    items: tuple[ModuleItem, ...]
    doc: str | None = None


__all__ = [
    "CONNECTOR_WITH_KEYS",
    "Connect",
    "CreateConnector",
    "CreatePipeline",
    "DefineConnector",
    "DefineFlow",
    "Deploy",
    "DeployFlow",
    "DeployItem",
    "Endpoint",
    "FlowItem",
    "Module",
    "ModuleItem",
]
