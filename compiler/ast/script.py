"""AST of tremor-script (expressions, patterns, statements).

Trickle and troy embed these expressions; their own nodes live in ``query.py`` and ``deploy.py``.
Each class docstring shows the surface syntax it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Span
from .common import Node

# --------------------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True, slots=True, kw_only=True)
class Expr(Node):
    """Base of every expression."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Literal(Expr):
    """``null``, ``true``, ``42``, ``4.2``, or a string without interpolation.

    ``value`` is None, bool, int, float or str; ints keep Tremor's u64/i64 range.
    """

    value: None | bool | int | float | str


@dataclass(frozen=True, slots=True, kw_only=True)
class StringInterp(Expr):
    """``"a #{x} b"`` or a heredoc with interpolation: parts are str or Expr, in order."""

    parts: tuple[str | Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BinaryPart(Node):
    """One ``data[:bits][/type]`` part of a binary literal; ``kind`` is the ``_``-joined type."""

    data: Expr
    bits: int | None = None
    kind: str = "unsigned_big"


@dataclass(frozen=True, slots=True, kw_only=True)
class BinaryLit(Expr):
    """``<< part, ... >>``."""

    parts: tuple[BinaryPart, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordField(Node):
    """``"key": value`` inside a record literal; the key may interpolate."""

    key: Expr
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordLit(Expr):
    """``{ "k": v, ... }``."""

    fields: tuple[RecordField, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArrayLit(Expr):
    """``[a, b, ...]``."""

    items: tuple[Expr, ...]


# Path segments ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Segment(Node):
    """Base of a path segment."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldSeg(Segment):
    """``.name``."""

    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexSeg(Segment):
    """``[expr]``: string key or integer index, decided at run time."""

    index: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class RangeSeg(Segment):
    """``[start:end]`` on arrays, end exclusive."""

    start: Expr
    end: Expr


# Path roots: ``event meta state args group window local const expr``.
PATH_ROOTS = ("event", "meta", "state", "args", "group", "window", "local", "const", "expr")


@dataclass(frozen=True, slots=True, kw_only=True)
class Path(Expr):
    """``event.a[0]``, ``$meta``, ``state.x``, ``args.a``, ``group[0]``, ``window``, ``x.y``,
    ``mod::CONST.a``, ``(expr)[1]``.

    ``root`` is one of :data:`PATH_ROOTS`. For ``local`` ``name`` is the variable; for ``const``
    ``module`` holds the module path and ``name`` the constant; for ``expr`` ``expr`` is the
    indexed expression. ``$`` alone is ``root="meta"`` with no segments (``$a`` gives a first
    ``FieldSeg("a")``).
    """

    root: str
    segments: tuple[Segment, ...] = ()
    name: str | None = None
    module: tuple[str, ...] = ()
    expr: Expr | None = None


def is_meta_key(path: Path) -> bool:
    """``path`` is ``$key``: one field of the metadata (a store there cannot fail, ``$`` being
    always a record; ``compiler.passes.meta_liveness`` and its consumers agree on this shape)."""
    return (
        path.root == "meta" and len(path.segments) == 1 and isinstance(path.segments[0], FieldSeg)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Unary(Expr):
    """``-x``, ``+x``, ``not x``, ``!x`` (``op`` is the operator text)."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Binary(Expr):
    """``a <op> b`` for every binary operator (``op`` is the operator text: ``and``, ``>>>``…)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Present(Expr):
    """``present path`` (``negated`` for ``absent path``)."""

    path: Path
    negated: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Call(Expr):
    """``f(a)``, ``mod::f(a)``, ``a::b::f(a)``; ``module`` is the (alias) path as written."""

    module: tuple[str, ...]
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Recur(Expr):
    """``recur(a, b)`` (tail call of the enclosing function)."""

    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Extractor(Node):
    """``name|rule|`` with the rule text after Tremor's extractor escapes are applied."""

    name: str
    rule: str


# Patterns -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Pattern(Node):
    """Base of match patterns."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AnyPattern(Pattern):
    """``_``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExprPattern(Pattern):
    """An expression compared with ``==``."""

    expr: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractorPattern(Pattern):
    """``~ name|rule|``."""

    extractor: Extractor


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldPredicate(Node):
    """One field test inside ``%{ ... }``.

    ``kind`` is ``present``, ``absent``, ``extract`` (``k ~= ext||``), ``record``/``array``/
    ``tuple`` (``k ~= %{}`` …), or ``cmp`` with ``op`` one of ``== != < <= > >=`` and ``expr``.
    ``alias`` is set for ``alias = k ~= ext||``.
    """

    kind: str
    key: str
    op: str | None = None
    expr: Expr | None = None
    extractor: Extractor | None = None
    pattern: Pattern | None = None
    alias: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordPattern(Pattern):
    """``%{ f1, f2 }``."""

    fields: tuple[FieldPredicate, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArrayPattern(Pattern):
    """``%[ p1, p2 ]`` (order-insensitive, each element pattern must match some element)."""

    elements: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TuplePattern(Pattern):
    """``%( p1, p2 )``; ``open`` for a trailing ``...`` (prefix match)."""

    elements: tuple[Pattern, ...]
    open: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AssignPattern(Pattern):
    """``name = pattern`` (binding is scoped to the clause)."""

    name: str
    pattern: Pattern


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchCase(Node):
    """``case pattern [when guard] => e1; e2``."""

    pattern: Pattern
    guard: Expr | None
    body: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Match(Expr):
    """``match target of case ... end``; ``mutable`` for statement position (arms may hold
    ``let``/``emit``/``drop``)."""

    target: Expr
    cases: tuple[MatchCase, ...]
    mutable: bool = False


# Patch / merge ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PatchOp(Node):
    """One patch operation.

    ``kind``: insert upsert update erase move copy merge merge_record default default_record.
    ``key`` is the (possibly interpolated) key expression, absent for ``merge => v``/
    ``default => v``; ``value`` the operand; ``to`` the destination key of move/copy.
    """

    kind: str
    key: Expr | None = None
    value: Expr | None = None
    to: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Patch(Expr):
    """``patch target of op; ... end``."""

    target: Expr
    ops: tuple[PatchOp, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Merge(Expr):
    """``merge target of spec end`` (deep merge; null sets, never deletes)."""

    target: Expr
    spec: Expr


# Comprehensions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ForCase(Node):
    """``case (k, v) [when guard] => e1; e2``."""

    key: str
    value: str
    guard: Expr | None
    body: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class For(Expr):
    """``for target of case ... [into init [use op]] end``."""

    target: Expr
    cases: tuple[ForCase, ...]
    into: Expr | None = None
    fold_op: str | None = None
    mutable: bool = False


# Statements that are also expressions -------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Let(Expr):
    """``let path = value``; ``target`` may be rooted at local, event, meta or state (others are
    rejected at run time exactly as Tremor does)."""

    target: Path
    value: Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Emit(Expr):
    """``emit``, ``emit value``, ``emit => "port"``, ``emit value => "port"``."""

    value: Expr | None = None
    port: Expr | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Drop(Expr):
    """``drop``."""


# Top-level items ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Use(Node):
    """``use a::b::c [as d]`` (group forms are expanded into one Use per module).

    ``path_span`` covers just the module path as written (used by "module not found" errors).
    """

    path: tuple[str, ...]
    alias: str
    path_span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Const(Expr):
    """``const NAME = expr``; as the last top-level item its value is the output."""

    name: str
    value: Expr
    doc: str | None = None
    module: tuple[str, ...] = ()
    """Absolute path of the user module defining it (``()``: the main script); set by resolve."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FnDef(Node):
    """``fn name(a, b[, ...]) with body end`` or a match function ``fn name(a) of case ... end``
    (then ``cases`` is set and ``body`` empty)."""

    name: str
    params: tuple[str, ...]
    varargs: bool = False
    body: tuple[Expr, ...] = ()
    cases: tuple[MatchCase, ...] = ()
    doc: str | None = None
    module: tuple[str, ...] = ()
    """Absolute path of the user module defining it (``()``: the main script); set by resolve."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Intrinsic(Node):
    """``intrinsic fn name(a) as mod::fun``."""

    name: str
    params: tuple[str, ...]
    varargs: bool
    target: tuple[str, ...]
    doc: str | None = None


TopLevel = Use | Const | FnDef | Intrinsic | Expr


@dataclass(frozen=True, slots=True, kw_only=True)
class Script(Node):
    """A whole ``.tremor`` file (or a script body inside trickle/troy)."""

    items: tuple[TopLevel, ...]
    doc: str | None = None
