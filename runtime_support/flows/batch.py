"""Run a deployed troy flow as one batch Spark job: sources → pipeline graph → sinks.

Every connector source becomes an input stream of one combined pipeline graph (all pipelines of
all deployed flows, see ``compiler/codegen/deploy.py``); every connected sink port an output.
Sources are bounded (see :mod:`runtime_support.io.connectors`); their events are interleaved
round-robin (``seq = index * n_sources + source``) so the run is deterministic.

Sinks: a ``file`` sink is written by Spark's text writer as part files, each in Tremor's emission
order ``(seq, sub)``, no event through the driver; ``stdio`` sinks and a ``file`` sink with
``single_file: true`` get their events on the driver, in the whole emission order (small
outputs). As in Tremor, the run ends at the first event reaching an ``exit`` connector
(:func:`first_exit`, one aggregate). Without a ``delay`` every sink gets only the events before
it (``graceful`` or not: a batch has nothing in flight, each sink is written whole). With a
``delay`` Tremor goes on ``delay`` ns, its sources, pipelines and sinks running: a batch keeps,
besides, the events of the source events whose ``ingest_ns`` (the batch's clock: a metronome's
ticks ``interval`` apart, a file's lines 1 ns apart) is at most ``delay`` after the exit
event's (:func:`until`), and the second pass runs on what was kept.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime_support.flows.answers import merge_passes
from runtime_support.flows.connectors import jar_conf
from runtime_support.io.codecs import pending_codec, source_port
from runtime_support.io.connectors.base import ConnectorSpec, RunContext, build_sink, build_source
from runtime_support.spark.job_cli import (
    spark_conf,
)
from runtime_support.spark.port_frames import keep_shared
from runtime_support.spark.progress import Progress
from runtime_support.tremor.jsonio import decode_json

__all__ = ["FlowSpec", "flow_conf", "run_flow"]

RunPipeline = Callable[..., dict[str, Any]]  # (spark, inputs, flush_at_end=True)


@dataclass(frozen=True)
class FlowSpec:
    """The connectors of the deployed flows and how they meet the graph.

    ``sources``: ``(connector index, port, graph input stream)``; ``sinks``: ``(graph output
    name, connector index, port)``; ``answered``: the outputs fed by a sink's response ports
    (written in a second pass, see :mod:`runtime_support.flows.answers`), or by a ``metrics``
    source (``metrics``: what reports, see :mod:`runtime_support.io.connectors.metrics`);
    ``args``: the flows' args (:class:`runtime_support.flows.args.FlowArg`), which the job's
    ``--arg`` and environment may set.
    """

    connectors: tuple[ConnectorSpec, ...]
    sources: tuple[tuple[int, str, str], ...]
    sinks: tuple[tuple[str, int, str], ...]
    answered: tuple[str, ...] = ()
    metrics: Any = None
    args: tuple[Any, ...] = ()


def _inputs(spark: Any, flow: FlowSpec, ctx: RunContext) -> dict[str, Any]:
    """One DataFrame per graph input stream, ``seq`` interleaved across sources."""
    from pyspark.sql import functions as F

    count = max(1, len(flow.sources))
    inputs: dict[str, Any] = {}
    read: dict[int, Any] = {}  # a connector is read once for all its ports (a server listens once)
    for index, (conn, port, stream) in enumerate(flow.sources):
        source = build_source(flow.connectors[conn])
        if source is None:
            continue
        if conn not in read:
            read[conn] = source.read(spark, ctx)
        err = (conn, "err") in _ports(flow)
        df = source_port(read[conn], port, err, pending_codec(source))
        if ctx.partitions is not None:
            df = df.repartition(ctx.partitions)
        inputs[stream] = df.withColumn("seq", F.col("seq") * count + index)
    return inputs


def _ports(flow: FlowSpec) -> set[tuple[int, str]]:
    """The connected source ports, as ``(connector index, port)``."""
    return {(conn, port) for conn, port, _ in flow.sources}


def _union(frames: list[Any]) -> Any:
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame, allowMissingColumns=True)
    return result


@dataclass(frozen=True)
class Exit:
    """The first event reaching an ``exit`` sink: its ``position`` ``(seq, sub)``, and how the
    run stops (:meth:`~runtime_support.io.connectors.simple.ExitSink.settle`): ``delay_ns``
    (0: at once) and ``graceful``."""

    position: tuple[int, list[int]]
    delay_ns: int
    graceful: bool


def first_exit(frames: dict[str, Any], exits: dict[str, Any]) -> Exit | None:
    """The first event (by ``(seq, sub)``) of the ``frames`` of the exit sinks ``exits`` (by
    sink name; one small aggregate, collected), or None when none has one."""
    from pyspark.sql import functions as F

    if not frames:
        return None
    tagged = [f.select("seq", "sub", F.lit(n).alias("exit"), "value") for n, f in frames.items()]
    order = F.struct("seq", "sub", "exit", "value")
    first = _union(tagged).select(F.min(order).alias("at")).first()
    if first is None or first.at is None:
        return None
    at = first.at
    delay, graceful = exits[at.exit].settle(decode_json(at.value))
    return Exit((int(at.seq), [int(x) for x in at.sub]), delay, graceful)


def _before(position: tuple[int, list[int]]) -> Any:
    from pyspark.sql import functions as F

    seq, sub = position
    path = F.array(*[F.lit(x).cast("long") for x in sub]).cast("array<bigint>")
    return (F.col("seq") < F.lit(seq)) | ((F.col("seq") == F.lit(seq)) & (F.col("sub") < path))


def before(frame: Any, position: tuple[int, list[int]]) -> Any:
    """The rows of ``frame`` emitted before ``position`` (``(seq, sub)`` lexicographic; Spark
    compares arrays element-wise, a prefix first, as the emission order does)."""
    return frame.filter(_before(position))


def until(frames: dict[str, Any], stop: Exit, times: Any | None) -> dict[str, Any]:
    """The rows of ``frames`` that reach their sinks when ``stop`` has a delay: those before it
    and those whose source event's time is at most ``delay_ns`` after the exit event's. The
    time of a source event is its ``ingest_ns`` in ``times`` (``seq, ingest_ns``; an event of
    none, the end of input's, gets the last one's); without ``times`` (pass two) its ``seq``
    (answers are numbered 1 ns apart, as their ``ingest_ns`` are)."""
    from pyspark.sql import functions as F

    seq = stop.position[0]
    if times is None:
        at, last = seq, None
    else:
        row = times.agg(
            F.max(F.when(F.col("seq") == F.lit(seq), F.col("ingest_ns"))).alias("at"),
            F.max("ingest_ns").alias("last"),
        ).first()
        at = seq if row is None or row.at is None else int(row.at)
        last = None if row is None or row.last is None else int(row.last)
    limit = F.lit(at + stop.delay_ns)
    kept = {}
    for name, frame in frames.items():
        if times is None:
            timed = frame.withColumn("_time", F.col("seq"))
        else:
            named = times.select("seq", F.col("ingest_ns").alias("_time"))
            timed = frame.join(named, "seq", "left")
            if last is not None:
                timed = timed.withColumn("_time", F.coalesce("_time", F.lit(last)))
        keep = _before(stop.position) | (F.col("_time") <= limit)
        kept[name] = timed.filter(keep).select(*frame.columns)
    return kept


def _driver_sinks(
    outputs: dict[str, Any], sinks: dict[str, tuple[Any, str]], ctx: RunContext, progress: Any
) -> None:
    """Sinks written on the driver (stdio, a ``single_file`` file): every event of theirs, in
    the whole emission order, through ``toLocalIterator``."""
    from pyspark.sql import functions as F

    names = sorted(name for name in outputs if hasattr(sinks[name][0], "write"))
    if not names:
        return
    tagged = [outputs[n].withColumn("sink", F.lit(n)) for n in names]
    ordered = _union(tagged).orderBy("seq", "sub").select("sink", "value")
    live = {name: sinks[name][0] for name in names}
    for sink in live.values():
        sink.open(ctx)
    try:
        for row in ordered.toLocalIterator():
            progress.add()
            live[row.sink].write(sinks[row.sink][1], decode_json(row.value))
    finally:
        for sink in live.values():
            sink.close()


def run_flow(
    spark: Any,
    flow: FlowSpec,
    run_pipeline: RunPipeline,
    ctx: RunContext,
    flush_at_end: bool = True,
) -> int:
    """Run ``flow`` to completion; returns the exit code (0). Sinks get the events emitted
    before the first one reaching an ``exit`` connector, or all of them where it has a delay
    (module doc; ``ctx.exited`` then set); a sink's responses and the final event counts
    (``metrics``) run a second pass (see :mod:`runtime_support.flows.answers`), unless the run
    was cut at an exit."""
    inputs = _inputs(spark, flow, ctx)
    if not inputs:
        return 0
    built = {name: (build_sink(flow.connectors[c]), port) for name, c, port in flow.sinks}
    sinks = {name: pair for name, pair in built.items() if pair[0] is not None}
    with Progress(spark, to_stdout=not ctx.stdout_path) as progress:
        outputs = run_pipeline(spark, inputs, flush_at_end=flush_at_end)
        read = [*sinks, *(["#metrics"] if flow.metrics is not None else [])]
        keep_shared(outputs, read)  # each sink, the exit check and metrics read them apart
        first = {n: f for n, f in outputs.items() if n in sinks and n not in flow.answered}
        # Pass one's events of the sinks pass two feeds too: written with pass two's.
        held = {n: f for n, f in outputs.items() if n in sinks and n in flow.answered}
        times = _union([df.select("seq", "ingest_ns") for df in inputs.values()])
        answers, cut = _write(flow, first, sinks, ctx, progress, held, times)
        if flow.metrics is not None and not cut:
            from runtime_support.io.connectors.metrics import metrics_inputs

            answers.update(metrics_inputs(spark, flow.metrics, outputs["#metrics"], ctx))
        second = {}
        if answers and not cut:
            outputs = run_pipeline(spark, answers, flush_at_end=flush_at_end)
            keep_shared(outputs, list(sinks))
            second = {n: f for n, f in outputs.items() if n in sinks and n in flow.answered}
        if held or second:
            _write(flow, merge_passes(held, second), sinks, ctx, progress)
    return 0


def _write(
    flow: FlowSpec,
    outputs: dict[str, Any],
    sinks: dict,
    ctx: RunContext,
    progress: Any,
    held: dict[str, Any] | None = None,
    times: Any | None = None,
) -> tuple[dict[str, Any], bool]:
    """Write ``outputs`` (up to the first ``exit`` event without a delay, in them or in
    ``held``: outputs written later, cut here too); the input streams of the response ports of
    the sinks that answer, and whether the run was cut at an exit."""
    from runtime_support.flows.answers import answer_ports, response_inputs

    held = held if held is not None else {}
    stops = {**outputs, **held}
    exits = {n: sinks[n][0] for n in stops if sinks[n][0].stops}
    stop = first_exit({n: stops[n] for n in exits}, exits)
    ctx.exited = ctx.exited or stop is not None
    cut = stop is not None and stop.delay_ns == 0
    if cut:
        outputs = {name: before(frame, stop.position) for name, frame in outputs.items()}
        held.update({name: before(frame, stop.position) for name, frame in held.items()})
    elif stop is not None:
        outputs = until(outputs, stop, times)
        held.update(until(held, stop, times))
    replies = answer_ports(flow)
    conn_of = {name: conn for name, conn, _ in flow.sinks}
    answers: dict[str, Any] = {}
    for name, frame in sorted(outputs.items()):
        sink, ports = sinks[name][0], replies.get(conn_of[name])
        if ports:
            answers.update(response_inputs(sink.responses(frame), ports, ctx))
            if progress.active:
                progress.add(frame.count())
        elif hasattr(sink, "write_frame"):
            sink.write_frame(frame, progress)
    _driver_sinks(outputs, sinks, ctx, progress)
    return answers, cut


def flow_conf(args: argparse.Namespace, flow: FlowSpec) -> dict[str, str]:
    """The Spark properties of the run: the command line's, plus ``spark.jars.packages`` (and
    ``spark.jars``) with the connector jars and JDBC drivers the flow needs (Spark resolves them
    from ~/.m2 or Maven Central; under spark-submit pass them with ``--packages``)."""
    conf = spark_conf(args)
    needed = jar_conf(flow.connectors)
    wanted = [p for p in needed.pop("spark.jars.packages", "").split(",") if p]
    for key, value in needed.items():  # spark.jars, spark.jars.excludes: --conf ones win
        conf.setdefault(key, value)
    if wanted:
        given = [p for p in conf.get("spark.jars.packages", "").split(",") if p]
        conf["spark.jars.packages"] = ",".join(given + [p for p in wanted if p not in given])
    return conf
