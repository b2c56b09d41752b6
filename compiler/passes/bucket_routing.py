"""``grouper::bucket`` nodes whose rate limit cannot change where an event goes.

A bucket sends an event to ``err`` when its ``$class`` is not a string, or when its ``$rate`` is
not an int on the first event of its class and dimension; otherwise to ``out`` or ``overflow``
by the class's rate limit (state). When ``out`` and ``overflow`` are linked to the same targets
in the same order, the limit changes nothing the job writes, so only the class check is left,
*if* no event with a string ``$class`` can lack an integer ``$rate``. This pass proves that from
the scripts that produce the bucket's events (an abstract run over their ``$class`` / ``$rate``
assignments) and marks the node ``routes_only``: it then keeps no state (stateless scope, no
shuffle) and runs as :class:`runtime_support.operators.BucketRoute`.

Invariant: a node is marked only when, for every event that can reach it, the stateful bucket
and the route agree on the output port class (``err`` vs ``out``/``overflow``). Anything the
analysis does not model (a non-literal ``$rate``, a select or operator upstream, a ``for`` that
assigns ``$``, a function that emits) leaves the node stateful. Pipelines that report metrics
keep the real bucket (its ``out``/``overflow`` counts are observable there).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..ast import script as S
from ..ir import graph as G

__all__ = ["route_buckets"]

#: Kinds of a metadata key's value: absent, string, int (a Tremor u64), anything else.
ABSENT, STR, INT, OTHER = "absent", "str", "int", "other"
ANY = frozenset({ABSENT, STR, INT, OTHER})
_KEYS = ("class", "rate")

#: What an abstract run knows of ``$class`` and ``$rate``: the kinds each may have.
State = tuple[frozenset[str], frozenset[str]]
UNKNOWN: State = (ANY, ANY)


class _Unproven(Exception):
    """The analysis met something it does not model."""


def route_buckets(graph: G.PipelineGraph) -> G.PipelineGraph:
    """``graph`` with every bucket this module can prove routing-only marked ``routes_only``."""
    nodes = []
    for node in graph.nodes:
        if _is_candidate(node, graph) and _proven(node.name, graph):
            node = dataclasses.replace(node, routes_only=True)  # type: ignore[arg-type]
        nodes.append(node)
    return dataclasses.replace(graph, nodes=tuple(nodes))


def _is_candidate(node: G.GraphNode, graph: G.PipelineGraph) -> bool:
    if not isinstance(node, G.OperatorNode) or node.kind != "grouper::bucket":
        return False
    out = [link.target for link in graph.links if link.source == (node.name, "out")]
    overflow = [link.target for link in graph.links if link.source == (node.name, "overflow")]
    return out == overflow


def _proven(bucket: str, graph: G.PipelineGraph) -> bool:
    """Every producer of ``bucket``'s events is a script whose emissions on that port are
    proven (through passthrough ports and streams only)."""
    nodes = {node.name: node for node in graph.nodes}
    try:
        producers = list(_producers((bucket, "in"), graph, nodes, frozenset()))
        by_script: dict[str, set[str]] = {}
        for name, port in producers:
            by_script.setdefault(name, set()).add(port)
        for name, ports in by_script.items():
            script = nodes[name]
            if not isinstance(script, G.ScriptNode) or script.named:
                return False
            _check_script(script.body.script, frozenset(ports))
    except _Unproven:
        return False
    return bool(producers)


def _producers(
    target: G.Endpoint, graph: G.PipelineGraph, nodes: dict, seen: frozenset[str]
) -> Iterable[G.Endpoint]:
    for link in graph.links:
        if link.target != target:
            continue
        name = link.source[0]
        node = nodes.get(name)
        if isinstance(node, G.PortNode | G.StreamNode):
            if name in seen or any(name == n for _, n in graph.inputs):
                raise _Unproven  # the pipeline's input: its metadata is unknown
            yield from _producers((name, "in"), graph, nodes, seen | {name})
        elif isinstance(node, G.ScriptNode):
            yield link.source
        else:
            raise _Unproven


def _check_script(script: S.Script, ports: frozenset[str]) -> None:
    """Raise :class:`_Unproven` unless every event ``script`` emits on ``ports`` has a string
    ``$class`` and an int ``$rate``, or no string ``$class`` (the input's metadata is unknown)."""
    if "err" in ports:
        raise _Unproven  # error records carry the failed event's metadata
    for item in script.items:
        if isinstance(item, S.FnDef):
            for expr in (*item.body, *(c for case in item.cases for c in case.body)):
                _inert(expr)
    body = [i for i in script.items if isinstance(i, S.Expr) and not isinstance(i, S.Const)]
    end = _run(body, UNKNOWN, ports)
    if end is not None and "out" in ports:
        _emitted(end)


def _run(exprs: Iterable[S.Expr], state: State | None, ports: frozenset[str]) -> State | None:
    """The state after ``exprs`` (None: every path emitted, dropped or failed)."""
    for expr in exprs:
        if state is None:
            return None
        state = _step(expr, state, ports)
    return state


def _step(expr: S.Expr, state: State, ports: frozenset[str]) -> State | None:
    match expr:
        case S.Emit(value=value, port=port):
            if value is not None:
                _inert(value)
            name = "out" if port is None else _literal_port(port)
            if name in ports:
                _emitted(state)
            return None
        case S.Drop():
            return None
        case S.Let(target=S.Path(root="meta", segments=segments), value=value):
            _inert(value)
            return _assigned(state, segments, value)
        case S.Let(value=value):
            _inert(value)
            return state
        case S.Match(target=target, cases=cases):
            _inert(target)
            ends = []
            for case in cases:
                if case.guard is not None:
                    _inert(case.guard)
                ends.append(_run(case.body, state, ports))
            if not any(isinstance(c.pattern, S.AnyPattern) and c.guard is None for c in cases):
                ends.append(state)  # no case matched: an error, counted as passing anyway
            return _join(ends)
        case _:
            _inert(expr)
            return state


def _literal_port(port: S.Expr) -> str:
    if isinstance(port, S.Literal) and type(port.value) is str:
        return port.value
    raise _Unproven


def _assigned(state: State, segments: tuple[S.Segment, ...], value: S.Expr) -> State | None:
    if not segments:  # `let $ = …` is Tremor's runtime error: the event goes to `err`
        return None
    first = segments[0]
    if not isinstance(first, S.FieldSeg):
        return UNKNOWN
    if first.name not in _KEYS:
        return state
    # a deeper path (`$class.x = …`) makes the key a record, or fails
    kind = _kind(value) if len(segments) == 1 else OTHER
    updated = frozenset({kind}) if kind is not None else ANY
    return (updated, state[1]) if first.name == "class" else (state[0], updated)


def _kind(value: S.Expr) -> str | None:
    """The kind of a literal's value (None: not a literal, unknown)."""
    if isinstance(value, S.StringInterp):
        return STR
    if not isinstance(value, S.Literal):
        return None
    if type(value.value) is str:
        return STR
    if type(value.value) is int and value.value >= 0:
        return INT
    return OTHER


def _emitted(state: State) -> None:
    """An event leaves with ``state``: a string ``$class`` must come with an int ``$rate``."""
    classes, rates = state
    if STR in classes and rates != frozenset({INT}):
        raise _Unproven


def _join(states: list[State | None]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    return (
        frozenset().union(*(s[0] for s in live)),
        frozenset().union(*(s[1] for s in live)),
    )


def _inert(expr: S.Node) -> None:
    """``expr`` neither assigns ``$``, emits nor drops anywhere inside."""
    for node in expr.walk():
        if isinstance(node, S.Emit | S.Drop):
            raise _Unproven
        if isinstance(node, S.Let) and node.target.root == "meta":
            raise _Unproven
