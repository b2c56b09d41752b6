"""Shared helpers of the trickle passes (checks and instantiation): definition scopes, embedded
scripts and compile-time argument values.

Invariant: every script or expression embedded in a query goes through the script front end
(the driver's ``PASSES``, reached through the scope's :class:`~.elaboration.Elaboration`) with
the ``use`` items visible at that point prepended, so module loading, resolution and constant
folding are those of tremor-script, and each embedded script goes through it once per program.
Compile-time values come from the one evaluator, :func:`.const_fold.constant_value`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..ast import query as Q
from ..ast import script as S
from ..ast.common import transform
from ..diagnostics import CompileError
from ..source import Source, Span
from .const_fold import NotConstant, constant_value, value_to_ast
from .elaboration import Elaboration

NOT_CONST = "The expression isn't constant and can't be evaluated at compile time"


class PlainError(CompileError):
    """A pipeline-level error Tremor prints as its bare message (no ``Error:`` header)."""

    def render(self) -> str:
        return self.message


AGGR_USE = S.Use(path=("aggr",), alias="aggr")


def from_line_start(source: Source, span: Span) -> Span:
    """(quirk) Tremor underlines some definitions from the start of their first line."""
    return Span(source.text.rfind("\n", 0, span.start) + 1, span.end)


@dataclass
class Scope:
    """The definitions and ``use`` items visible in one query or pipeline body."""

    source: Source
    uses: tuple[S.Use, ...] = ()
    defs: dict[str, Q.Stmt] = field(default_factory=dict)
    modules: dict[str, Scope] = field(default_factory=dict)  # alias -> module scope
    elab: Elaboration | None = None  # the program's front end (every body scope has one)

    def child(self) -> Scope:
        """A nested pipeline body: sees the same modules, starts with no definitions."""
        return Scope(self.source, self.uses, {}, dict(self.modules), self.elab)

    def lookup(self, target: Q.Target) -> tuple[Q.Stmt, Scope] | None:
        """The definition ``target`` names and the scope it was defined in."""
        scope: Scope | None = self
        for part in target.module:
            scope = scope.modules.get(part) if scope is not None else None
        if scope is None or target.name not in scope.defs:
            return None
        return scope.defs[target.name], scope


def embed(items: tuple[S.TopLevel, ...], scope: Scope, source: Source | None = None) -> S.Script:
    """``items`` as a checked script (module loading, resolution, folding), once per program."""
    assert scope.elab is not None, "a scope without an Elaboration cannot embed scripts"
    # Every module is read through Tremor's one module grammar, so a module holding query
    # definitions can be used by a script as well (its consts and fns; definitions ignored).
    return scope.elab.script((AGGR_USE, *scope.uses), items, source or scope.source)


def substitute_args(expr: S.Expr, args: Any) -> S.Expr:
    """Replace ``args…`` paths by the literal value of ``args`` (Tremor's creation-time
    substitution)."""

    def fn(node: S.Node) -> S.Node:
        if isinstance(node, S.Path) and node.root == "args":
            value = value_to_ast(args, node.span)
            if not node.segments:
                return value
            return S.Path(root="expr", expr=value, segments=node.segments, span=node.span)
        return node

    return transform(expr, fn)


def const_value(
    expr: S.Expr,
    scope: Scope,
    args: Any,
    span: Span,
    *,
    message: str = NOT_CONST,
    outer: Span | None = None,
) -> Any:
    """The compile-time value of ``expr`` with ``args`` substituted, or Tremor's error."""
    script = embed((substitute_args(expr, args),), scope)
    try:
        return constant_value(script.items[-1], scope.source)  # type: ignore[arg-type]
    except NotConstant:
        raise CompileError(message, span, outer=outer, source=scope.source) from None


def arg_values(
    defs: tuple[Q.ArgDef, ...],
    given: tuple[Q.WithEntry, ...],
    scope: Scope,
    outer_args: Any,
    *,
    caller: Scope | None = None,
) -> dict[str, Any]:
    """The args record of a created artefact: defaults overridden by ``with`` entries (both
    evaluated against the enclosing args)."""
    caller = caller or scope
    known = {d.name.name for d in defs}
    values: dict[str, Any] = {}
    for entry in given:
        if entry.key.name not in known:
            span = from_line_start(caller.source, entry.span)
            outer = from_line_start(caller.source, Span(max(0, span.start - 1), span.end))
            raise CompileError(
                f"Unknown parameter {entry.key.name}", span, outer=outer, source=caller.source
            )
    overrides = {e.key.name: e for e in given}
    for d in defs:
        if d.name.name in overrides:
            e = overrides[d.name.name]
            values[d.name.name] = const_value(e.value, caller, outer_args, e.span)
        elif d.default is not None:
            span = from_line_start(scope.source, d.span)
            values[d.name.name] = const_value(d.default, scope, outer_args, span)
        else:
            raise CompileError(
                f"Missing required argument: {d.name.name}", d.span, source=scope.source
            )
    return values


def replace_uses(query_items: tuple[Q.QueryItem, ...]) -> tuple[S.Use, ...]:
    """The ``use`` items among a body's statements."""
    return tuple(item for item in query_items if isinstance(item, S.Use))


def load_query_modules(stmts: tuple[Q.QueryItem, ...], source: Source) -> dict[Any, Any]:
    """Every module the body ``use``s (module files of any extension, read as queries)."""
    from ..modules import load_modules

    return load_modules(Q.Query(stmts=stmts), source)


def with_module_scopes(scope: Scope, modules: dict[tuple[str, ...], Any]) -> Scope:
    """Register each ``use``d trickle module's definitions under its alias."""
    for use in scope.uses:
        module = modules.get(use.path)
        tree = getattr(module, "query", None)
        if isinstance(tree, Q.Query):
            sub = Scope(module.source, replace_uses(tree.stmts), elab=scope.elab)
            for stmt in tree.stmts:
                name = getattr(stmt, "name", None)
                if isinstance(
                    stmt, Q.DefinePipeline | Q.DefineScript | Q.DefineWindow | Q.DefineOperator
                ) and isinstance(name, Q.Ident):
                    sub.defs[name.name] = stmt
            scope.modules[use.alias] = sub
    return scope


def group_components(group: Q.GroupBy | None) -> list[S.Expr]:
    """The component expressions of a ``group by`` in ``group[i]`` order."""
    if group is None:
        return []
    if isinstance(group, Q.GroupSet):
        return [e for item in group.items for e in group_components(item)]
    return [group.expr]  # type: ignore[attr-defined]


def replace(node: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` (re-exported for the query modules)."""
    return dataclasses.replace(node, **changes)
