"""Instantiation of one trickle ``select`` (and the windows it reads through) for
:mod:`compiler.passes.query_instantiate`.

Needs: a select that passed :mod:`compiler.passes.query_checks`, the scope of its body and the
body's bound ``args``. Establishes: a :class:`~compiler.ir.graph.SelectNode` whose clauses are
checked one-expression scripts. A windowed target is rewritten first: sub-expressions equal to a
``group by`` component become ``group[i]``, aggregate call *i* becomes ``state[i]`` (the select
passes the emitted aggregate values as ``state``; a user's ``state`` is ``null`` in a select).
Errors: ``Unknown window``, non-constant window settings, ``Bad window configuration``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..ast import query as Q
from ..ast import script as S
from ..ast.common import Node, transform
from ..diagnostics import CompileError
from ..ir import graph as G
from ..registry.checks import check_window
from .query_scope import PlainError, Scope, const_value, embed, group_components
from .window_ext import EXT_KINDS, ext_window_ir, is_extension

AGGR_MODULES = (("aggr", "stats"), ("aggr", "win"))
BAD_WINDOW = "Bad window configuration, only one of `size`, `interval`, or `state` is allowed."


def is_aggregate(node: Node) -> bool:
    """True for a call written ``aggr::stats::f(…)`` / ``aggr::win::f(…)``."""
    return isinstance(node, S.Call) and tuple(node.module) in AGGR_MODULES


def is_passthrough(select: Q.Select) -> bool:
    """``select event from a into b`` with nothing else: instantiated as a plain link."""
    t = select.target
    return (
        isinstance(t, S.Path)
        and t.root == "event"
        and not t.segments
        and select.where is None
        and select.having is None
        and select.group_by is None
        and not select.windows
    )


def _index_path(root: str, i: int, span: Any) -> S.Path:
    seg = S.IndexSeg(index=S.Literal(value=i, span=span), span=span)
    return S.Path(root=root, segments=(seg,), span=span)


def rewrite_target(target: S.Expr, select: Q.Select) -> tuple[S.Expr, list[S.Call]]:
    """The windowed target reading ``group[i]``/``state[i]``, plus the aggregate calls."""
    comps = group_components(select.group_by)
    aggrs: list[S.Call] = []

    def pre(node: Node) -> Node:
        if isinstance(node, S.Path) and node.root == "state":
            return S.Path(
                root="expr", expr=S.Literal(value=None), segments=node.segments, span=node.span
            )
        return node

    def visit(node: Node) -> Node:
        if is_aggregate(node):
            aggrs.append(node)  # type: ignore[arg-type]
            return _index_path("state", len(aggrs) - 1, node.span)
        for i, comp in enumerate(comps):
            if isinstance(node, S.Expr) and node == comp:
                return _index_path("group", i, node.span)
        if isinstance(node, S.Node) and not isinstance(node, S.Expr):
            return node
        # Children first would miss whole-expression matches; recurse manually.
        return _map_children(node, visit)

    return visit(transform(target, pre)), aggrs  # type: ignore[return-value]


def _map_children(node: Node, fn: Callable[[Node], Node]) -> Node:
    changes = {}
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        old = getattr(node, f.name)
        new = _map_value(old, fn)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def _map_value(value: Any, fn: Callable[[Node], Node]) -> Any:
    if isinstance(value, S.Expr):
        return fn(value)
    if isinstance(value, Node):
        return _map_children(value, fn)
    if isinstance(value, tuple):
        items = tuple(_map_value(v, fn) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=False)) else items
    return value


def embedded(expr: S.Expr, scope: Scope) -> G.Embedded:
    """One expression as a checked script of ``scope``."""
    return G.Embedded(script=embed((expr,), scope), source=scope.source)


def group_ir(group: Q.GroupBy, scope: Scope) -> G.Group:
    """The IR of a ``group by``."""
    if isinstance(group, Q.GroupSet):
        items = tuple(group_ir(item, scope) for item in group.items)
        return G.Group(kind="set", items=items, span=group.span)
    kind = "each" if isinstance(group, Q.GroupEach) else "expr"
    code = embedded(group.expr, scope)  # type: ignore[attr-defined]
    return G.Group(kind=kind, code=code, span=group.span)


def window_ir(target: Q.Target, scope: Scope, args: Any) -> G.Window:
    """The window ``target`` names, its settings evaluated with ``args``."""
    found = scope.lookup(target)
    if found is None or not isinstance(found[0], Q.DefineWindow):
        raise CompileError(f"Unknown window: {target.qualified}", target.span, source=scope.source)
    defn, wscope = found
    assert isinstance(defn, Q.DefineWindow)
    config = {e.key.name: const_value(e.value, wscope, args, e.span) for e in defn.config}
    check_window(defn, config, wscope.source)
    if is_extension(defn, config):
        return ext_window_ir(target, defn, config, wscope)
    if (
        "size" in config
        and "interval" in config
        or (defn.state is not None and ("size" in config or "interval" in config))
    ):
        raise PlainError(BAD_WINDOW)
    kind = "size" if "size" in config else "interval" if "interval" in config else "state"
    script = reply = state = None
    if defn.script is not None:
        script = G.Embedded(script=embed(defn.script.items, wscope), source=wscope.source)
        reply = (defn.script.span.start, defn.script.span.end)  # Tremor's error span: the script
    if defn.state is not None:
        state = G.Constant(value=const_value(defn.state, wscope, args, defn.state.span))
    tick = tick_reply = None
    for named in defn.named:  # at most one, ``tick`` (grammar and checks)
        tick = G.Embedded(script=embed(named.script.items, wscope), source=wscope.source)
        tick_reply = (named.script.span.start, named.script.span.end)
    return G.Window(
        name=target.name,
        kind=kind,
        amount=config.get(kind, 0),
        script=script,
        reply_span=reply,
        init_state=state,
        max_groups=G.Constant(value=config["max_groups"]) if "max_groups" in config else None,
        tick_script=tick,
        tick_reply_span=tick_reply,
        span=target.span,
    )


def _alone(windows: tuple[G.Window, ...], scope: Scope) -> None:
    """An extension window can not be part of a tilt-frame chain (its windows overlap or end
    out of order, so there is no one window to merge up the chain)."""
    if len(windows) < 2:
        return
    for window in windows:
        if window.kind in EXT_KINDS:
            raise CompileError(
                f"Window `{window.name}` ({window.kind}) must be the select's only window: "
                "tilt-frame chains `[w1, w2, …]` take tumbling windows only",
                window.span,
                source=scope.source,
            )


def _windowed(select: Q.Select) -> tuple[S.Expr, tuple[S.Call, ...], S.Expr | None]:
    """The rewritten target, its aggregate calls and their argument arrays (None: none)."""
    target, aggrs = rewrite_target(select.target, select)
    arrays = S.ArrayLit(items=tuple(S.ArrayLit(items=a.args) for a in aggrs)) if aggrs else None
    return target, tuple(aggrs), arrays


def select_clauses(
    select: Q.Select, scope: Scope
) -> tuple[G.Embedded, G.Embedded | None, tuple[S.Call, ...]]:
    """The checked target and aggregate-argument scripts of ``select`` (a windowed target is
    rewritten first, once per program, so checking and instantiation share one front-end run)."""
    assert scope.elab is not None
    target, aggrs, arrays = select.target, (), None
    if select.windows:
        target, aggrs, arrays = scope.elab.once("windowed", select, lambda: _windowed(select))
    aggr_args = embedded(arrays, scope) if arrays is not None else None
    return embedded(target, scope), aggr_args, aggrs


def check_select_scripts(select: Q.Select, scope: Scope) -> None:
    """Every clause of ``select`` through the script front end (the checks' share of it)."""
    select_clauses(select, scope)
    for clause in (select.where, select.having):
        if clause is not None:
            embedded(clause, scope)
    if select.group_by is not None:
        group_ir(select.group_by, scope)


def select_ir(select: Q.Select, name: str, scope: Scope, args: Any) -> G.SelectNode:
    """The select node ``name`` (errors in the order the clauses are evaluated)."""
    windows = tuple(window_ir(w, scope, args) for w in select.windows)
    _alone(windows, scope)
    target_code, aggr_args, aggrs = select_clauses(select, scope)
    aggregates = tuple("::".join((*a.module, a.name)) for a in aggrs)
    where = embedded(select.where, scope) if select.where is not None else None
    having = embedded(select.having, scope) if select.having is not None else None
    group = group_ir(select.group_by, scope) if select.group_by is not None else None
    return G.SelectNode(
        name=name,
        target=target_code,
        where=where,
        having=having,
        group=group,
        windows=windows,
        aggregates=aggregates,
        aggr_args=aggr_args,
        args=args,
        span=select.span,
    )
