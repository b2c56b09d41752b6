"""``generic::batch`` nodes whose batching nothing in the pipeline can see.

A batch collects ``count`` events (or those that arrived within ``timeout`` of the first, by
their ingest time) into one batch event; a sink writes each event of a batch on its own, in
order. The end-of-input tick flushes an unfinished batch only when it has a ``timeout`` (no more
than 2**63 ns: the tick's ``now`` is 2**64 - 1 and an ingest time is a signed long;
``runtime_support.tremor.builtin_operators.Batch.tick``); without one its last events are never
written, as in Tremor. With a timeout and the flush every event the batch receives leaves it exactly
once, in arrival order, so what a sink writes is what it would write with no batch at all -- *if*
the batch events reach only sinks, and only sinks that do not read ``$`` (a batch event's metadata
is the batch's), and if nothing else writes to those sinks (a row of another producer would land
between the batch's rows at a different place). This pass proves the part the pipeline can see
and marks the node ``flush_transparent``; the planner (``compiler/plan/job_phases.py``) checks
the rest (which sinks read ``$``, other producers outside the pipeline, exit sinks, counted runs,
the input streams, the batch's stage) and then, when the run flushes, the job's ``batch_plan``
runs the batch's stage in parallel with the batch as a passthrough
(``runtime_support.spark.plan.passthroughs``).

Invariant: a node is marked only when it has such a timeout and every path out of it leads,
through ports and streams only (passthroughs), to the pipeline's output ports, and every link
into a node on those paths comes from the batch or from another node on them. A select, script
or operator after the batch (which would see a batch event, an array), an output port that reads
on, or another producer into one of those nodes leaves the node unmarked. Pipelines that report
metrics keep the real batch (the caller does not apply this pass: its counts are observable
there).
"""

from __future__ import annotations

import dataclasses

from ..ir import graph as G

__all__ = ["mark_flush_transparent"]

KIND = "generic::batch"
#: The largest ``timeout`` the end-of-input tick passes whatever the first event's ingest time.
MAX_TIMEOUT = 2**63


def mark_flush_transparent(graph: G.PipelineGraph) -> G.PipelineGraph:
    """``graph`` with every batch whose batching only its output ports can see marked
    ``flush_transparent``."""
    nodes = []
    for node in graph.nodes:
        if (
            isinstance(node, G.OperatorNode)
            and node.kind == KIND
            and _flushes_at_end(node)
            and _transparent(node, graph)
        ):
            node = dataclasses.replace(node, flush_transparent=True)  # type: ignore[arg-type]
        nodes.append(node)
    return dataclasses.replace(graph, nodes=tuple(nodes))


def _flushes_at_end(batch: G.OperatorNode) -> bool:
    """The end-of-input tick (``now`` = 2**64 - 1) closes ``batch``'s unfinished batch."""
    timeout = batch.config.get("timeout")
    return type(timeout) is int and 0 <= timeout <= MAX_TIMEOUT


def _transparent(batch: G.OperatorNode, graph: G.PipelineGraph) -> bool:
    reached = _reached(batch.name, graph)
    if reached is None:
        return False
    inside = reached | {batch.name}
    return all(link.source[0] in inside for link in graph.links if link.target[0] in reached)


def _reached(batch: str, graph: G.PipelineGraph) -> set[str] | None:
    """The nodes on the paths out of ``batch`` (None: one of them is no passthrough, an input
    port, or an output port that links on)."""
    nodes = {node.name: node for node in graph.nodes}
    outputs = {name for _, name in graph.outputs}
    inputs = {name for _, name in graph.inputs}
    read_inside = {link.source[0] for link in graph.links}

    def passes_on(name: str) -> bool:
        if name == batch or name in inputs:
            return False
        if not isinstance(nodes.get(name), G.PortNode | G.StreamNode):
            return False  # a select, script or operator would see the batch event
        return name not in outputs or name not in read_inside  # an output read inside: no

    return graph.reachable(batch, passes_on)
