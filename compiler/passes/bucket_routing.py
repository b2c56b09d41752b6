"""``grouper::bucket`` nodes whose rate limit cannot change where an event goes.

A bucket sends an event to ``err`` when its ``$class`` is not a string, or when its ``$rate`` is
not an int on the first event of its class and dimension; otherwise to ``out`` or ``overflow``
by the class's rate limit (state). When ``out`` and ``overflow`` are linked to the same targets
in the same order, the limit changes nothing the job writes, so only the class check is left,
*if* no event with a string ``$class`` can lack an integer ``$rate``. This pass proves that from
the scripts that produce the bucket's events (an abstract run over their ``$class`` / ``$rate``
assignments and port-valued locals, :mod:`compiler.passes.bucket_meta`) and marks the node
``routes_only``: it then keeps no state (stateless scope, no shuffle) and runs as
:class:`runtime_support.tremor.builtin_operators.BucketRoute`.

The pipeline's input metadata is unknown unless the caller says its events carry none
(``input_meta_empty``: a ``.trickle`` job, whose CLI reads JSON lines with no metadata). A
bucket proven only thanks to that is also marked ``assumes_no_input_meta``; the generated job
then refuses input DataFrames with a ``meta`` column (``runtime_support.spark.plan``).

When every event that can reach the bucket is also proven to carry a string ``$class`` and an
int ``$rate`` (:func:`~compiler.passes.bucket_meta.always_classed`), the route is ``out`` for
all of them: the node is marked ``always_out`` too and runs as a passthrough (it reads no ``$``).
One abstract run per script and assumption gives the states both judgements read.

Invariant: a node is marked only when, for every event that can reach it, the stateful bucket
and the route agree on the output port class (``err`` vs ``out``/``overflow``). Anything the
analysis does not model (a non-literal ``$rate``, a select or operator upstream, a ``for`` that
assigns ``$``, a function that emits, a port it cannot name) leaves the node stateful.
Pipelines that report metrics keep the real bucket (its ``out``/``overflow`` counts are
observable there).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..ir import graph as G
from .bucket_meta import (
    EMPTY,
    UNKNOWN,
    Scans,
    State,
    Unproven,
    always_classed,
    emissions,
    routes_only,
)

__all__ = ["route_buckets"]

#: A source of events that is the pipeline's own input (see :func:`_sources`).
INPUT = None


def route_buckets(graph: G.PipelineGraph, input_meta_empty: bool = False) -> G.PipelineGraph:
    """``graph`` with every bucket this module can prove routing-only marked ``routes_only``;
    ``input_meta_empty``: the pipeline's input events carry no metadata (a bucket that needs
    this to be proven is marked ``assumes_no_input_meta`` too)."""
    nodes, scans = [], Scans()  # the scripts' walks, shared by every bucket's runs
    for node in graph.nodes:
        if _is_candidate(node, graph):
            node = _marked(node, graph, input_meta_empty, scans)  # type: ignore[arg-type]
        nodes.append(node)
    return dataclasses.replace(graph, nodes=tuple(nodes))


def _marked(
    node: G.OperatorNode, graph: G.PipelineGraph, input_meta_empty: bool, scans: Scans
) -> G.OperatorNode:
    """``node`` with what this module proves of it (unchanged when nothing)."""
    for assume in (False, True) if input_meta_empty else (False,):
        states = _states(node.name, graph, scans, input_meta_empty=assume)
        if states is not None and routes_only(states):
            return dataclasses.replace(
                node,
                routes_only=True,
                always_out=always_classed(states),
                assumes_no_input_meta=assume,
            )
    return node


def _is_candidate(node: G.GraphNode, graph: G.PipelineGraph) -> bool:
    if not isinstance(node, G.OperatorNode) or node.kind != "grouper::bucket":
        return False
    out = [link.target for link in graph.links if link.source == (node.name, "out")]
    overflow = [link.target for link in graph.links if link.source == (node.name, "overflow")]
    return out == overflow


def _states(
    bucket: str, graph: G.PipelineGraph, scans: Scans, *, input_meta_empty: bool
) -> list[State] | None:
    """The metadata states the events reaching ``bucket`` (through passthrough ports and
    streams only) may have: those of the scripts that emit them, and ``EMPTY`` for the
    pipeline's input when ``input_meta_empty``; None when some source is not modelled (or is
    the input, without ``input_meta_empty``) or there is no source."""
    nodes = {node.name: node for node in graph.nodes}
    try:
        sources = list(_sources((bucket, "in"), graph, nodes, frozenset()))
        by_script: dict[str, set[str]] = {}
        states: list[State] = []
        for source in sources:
            if source is INPUT:
                if not input_meta_empty:
                    raise Unproven  # the pipeline's input: its metadata is unknown
                states.append(EMPTY)  # its events carry no metadata
                continue
            name, port = source
            by_script.setdefault(name, set()).add(port)
        for name, ports in by_script.items():
            script = nodes[name]
            if not isinstance(script, G.ScriptNode) or script.named:
                return None
            start = EMPTY if input_meta_empty and _fed_by_input(name, graph, nodes) else UNKNOWN
            states += emissions(script.body.script, frozenset(ports), start, scans)
    except Unproven:
        return None
    return states if sources else None


def _fed_by_input(script: str, graph: G.PipelineGraph, nodes: dict) -> bool:
    """Every event ``script`` reads comes straight from the pipeline's input."""
    try:
        sources = list(_sources((script, "in"), graph, nodes, frozenset()))
    except Unproven:
        return False  # fed (also) by a node that is no script: its metadata is unknown
    return bool(sources) and all(source is INPUT for source in sources)


def _sources(
    target: G.Endpoint, graph: G.PipelineGraph, nodes: dict, seen: frozenset[str]
) -> Iterable[G.Endpoint | None]:
    """The script outputs feeding ``target`` through passthrough ports and streams, and
    :data:`INPUT` for the pipeline's input; raises :class:`Unproven` on any other node."""
    for link in graph.links:
        if link.target != target:
            continue
        name = link.source[0]
        node = nodes.get(name)
        if isinstance(node, G.PortNode | G.StreamNode):
            if any(name == n for _, n in graph.inputs):
                yield INPUT
            elif name in seen:
                raise Unproven
            else:
                yield from _sources((name, "in"), graph, nodes, seen | {name})
        elif isinstance(node, G.ScriptNode):
            yield link.source
        else:
            raise Unproven
