"""The ``MetricsSpec`` of a flow job with a ``metrics`` source (runtime_support/io/connectors/
metrics.py): which pipelines and connectors report, by graph node name. Raises no user error.

A job reports only when a ``metrics`` connector feeds a pipeline; then the pipelines with
``#!config metrics_interval_s`` and the connectors with ``metrics_interval_s`` report (Tremor's
rule), and the graph counts its events (``GraphSpec.counted``).
"""

from __future__ import annotations

from typing import Any

from .graph import output_node

METRICS_IMPORTS = ("runtime_support.io.connectors.metrics:MetricsSpec",)


def _pipelines(job: Any) -> tuple:
    """``(tag, inputs, nodes, outputs)`` per reporting pipeline, nodes in graph order."""
    found = []
    for flow, pipeline in job.pipelines:
        if not pipeline.reports:
            continue
        graph = pipeline.graph
        inputs = tuple(node for _, node in graph.inputs)
        outputs = tuple(node for _, node in graph.outputs)
        middle = tuple(n.name for n in graph.nodes if n.name not in inputs + outputs)
        found.append((f"{flow}::{pipeline.alias}", inputs, inputs + middle + outputs, outputs))
    return tuple(found)


def _sources(job: Any) -> tuple:
    """``(flow, tag, ((stream, port), …))`` per reporting source connector."""
    streams: dict[int, list[tuple[str, str]]] = {}
    for conn, port, stream in job.inputs:
        if job.reports[conn] is not None and job.kinds[conn] != "metrics":
            streams.setdefault(conn, []).append((stream, port))
    return tuple(
        (job.aliases[c].split("::")[0], job.aliases[c], tuple(pairs))
        for c, pairs in sorted(streams.items())
    )


def _sinks(job: Any) -> tuple:
    """``(flow, tag, port, ((node, port), …))`` per reporting sink port."""
    found = []
    for name, conn, port in job.outputs:
        if job.reports[conn] is not None:
            target = (output_node(name), "in")
            feeders = tuple(src for src, dst in job.links if dst == target)
            found.append((job.aliases[conn].split("::")[0], job.aliases[conn], port, feeders))
    return tuple(found)


def metrics_expr(job: Any) -> str:
    """``MetricsSpec(...)`` source text, or "" when no ``metrics`` source is connected."""
    streams = tuple(s for c, _, s in job.inputs if job.kinds[c] == "metrics")
    if not streams:
        return ""
    intervals = [i for i, k in zip(job.reports, job.kinds, strict=True) if i and k != "metrics"]
    return (
        f"MetricsSpec(pipelines={_pipelines(job)!r}, sources={_sources(job)!r}, "
        f"sinks={_sinks(job)!r}, streams={streams!r}, interval_s={min(intervals, default=0)!r})"
    )
