"""Statement checks of trickle, with Tremor's messages (the ``query_errors`` corpus).

Needs: a parsed :class:`~compiler.ast.query.Query`. Establishes: node and stream names are
unique and not reserved, pipelines are defined once, selects use no locals and, when windowed,
reference ``event``/``$`` only inside aggregates or group-by expressions, aggregates are not
nested and have the right arity, windows and scripts are well formed, and every embedded
script passes the tremor-script front end. The tree is returned unchanged.
"""

from __future__ import annotations

from ..ast import query as Q
from ..ast import script as S
from ..ast.common import Node
from ..diagnostics import CompileError
from ..registry import AGGREGATES
from ..source import Source, Span
from .elaboration import Elaboration
from .query_scope import (
    NOT_CONST,
    Scope,
    embed,
    group_components,
    load_query_modules,
    with_module_scopes,
)
from .query_selects import check_select_scripts

RESERVED = ("in", "out", "err")
IN_USE = "Name `{}` is already in use for another node, please use another name."
EVENT_HINT = (
    "Here you operate in the whole window, not a single event. You need to wrap this reference "
    "in an aggregate function (e.g. aggr::win::last(...)) or use it in the group by clause of "
    "this query."
)
AGGR_MODULES = (("aggr", "stats"), ("aggr", "win"))


def _err(message: str, span: Span, source: Source, **kw: object) -> CompileError:
    return CompileError(message, span, source=source, **kw)  # type: ignore[arg-type]


def _context(source: Source, span: Span, before: int = 2, after: int = 2) -> Span:
    from runtime_support.tremor.highlight import expand_lines

    start, end = expand_lines(source.text, (span.start, span.end), before, after)
    return Span(start, end)


def check_names(stmts: tuple[Q.QueryItem, ...], source: Source, ports: tuple[str, ...]) -> None:
    """Unique streams/nodes/pipelines; reserved names; streams vs. pipeline ports."""
    nodes: set[str] = set()
    pipelines: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, Q.DefinePipeline):
            if stmt.name.name in pipelines:
                end = Span(stmt.span.end - 3, stmt.span.end)
                raise _err(
                    f"Can't define the pipeline `{stmt.name.name}` twice",
                    end,
                    source,
                    outer=stmt.span,
                )
            pipelines.add(stmt.name.name)
        elif isinstance(stmt, Q.CreateStream):
            name = stmt.name.name
            if name in ports:
                raise _err("Streams cannot share names with from/into ports", stmt.span, source)
            if name in nodes:
                raise _err(f"Can't define the stream `{name}` twice", stmt.span, source)
            nodes.add(name)
        elif isinstance(stmt, Q.Create):
            name = stmt.name.name
            if name in nodes or name in RESERVED:
                raise _err(
                    IN_USE.format(name), stmt.span, source, outer=_context(source, stmt.span)
                )
            nodes.add(name)


def _select_exprs(select: Q.Select) -> list[S.Expr]:
    exprs = [select.target]
    exprs += [e for e in (select.where, select.having) if e is not None]
    group = select.group_by
    stack = [group] if group is not None else []
    while stack:
        g = stack.pop()
        if isinstance(g, Q.GroupSet):
            stack.extend(g.items)
        else:
            exprs.append(g.expr)  # type: ignore[attr-defined]
    return exprs


def _locals(expr: Node) -> Node | None:
    """The first local variable read (comprehension and pattern names are allowed)."""
    bound: set[str] = set()
    for node in expr.walk():
        if isinstance(node, S.ForCase):
            bound.update((node.key, node.value))
        elif isinstance(node, S.AssignPattern):
            bound.add(node.name)
        elif isinstance(node, S.Path) and node.root == "local" and node.name not in bound:
            return node
    return None


def check_locals(select: Q.Select, source: Source) -> None:
    """``Local variables are not allowed here`` (span: the enclosing clause expression)."""
    for expr in _select_exprs(select):
        if _locals(expr) is not None:
            span = expr.span
            if isinstance(select.group_by, Q.GroupSet) and expr is not select.target:
                span = select.group_by.span if _within(expr, select.group_by) else span
            raise _err(
                "Local variables are not allowed here",
                span,
                source,
                outer=_context(source, span, 3, 1),
            )


def _within(expr: Node, group: Node) -> bool:
    return any(node is expr for node in group.walk())


def check_aggregates(select: Q.Select, source: Source) -> None:
    """No aggregate inside an aggregate; aggregate arity as registered (the registry is imported
    only for a select that calls an aggregate)."""
    for node in select.target.walk():
        if isinstance(node, S.Call) and tuple(node.module) in AGGR_MODULES:
            from runtime_support.tremor.stdlib import registry

            name = "::".join((*node.module, node.name))
            fn = registry.lookup(name)
            if fn is None:
                known = ", ".join(AGGREGATES.supported())
                raise _err(
                    f"Unknown aggregate function `{name}`; the aggregates are {known}",
                    node.span,
                    source,
                )
            if fn is not None:
                n = len(node.args)
                if n < fn.min_arity or (fn.max_arity is not None and n > fn.max_arity):
                    raise _err(
                        f"Bad arity for function {fn.short_name}/{registry.arity_text(fn)} "
                        f"but was called with {n} arguments",
                        _from_select(select, node),
                        source,
                    )
            for inner in node.args:
                for sub in inner.walk():
                    if isinstance(sub, S.Call) and tuple(sub.module) in AGGR_MODULES:
                        raise _err(
                            "Aggregates can not be called inside of aggregates",
                            _from_select(select, sub),
                            source,
                        )


def _from_select(select: Q.Select, node: Node) -> Span:
    """(quirk) Tremor underlines aggregate errors from the start of the ``select``."""
    return Span(select.span.start, node.span.end)


def check_window_refs(select: Q.Select, source: Source) -> None:
    """With windows, ``event``/``$`` only inside aggregates or group-by components."""
    if not select.windows:
        return
    comps = group_components(select.group_by)

    def visit(node: Node) -> None:
        if isinstance(node, S.Call) and tuple(node.module) in AGGR_MODULES:
            return
        if isinstance(node, S.Expr) and any(node == c for c in comps):
            return
        if isinstance(node, S.Path) and node.root in ("event", "meta"):
            raise _err(
                "References to `event` or `$` are not allowed in this context",
                node.span,
                source,
                hint=EVENT_HINT,
            )
        for child in node.children():
            visit(child)

    visit(select.target)


def check_body(stmts: tuple[Q.QueryItem, ...], scope: Scope, ports: tuple[str, ...]) -> None:
    """All checks of one query or pipeline body (recursing into pipeline definitions)."""
    source = scope.source
    check_names(stmts, source, ports)
    scope.uses = tuple(s for s in stmts if isinstance(s, S.Use))
    for stmt in stmts:
        if isinstance(stmt, Q.Select):
            check_locals(stmt, source)
            check_aggregates(stmt, source)
            check_window_refs(stmt, source)
            check_select_scripts(stmt, scope)
        elif isinstance(stmt, Q.DefineScript):
            check_script(stmt, scope)
        elif isinstance(stmt, Q.DefineWindow):
            check_window(stmt, scope)
        elif isinstance(stmt, Q.DefinePipeline):
            sub_ports = tuple(p.name for p in (*stmt.from_ports, *stmt.into_ports))
            check_body(stmt.stmts, scope.child(), sub_ports)


def check_script(stmt: Q.DefineScript, scope: Scope) -> None:
    """Named ports (see :func:`_check_script_ports`) and the script bodies."""
    _check_script_ports(stmt, scope.source)
    check_consts(stmt.script, scope.source)
    embed(stmt.script.items, scope)
    for named in stmt.named:
        embed(named.script.items, scope)


def _check_script_ports(stmt: Q.DefineScript, source: Source) -> None:
    """``in`` is reserved and each port named once. Tremor checks the named sections last to
    first, so a duplicate is reported at its first occurrence."""
    seen: set[str] = set()
    for named in reversed(stmt.named):
        port = named.port.name
        if port == "in" or port in seen:
            message = (
                "port `in` is reserved for the `script` section"
                if port == "in"
                else "script port already defined"
            )
            raise _err(message, named.port.span, source, outer=stmt.span)
        seen.add(port)


def check_module_definitions(scope: Scope) -> None:
    """The definition rules of script and window definitions ``use``d from modules (their
    bodies pass the script front end where they are instantiated)."""
    for sub in scope.modules.values():
        for stmt in sub.defs.values():
            if isinstance(stmt, Q.DefineScript):
                _check_script_ports(stmt, sub.source)
            elif isinstance(stmt, Q.DefineWindow):
                _check_window_rules(stmt, sub.source)


def check_consts(script: S.Script, source: Source) -> None:
    """``const`` values may not read ``args`` (span: the whole line up to the ``;``)."""
    for item in script.items:
        if isinstance(item, S.Const) and any(
            isinstance(n, S.Path) and n.root == "args" for n in item.value.walk()
        ):
            start = source.text.rfind("\n", 0, item.span.start) + 1
            raise _err(NOT_CONST, Span(start, item.span.end), source)


def check_window(stmt: Q.DefineWindow, scope: Scope) -> None:
    """The window rules (see :func:`_check_window_rules`) and the script bodies."""
    source = scope.source
    _check_window_rules(stmt, source)
    inner = Scope(source, (), {}, scope.modules, scope.elab)
    for named in stmt.named:
        embed(named.script.items, inner)
    if stmt.script is not None:
        embed(stmt.script.items, inner)


def _check_window_rules(stmt: Q.DefineWindow, source: Source) -> None:
    """Tremor's window script rules, in its order: the main script may only assign to locals
    and ``state`` (not ``event``/``$``); then the one named script must be ``tick``, and it may
    neither assign to nor read ``event`` or ``$``. Errors point at the offending top-level
    expression, inside the whole definition."""
    if stmt.script is not None:
        _only_mut_state(stmt.script, stmt, source)
    for named in stmt.named:
        if named.port.name != "tick":
            raise _err(
                "Only `tick` scripts are supported by windows",
                named.port.span,
                source,
                outer=stmt.span,
            )
        _only_mut_state(named.script, stmt, source, no_event=True)


_SHOWN = {"event": "`event`", "meta": "`$`"}


def _only_mut_state(
    script: S.Script, stmt: Q.DefineWindow, source: Source, *, no_event: bool = False
) -> None:
    """No assignment to ``event``/``$`` (and with ``no_event`` no read of them either)."""
    for item in script.items:
        for node in item.walk():
            if isinstance(node, S.Let) and node.target.root in _SHOWN:
                message = f"Can not assign to {_SHOWN[node.target.root]} here"
                raise _err(message, _expr_span(item), source, outer=stmt.span)
        if no_event:
            for node in item.walk():
                if isinstance(node, S.Path) and node.root in _SHOWN:
                    message = f"{_SHOWN[node.root]} isn't accessible in this context"
                    raise _err(message, _expr_span(item), source, outer=stmt.span)


def _expr_span(item: Node) -> Span:
    """A top-level expression's span as Tremor's error shows it (an assignment starts at its
    target, after ``let``)."""
    if isinstance(item, S.Let):
        return Span(item.target.span.start, item.span.end)
    return item.span


def check_query(query: Q.Query, source: Source, elab: Elaboration) -> Q.Query:
    """Run every trickle statement check; return ``query`` unchanged.

    Instantiation errors (undefined streams, unknown or non-constant args, window settings) are
    the next pass's: :func:`compiler.passes.query_instantiate.instantiate_query`.
    """
    scope = Scope(source, tuple(s for s in query.stmts if isinstance(s, S.Use)), elab=elab)
    with_module_scopes(scope, load_query_modules(query.stmts, source))
    check_module_definitions(scope)
    check_body(query.stmts, scope, ())
    return query
