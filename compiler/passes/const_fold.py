"""Constant folding for tremor-script, with Tremor's compile-time errors.

Needs: a script after :mod:`compiler.passes.resolve` (constant references are
``Path(root="const")`` with an absolute ``module``; calls name their module absolutely).
Establishes: every operator, interpolation, path or const std-function call whose inputs are
all constant is replaced by the literal AST of its value (``Literal``, ``ArrayLit``,
``RecordLit``); an error while folding is a :class:`CompileError` at the span Tremor reports.
Left alone: ``let`` targets and ``present`` paths (they must stay paths), values without a
literal form (binaries, non-finite floats), user-function calls, and ``and``/``or``/``xor``
unless both sides are bools (Tremor folds those only for two bool literals).

Each node is asked for its constant value and either returns it or raises
:class:`NotConstant` (Jinja's optimizer pattern).

This is tremorc's one constant evaluator, with Tremor's one rule (its ``ConstFolder``):
:func:`fold_constants` folds inside scripts, :func:`constant_value` gives the value Tremor needs
as a constant (troy and trickle ``args``/``with`` values, connector, operator and window
configs, ``state``). Both call only Tremor's ``const`` std functions, plus, for constants, the
std functions Tremor writes in tremor-script (folded upstream when their body is constant).
An impure function (clock, host, randomness, the event;
``runtime_support.tremor.stdlib._table.IMPURE``) never runs at build time: where a constant is
needed it is Tremor's "not constant" error, in troy as in trickle, so two builds of one source give
the same bytes.

>>> from compiler.source import Source
>>> lit = lambda v: ast.Literal(value=v)
>>> expr = ast.Binary(op="+", left=lit(1), right=ast.Binary(op="*", left=lit(2), right=lit(3)))
>>> script = ast.Script(items=(expr,))
>>> fold_constants(script, Source("x", "")).items[0]
Literal(value=7)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.jsonio import interp_str
from runtime_support.tremor.paths import get_field, get_index, get_range
from runtime_support.tremor.value_ops import binary, unary

from ..ast import script as ast
from ..ast.common import Node, child_fields, with_subclasses
from ..diagnostics import CompileError
from ..source import Source, Span
from .stdlib_names import CONSTANTS, FUNCTIONS

__all__ = ["NotConstant", "constant_value", "fold_constants", "value_to_ast"]

ConstKey = tuple[tuple[str, ...], str]


class NotConstant(Exception):
    """The expression's value is not known at compile time."""


class _NoLiteral(Exception):
    """The value has no literal AST form (binary, NaN, infinity)."""


def _registry() -> Any:
    """The std-library registry (imported on the first fold of a std call or constant: the
    table :mod:`.stdlib_names` answers whether there is one), or None while it cannot be
    imported."""
    try:
        from runtime_support.tremor.stdlib import registry
    except ImportError:  # pragma: no cover - only while the stdlib is incomplete
        return None
    return registry


def value_to_ast(value: Any, span: Span) -> ast.Expr:
    """The literal AST of a constant value (raises ``_NoLiteral`` if it has none).

    >>> value_to_ast({"a": [1, None]}, Span(0, 0))  # doctest: +ELLIPSIS
    RecordLit(fields=(RecordField(key=Literal(value='a'), value=ArrayLit(items=(...
    """
    t = type(value)
    if t is float and not math.isfinite(value):
        raise _NoLiteral
    if value is None or t in (bool, int, float, str):
        return ast.Literal(value=value, span=span)
    if t is list:
        return ast.ArrayLit(items=tuple(value_to_ast(v, span) for v in value), span=span)
    if t is dict:
        fields = tuple(
            ast.RecordField(
                key=ast.Literal(value=k, span=span), value=value_to_ast(v, span), span=span
            )
            for k, v in value.items()
        )
        return ast.RecordLit(fields=fields, span=span)
    raise _NoLiteral


class _Folder:
    """Walks one script in source order, remembering the values of folded constants."""

    def __init__(self, source: Source, *, pure_calls: bool = False) -> None:
        self.source = source
        self.consts: dict[ConstKey, Any] = {}
        self.pure_calls = pure_calls  # also run pure functions written in tremor-script

    # -- traversal ---------------------------------------------------------------------------

    def rebuild(self, node: Node, fold_self: bool = True) -> Node:
        """Rebuild ``node`` bottom-up, folding every foldable expression."""
        changes: dict[str, Any] = {}
        cls = type(node)
        protected = _PROTECTED.get(cls)
        for name in child_fields(cls):  # plain-valued fields never change
            old = getattr(node, name)
            new = self._rebuild_value(old, name != protected)
            if new is not old:
                changes[name] = new
        if changes:
            node = dataclasses.replace(node, **changes)
        return self.fold(node) if fold_self else node

    def _rebuild_value(self, value: Any, fold_self: bool) -> Any:
        if isinstance(value, Node):
            return self.rebuild(value, fold_self)
        if isinstance(value, tuple):
            items, changed = [], False
            for item in value:
                new = self._rebuild_value(item, fold_self)
                changed = changed or new is not item
                items.append(new)
            return tuple(items) if changed else value
        return value

    def fold(self, node: Node) -> Node:
        """Replace a foldable expression by its literal; record ``const`` values."""
        if isinstance(node, ast.Const):
            self._record_const(node)
            return node
        if not isinstance(node, _FOLDABLE):
            return node
        if type(node) is ast.Path and node.root not in ("const", "expr"):
            return node  # the event, state, a local …: never constant (see value_Path)
        try:
            return value_to_ast(self.value(node), node.span)
        except (NotConstant, _NoLiteral):
            return node

    def _record_const(self, node: ast.Const) -> None:
        try:
            self.consts[(node.module, node.name)] = self.value(node.value)
        except NotConstant:
            pass

    # -- constant values ---------------------------------------------------------------------

    def value(self, node: Node) -> Any:
        """The compile-time value of ``node`` or ``NotConstant``."""
        method = getattr(self, f"value_{type(node).__name__}", None)
        if method is None:
            raise NotConstant
        return method(node)

    def value_Literal(self, node: ast.Literal) -> Any:
        return node.value

    def value_ArrayLit(self, node: ast.ArrayLit) -> list:
        return [self.value(item) for item in node.items]

    def value_RecordLit(self, node: ast.RecordLit) -> dict:
        out: dict[str, Any] = {}
        for field in node.fields:
            key = self.value(field.key)
            if type(key) is not str:
                raise NotConstant
            out[key] = self.value(field.value)
        return out

    def value_StringInterp(self, node: ast.StringInterp) -> str:
        parts = [p if type(p) is str else interp_str(self.value(p)) for p in node.parts]
        return "".join(parts)

    def value_Unary(self, node: ast.Unary) -> Any:
        operand = self.value(node.operand)
        return self._run(lambda: unary(node.op, operand), node.span)

    def value_Binary(self, node: ast.Binary) -> Any:
        left, right = self.value(node.left), self.value(node.right)
        if node.op in ("and", "or", "xor"):
            if type(left) is not bool or type(right) is not bool:
                raise NotConstant
            if node.op == "and":
                return left and right
            return (left or right) if node.op == "or" else (left is not right)
        return self._run(lambda: binary(node.op, left, right), node.span)

    def value_Path(self, node: ast.Path) -> Any:
        if node.root == "const":
            base = self._const_base(node)
        elif node.root == "expr" and node.expr is not None:
            base = self.value(node.expr)
        else:
            raise NotConstant
        for seg in node.segments:
            base = self._segment(base, seg)
        return base

    def value_Call(self, node: ast.Call) -> Any:
        name = "::".join((*node.module, node.name))
        sig = FUNCTIONS.get(name)
        if sig is None or sig.aggregate or sig.needs_ctx or not sig.pure:
            raise NotConstant
        if not (sig.const or (self.pure_calls and not sig.native)):
            raise NotConstant
        reg = _registry()
        fn = reg.lookup(name) if reg is not None else None
        if fn is None:
            raise NotConstant
        args = tuple(self.value(a) for a in node.args)
        return self._run(lambda: reg.call(fn, args), node.span)

    # -- helpers -----------------------------------------------------------------------------

    def _const_base(self, node: ast.Path) -> Any:
        key = (node.module, node.name or "")
        if key in self.consts:
            return self.consts[key]
        full = "::".join((*node.module, node.name or ""))
        if node.module[:1] == ("std",) and full in CONSTANTS and (reg := _registry()) is not None:
            return reg.constant(full)
        raise NotConstant

    def _segment(self, base: Any, seg: ast.Segment) -> Any:
        if isinstance(seg, ast.FieldSeg):
            return self._run(lambda: get_field(base, seg.name, "local"), seg.span)
        if isinstance(seg, ast.IndexSeg):
            idx = self.value(seg.index)
            return self._run(lambda: get_index(base, idx, "local"), seg.index.span)
        if isinstance(seg, ast.RangeSeg):
            start, end = self.value(seg.start), self.value(seg.end)
            span = seg.start.span.to(seg.end.span)
            sites = {1: seg.start.span, 2: seg.end.span}
            return self._run(lambda: get_range(base, start, end, 0, 1, 2), span, sites)
        raise NotConstant

    def _run(self, thunk: Any, span: Span, sites: dict[int, Span] | None = None) -> Any:
        """Evaluate ``thunk``; a Tremor error becomes a compile error at ``span``.

        ``sites`` maps the site numbers the thunk passed to the spans they stand for.
        """
        try:
            return thunk()
        except TremorError as e:
            where = (sites or {}).get(e.site, span)
            raise CompileError(e.message, where, source=self.source) from None


_FOLDABLE = (ast.Unary, ast.Binary, ast.StringInterp, ast.Path, ast.Call)


#: Children that must stay paths, by node class: ``let`` targets and ``present`` operands.
_PROTECTED: dict[type, str] = with_subclasses({ast.Let: "target", ast.Present: "path"})


def fold_constants(script: ast.Script, source: Source) -> ast.Script:
    """Fold every constant expression of ``script`` (see the module docstring).

    Raises:
        CompileError: folding hit a Tremor error (overflow, bad operand types, bad index …).
    """
    return _Folder(source).rebuild(script, fold_self=False)  # type: ignore[return-value]


def constant_value(expr: ast.Expr, source: Source) -> Any:
    """The build-time value of ``expr``, a closed expression that went through the script front
    end (resolved and folded), where Tremor needs a constant.

    Raises:
        NotConstant: ``expr`` reads the event, state, locals, a user function or calls an
            impure one.
        CompileError: evaluating hit a Tremor error.
    """
    return _Folder(source, pure_calls=True).value(expr)
