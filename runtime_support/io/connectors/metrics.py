"""The ``metrics`` connector: the flow's event counts per node and port, as Tremor's metrics events.

Tremor's pipelines count, per node, the events in on each input port and out on each output port
(tremor-pipeline ``NodeMetrics``: an input stream counts no input, an output stream no output, a
port that never saw an event is not reported); its sources count ``out`` and ``err``, its sinks
``in`` (``SourceReporter``/``SinkReporter``: both ports always reported). Only pipelines with
``#!config metrics_interval_s`` and connectors with ``metrics_interval_s`` report. The events:

- ``{"measurement": "events", "tags": {"pipeline": "<flow>::<pipeline>", "node": n,
  "direction": "input"|"output", "port": p}, "fields": {"count": c}, "timestamp": ns}``
- ``{"measurement": "connector_events", "tags": {"flow": f, "connector": "<flow>::<alias>",
  "port": p}, "fields": {"count": c}, "timestamp": ns}``

Counting runs on the executors: a counted graph (``GraphSpec.counted``) counts in
:class:`runtime_support.tremor.graph.Graph`, and each stage partition ends with one row of its
counts on the port ``#metrics`` (``stages.METRICS_PORT``); the driver sums those rows (one per
partition and stage: no event goes through the driver). Batch: the metrics source emits nothing
while the flow runs; after every other sink is written, :func:`metrics_inputs` makes the final
counts the input of the pipelines it feeds, a second pass (as ``flow_answers`` does for responses).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from runtime_support.io.connectors.base import RunContext, rows_frame
from runtime_support.tremor.jsonio import decode_json, encode_json
from runtime_support.tremor.origin import encode_origin, hostname

__all__ = ["MetricsSpec", "metrics_events", "metrics_inputs", "totals"]

Ports = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class MetricsSpec:
    """What reports, by graph node name.

    ``pipelines``: ``(tag, inputs, nodes, outputs)`` per reporting pipeline (graph node names,
    in graph order; inputs count no input, outputs no output). ``sources``: ``(flow, tag,
    ((stream, port), …))`` per reporting source connector (its graph input streams and their
    connector port). ``sinks``: ``(flow, tag, port, ((node, port), …))`` per reporting sink
    port, with the node ports linked into it. ``streams``: the metrics connectors' streams.
    ``interval_s``: a stream emits at most that often (the smallest ``metrics_interval_s`` of
    the reporting connectors; 0: every micro-batch whose counts changed).
    """

    pipelines: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]
    sources: tuple[tuple[str, str, Ports], ...]
    sinks: tuple[tuple[str, str, str, Ports], ...]
    streams: tuple[str, ...]
    interval_s: int = 0


def totals(rows: Iterable[str]) -> Counter:
    """The sum of ``#metrics`` rows (JSON ``[[node, direction, port, count], …]``)."""
    counts: Counter = Counter()
    for text in rows:
        for node, way, port, count in decode_json(text):
            counts[(node, way, port)] += count
    return counts


def _count(measurement: str, tags: dict[str, str], count: int, ns: int) -> dict[str, Any]:
    """Tremor's ``value_count``."""
    return {"measurement": measurement, "tags": tags, "fields": {"count": count}, "timestamp": ns}


def _node_events(spec: MetricsSpec, counts: Counter, ns: int) -> list[dict[str, Any]]:
    """``events`` per reporting pipeline node: its input ports, then its output ports."""
    out = []
    by_node: dict[str, list[tuple[str, str, int]]] = {}
    for (node, way, port), count in sorted(counts.items()):
        by_node.setdefault(node, []).append((way, port, count))
    for tag, inputs, nodes, outputs in spec.pipelines:
        prefix = tag.replace("::", "/", 1) + "/"
        for node in nodes:
            for way, port, count in by_node.get(node, ()):
                skip = (way == "input" and node in inputs) or (way == "output" and node in outputs)
                if count and not skip:
                    tags = {"pipeline": tag, "node": node.removeprefix(prefix)}
                    tags.update(direction=way, port=port)
                    out.append(_count("events", tags, count, ns))
    return out


def metrics_events(spec: MetricsSpec, counts: Counter, ns: int) -> list[dict[str, Any]]:
    """The metrics events of ``counts`` (see the module doc) at ``ns``: pipeline nodes, then
    source connectors (``out``, ``err``), then sink connector ports."""
    out = _node_events(spec, counts, ns)
    for flow, tag, streams in spec.sources:
        sent = sum(counts[(s, "output", "out")] for s, port in streams if port == "out")
        failed = sum(counts[(s, "output", "err")] for s, _ in streams)
        failed += sum(counts[(s, "output", "out")] for s, port in streams if port == "err")
        for port, count in (("out", sent), ("err", failed)):
            out.append(_count("connector_events", _tags(flow, tag, port), count, ns))
    for flow, tag, port, feeders in spec.sinks:
        got = sum(counts[(node, "output", out_port)] for node, out_port in feeders)
        out.append(_count("connector_events", _tags(flow, tag, port), got, ns))
    return out


def _tags(flow: str, connector: str, port: str) -> dict[str, str]:
    return {"flow": flow, "connector": connector, "port": port}


def metrics_inputs(spark: Any, spec: MetricsSpec, counted: Any, ctx: RunContext) -> dict:
    """The metrics streams' input DataFrames after a batch run: ``counted`` is the job's
    ``#metrics`` output (summed here), every metrics stream gets the same events."""
    counts = totals(row.value for row in counted.select("value").collect())
    events = metrics_events(spec, counts, time.time_ns())
    rows = [(i, encode_json(event), ctx.ingest(i)) for i, event in enumerate(events)]
    origin = encode_origin("tremor-metrics", hostname(), None, [])
    return {stream: rows_frame(spark, rows, origin) for stream in spec.streams}
