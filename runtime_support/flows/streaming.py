"""A troy flow as a checkpointed Structured Streaming query: ``python job.py --stream
--checkpoint DIR [--trigger 1s|available-now|once] [--tick 100ms] [--flush]``.

Sources (each numbered on its own, interleaved as batch does: ``seq = index * n + source``):

- ``file``: Spark's file stream source over ``path``: a folder (or glob) streams its files, new
  files being new events (oldest first, then by path); a single file is read once. Its codec and
  preprocessors apply as in batch; each line (chunk) is numbered in arrival order by a
  :class:`~runtime_support.spark.state_store.Numberer`, whose counter lives in the checkpoint.
- ``metronome``: Spark's ``rate-micro-batch`` source, ``trigger / interval`` ticks per
  micro-batch (``--ticks`` for ``available-now``/``once``: one micro-batch). Tick ``i`` is
  ``{"connector": "metronome", "ingest_ns": start + (i + 1) * interval, "id": i}``, ``start``
  fixed by the checkpoint (0 with ``--ingest-ns index``): a replay gives the same events.
- ``null``: nothing.
- a connector whose source has ``stream(spark, args, start_ns)`` (see :func:`streams`): the
  streaming DataFrame it returns. Every other source (``stdio``) is an error naming these.

Sinks, per micro-batch (:class:`FlowStreamSink`, ``foreachBatch``): ``file`` writes part files
``path/part-<run>-<batch>-<n>.json`` (``.txt`` for other codecs, ``.bin`` after postprocessors
other than ``separate``), each in emission order;
``run`` is fixed by the checkpoint and ``batch`` is the micro-batch id, so a replayed micro-batch
replaces its own files (the output is exactly once) and ``append`` never replaces another
checkpoint's; ``write``/``truncate`` clear the folder when the checkpoint is new. ``stdio``
prints on the driver in emission order (a replayed micro-batch prints again); ``null``
discards; a connector whose sink has ``write_batch(frame, batch_id, run)`` gets its rows
(``value, seq, sub, port``) of each micro-batch and must be idempotent on ``(run, batch_id)``.
``exit``: the micro-batch where an event first reaches it records it in ``DIR/exited`` (a
restart from that checkpoint does nothing). Without a ``delay`` every sink keeps only that
micro-batch's events before the exit event in ``(seq, sub)`` order (earlier micro-batches are
already written) and the query stops. With a ``delay`` the micro-batch is written whole and the
query goes on until ``delay`` ns after it was written: micro-batches that start later write
nothing; ``graceful`` (the default) lets one that is running finish, ``false`` stops the query
at once (a running micro-batch may be cut short, its sinks partly written, as Tremor drops the
events in flight).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import time
import uuid
from typing import Any

from runtime_support.flows.answers import check_stream
from runtime_support.flows.batch import FlowSpec, before, first_exit, flow_conf
from runtime_support.io.codecs import pending_codec, source_port
from runtime_support.io.connectors.base import RunContext, build_sink, build_source
from runtime_support.io.connectors.file import (
    FileSink,
    FileSource,
    SingleFileSink,
    _check_target,
    encoded_text,
    spark_path,
)
from runtime_support.io.connectors.file_stream import file_events
from runtime_support.io.connectors.metrics_stream import MetricsRecorder
from runtime_support.io.connectors.metronome import MetronomeSource
from runtime_support.io.connectors.simple import ExitSink, NullConnector
from runtime_support.io.connectors.stdio import StdioSink
from runtime_support.spark.state_store import StreamSettings
from runtime_support.spark.stream_job import (
    STREAM_CONF,
    StreamError,
    duration_ms,
    flush_done,
    send_flush,
    settings_for,
    start_writer,
)
from runtime_support.tremor.jsonio import decode_json
from runtime_support.tremor.origin import encode_origin, hostname

__all__ = ["FlowStreamSink", "check_flow", "run_stream_flow", "stream_flow_main"]

FLOW_META = "tremorc-flow.json"
EXITED = "exited"
SIGNAL_SEQ = 2**62


def finite(args: argparse.Namespace) -> bool:
    return args.trigger in ("available-now", "once")


def check_flow(flow: FlowSpec, args: argparse.Namespace) -> None:
    """The flow and the options can stream (StreamError naming what is supported); fills in
    the defaults (``--trigger 1s``, ``--tick 100ms``)."""
    if getattr(args, "no_flush", False):
        raise StreamError("--no-flush is for batch runs: a stream ends its input only with --flush")
    if getattr(args, "input", None):
        raise StreamError("-i is what stdio sources read, and a streaming flow reads no stdio")
    args.trigger = args.trigger or "1s"
    args.tick = args.tick or "100ms"
    if args.ticks is not None and not finite(args):
        raise StreamError(
            "--ticks sets a finite run's metronome ticks: --trigger available-now/once"
        )
    if not args.checkpoint:
        raise StreamError("--stream needs --checkpoint DIR")
    if not finite(args):
        duration_ms(args.trigger)
        if args.flush:
            raise StreamError(
                "--flush ends the stream: use it with --trigger available-now or once"
            )
    built = [(build_source(flow.connectors[conn]), conn) for conn, _port, _stream in flow.sources]
    for source, conn in built:
        if source is not None and not streams(source):
            raise StreamError(
                f"the {flow.connectors[conn].kind} source `{flow.connectors[conn].alias}` can not "
                "stream: a streaming flow reads file, metronome and null sources, and the "
                "connectors with a streaming reader" + _why(source)
            )
    if args.flush and any(isinstance(source, MetronomeSource) for source, _ in built):
        raise StreamError(
            "--flush ends the input, and a metronome never ends: end the flow with an exit "
            "connector (or run without --flush)"
        )
    check_stream(flow)  # connected response ports (runtime_support/flows/answers.py)
    if not any(streams(source) and not isinstance(source, NullConnector) for source, _ in built):
        raise StreamError("nothing to stream: the flow has no source that produces events")
    for _name, conn, _port in flow.sinks:
        sink = build_sink(flow.connectors[conn])
        if isinstance(sink, SingleFileSink):
            raise StreamError(
                f"the file sink `{flow.connectors[conn].alias}` has `single_file: true`, which "
                "can not stream: a streaming flow writes part files (no single_file), stdio, "
                "null and exit sinks"
            )


def _why(source: Any) -> str:
    reason = getattr(source, "no_stream", "")
    return f" ({reason})" if reason else ""


# Sources ----------------------------------------------------------------------------------------


def streams(source: Any) -> bool:
    """``source`` can be read as a stream: file, metronome, null, or a connector with a
    ``stream(spark, args, start_ns)`` method (a streaming DataFrame ``seq, value, ingest_ns,
    origin``, ``seq`` increasing in arrival order across micro-batches and restarts)."""
    return isinstance(source, (FileSource, MetronomeSource, NullConnector)) or hasattr(
        source, "stream"
    )


def metronome_events(
    spark: Any, source: MetronomeSource, args: argparse.Namespace, start_ns: int
) -> Any:
    """The metronome's ticks (see the module doc), ``seq`` = the tick's id."""
    from pyspark.sql import functions as F

    if finite(args):
        per_batch = max(1, 10 if args.ticks is None else args.ticks)
    else:
        per_batch = duration_ms(args.trigger) * 1_000_000 // max(1, source.interval)
        per_batch = min(100_000, max(1, per_batch))
    ticks = (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", per_batch)
        .option("startTimestamp", 0)
        .load()
    )
    ns = F.lit(start_ns) + (F.col("value") + 1) * F.lit(source.interval)
    value = F.format_string('{"connector":"metronome","ingest_ns":%d,"id":%d}', ns, "value")
    origin = encode_origin("tremor-metronome", hostname(), None, [str(source.interval)])
    return ticks.select(
        F.col("value").alias("seq"),
        value.alias("value"),
        ns.cast("long").alias("ingest_ns"),
        F.lit(origin).cast("string").alias("origin"),
    )


def signals(spark: Any, checkpoint: str) -> Any:
    """End-of-input signals (``--flush``) as events with a null ``value``."""
    from pyspark.sql import functions as F

    folder = os.path.join(checkpoint, "signals")
    os.makedirs(folder, exist_ok=True)
    return spark.readStream.text(folder).select(
        F.lit(SIGNAL_SEQ).cast("long").alias("seq"),
        F.lit(None).cast("string").alias("value"),
        F.lit(None).cast("long").alias("ingest_ns"),
        F.lit(None).cast("string").alias("origin"),
    )


def stream_inputs(
    spark: Any, flow: FlowSpec, args: argparse.Namespace, start_ns: int
) -> dict[str, Any]:
    """One streaming DataFrame per graph input stream; the first also carries the signals."""
    from pyspark.sql import functions as F

    count = max(1, len(flow.sources))
    inputs: dict[str, Any] = {}
    ports = {(conn, port) for conn, port, _ in flow.sources}
    for index, (conn, port, stream) in enumerate(flow.sources):
        source = build_source(flow.connectors[conn])
        if isinstance(source, FileSource):
            events = file_events(spark, source, args)
        elif isinstance(source, MetronomeSource):
            events = metronome_events(spark, source, args, start_ns)
        elif hasattr(source, "stream"):
            events = source.stream(spark, args, start_ns)
        else:
            continue
        events = source_port(events, port, (conn, "err") in ports, pending_codec(source))
        events = events.withColumn("seq", F.col("seq") * count + index)
        if not inputs:
            events = events.unionByName(signals(spark, args.checkpoint), allowMissingColumns=True)
        inputs[stream] = events
    return inputs


# Sinks ------------------------------------------------------------------------------------------


class FlowStreamSink:
    """``foreachBatch`` of a streaming flow: every sink's events of one micro-batch (see the
    module doc); ``exited`` once an event reached an ``exit`` connector, the query to be stopped
    once :meth:`due` (``graceful``: when no micro-batch is ``running``)."""

    def __init__(self, flow: FlowSpec, checkpoint: str, ctx: RunContext, run: str) -> None:
        self.checkpoint, self.ctx, self.run = checkpoint, ctx, run
        self.files: dict[str, FileSink] = {}
        self.stdio: dict[str, tuple[StdioSink, str]] = {}
        self.exits: dict[str, ExitSink] = {}
        self.batched: dict[str, Any] = {}  # sinks with write_batch(frame, batch_id, run)
        for name, conn, port in flow.sinks:
            sink = build_sink(flow.connectors[conn])
            if isinstance(sink, FileSink):
                self.files[name] = sink
            elif hasattr(sink, "write_batch"):
                self.batched[name] = sink
            elif isinstance(sink, StdioSink):
                self.stdio[name] = (sink, port)
            elif isinstance(sink, ExitSink):
                self.exits[name] = sink
        self.exited = os.path.exists(os.path.join(checkpoint, EXITED))
        self.deadline = 0.0  # time.monotonic() from which the exited query stops
        self.graceful = True
        self.running = False
        self.metrics = None if flow.metrics is None else MetricsRecorder(flow.metrics, checkpoint)

    def clear(self) -> None:
        """A new checkpoint: ``write``/``truncate`` file sinks start from an empty folder."""
        for sink in self.files.values():
            target = spark_path(sink.path)
            if sink.mode != "append" and os.path.isdir(target):
                _check_target(target, sink.path, False)
                shutil.rmtree(target)

    def __call__(self, frame: Any, batch_id: int) -> None:
        from pyspark.sql import functions as F

        if self.due():
            return
        self.running = True
        frame = frame.persist()
        try:
            if self.metrics is not None:  # before an exit cuts the counts off
                self.metrics.record(frame, batch_id)
            stop = None
            if self.exits and not self.exited:
                ports = {n: frame.filter(F.col("port") == n) for n in self.exits}
                stop = first_exit(ports, self.exits)
                if stop is not None and stop.delay_ns == 0:
                    frame = before(frame, stop.position)
            for name, sink in sorted(self.files.items()):
                write_part_files(frame.filter(F.col("port") == name), sink, batch_id, self.run)
            for name, batched in sorted(self.batched.items()):
                batched.write_batch(frame.filter(F.col("port") == name), batch_id, self.run)
            self._print(frame)
        finally:
            frame.unpersist()
            self.running = False
        if stop is not None:
            with open(os.path.join(self.checkpoint, EXITED), "w", encoding="utf-8") as handle:
                handle.write(f"{batch_id}\n")
            self.deadline = time.monotonic() + stop.delay_ns / 1e9
            self.graceful = stop.graceful
            self.exited = True

    def due(self) -> bool:
        """An event reached an ``exit`` and its delay has passed: nothing more is written."""
        return self.exited and time.monotonic() >= self.deadline

    def _print(self, frame: Any) -> None:
        from pyspark.sql import functions as F

        if not self.stdio:
            return
        rows = frame.filter(F.col("port").isin(sorted(self.stdio))).orderBy("seq", "sub")
        for row in rows.select("port", "value").toLocalIterator():
            sink, port = self.stdio[row.port]
            sink.open(self.ctx)
            sink.write(port, decode_json(row.value))
        self.ctx.stdout().flush()


def write_part_files(frame: Any, sink: FileSink, batch_id: int, run: str) -> None:
    """One micro-batch of a file sink: encoded part files, each in emission order, moved in as
    ``part-<run>-<batch>-<n>.<ext>``: fixed by the checkpoint's ``run`` and the batch id, so a
    replay replaces its own files and an ``append`` never replaces another checkpoint's."""
    target = spark_path(sink.path)
    tmp = os.path.join(target, f"_tmp-{run}-{batch_id}")
    ordered = frame.sortWithinPartitions("seq", "sub").select("value")
    if sink.framing.simple:
        encoded = encoded_text(ordered, sink.codec)
        encoded.write.mode("overwrite").option("lineSep", sink.separator).text(tmp)
    else:  # postprocessors Spark's text writer can not run (connectors/file_chain.py)
        from runtime_support.io.connectors.file_chain import write_parts

        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        write_parts(ordered, sink.codec, sink.framing, tmp, "part-")
    prefix = f"part-{run}-{batch_id:010d}-"
    for old in glob.glob(os.path.join(glob.escape(target), prefix + "*")):
        os.remove(old)
    ext = ("json" if sink.codec.name == "json" else "txt") if sink.framing.simple else "bin"
    parts = sorted(p for p in os.listdir(tmp) if p.startswith("part-"))
    for number, name in enumerate(parts):
        os.replace(os.path.join(tmp, name), os.path.join(target, f"{prefix}{number:05d}.{ext}"))
    shutil.rmtree(tmp, ignore_errors=True)


# The run ----------------------------------------------------------------------------------------


def flow_meta(checkpoint: str, ingest_ns: str) -> dict[str, Any]:
    """What the checkpoint fixes at its first run: ``start_ns``, the metronome's time origin
    (0 for ``index``), and ``run``, the part-file prefix of its file sinks."""
    path = os.path.join(checkpoint, FLOW_META)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            return dict(json.load(handle))
    meta = {
        "start_ns": 0 if ingest_ns == "index" else time.time_ns(),
        "run": uuid.uuid4().hex[:8],
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(meta, handle)
    return meta


def start_query(spark, flow, run_pipeline, args, settings: StreamSettings, sink) -> Any:
    """The flow's streaming query (started)."""
    from pyspark.sql import functions as F

    start_ns = int(flow_meta(args.checkpoint, args.ingest_ns)["start_ns"])
    inputs = stream_inputs(spark, flow, args, start_ns)
    union, _ports = run_pipeline(spark, inputs, False, settings)
    if union is None:  # nothing reaches a sink: the sources are still read
        first = next(iter(inputs.values()))
        union = first.select(
            "value", "seq", F.array().cast("array<long>").alias("sub"), F.lit("").alias("port")
        ).filter(F.lit(False))
    return start_writer(union, sink, args.checkpoint, "tremorc-flow", args.trigger)


def await_query(query: Any, sink: FlowStreamSink) -> None:
    """Until the query ends, or stop it once the exit is due (after the micro-batch that reached
    an ``exit``, or its delay later; a graceful exit waits for a running micro-batch to end).

    The query's failure is raised, except one after the exit was recorded: the micro-batches
    Spark starts before the stop write nothing (the sink returns at once), so the flow's output
    is complete; that failure is one line on stderr (Spark's reason), the run ends as exited."""
    from pyspark.errors import StreamingQueryException

    try:
        while not query.awaitTermination(0.2):
            if sink.due() and not (sink.graceful and sink.running):
                query.stop()
                return
        query.awaitTermination()  # raises the query's failure, if any
    except StreamingQueryException as err:
        if not sink.exited:
            raise
        print(
            f"tremorc: after the exit, Spark failed a micro-batch that wrote nothing: "
            f"{failure_reason(err)}",
            file=sys.stderr,
        )


def failure_reason(err: Exception) -> str:
    """One line of a query's failure: the first line of Spark's message and, where the JVM's
    exception is at hand (classic Spark), the last line of its deepest cause."""
    from py4j.protocol import Py4JError

    head = " ".join(str(err).split("\n", 1)[0].split())
    cause = getattr(err, "_origin", None)
    try:
        while cause is not None and cause.getCause() is not None:
            cause = cause.getCause()
        lines = [] if cause is None else str(cause.toString()).splitlines()
    except Py4JError:
        lines = []
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return f"{head} (cause: {last})" if last else head


def run_stream_flow(
    spark: Any,
    flow: FlowSpec,
    run_pipeline: Any,
    args: argparse.Namespace,
    ctx: RunContext,
    fingerprint: str = "",
) -> FlowStreamSink:
    """One run of the flow's query (then, with ``--flush``, the end-of-input micro-batch);
    returns its sink (``exited``)."""
    check_flow(flow, args)
    for key, value in STREAM_CONF.items():
        spark.conf.set(key, value)
    fresh = not os.path.exists(os.path.join(args.checkpoint, "query"))
    settings = settings_for(args, spark, fingerprint)
    run = str(flow_meta(args.checkpoint, args.ingest_ns)["run"])
    sink = FlowStreamSink(flow, args.checkpoint, ctx, run)
    if sink.exited:
        return sink
    if fresh:
        sink.clear()
    try:
        await_query(start_query(spark, flow, run_pipeline, args, settings, sink), sink)
        if args.flush and not sink.exited:
            send_flush(args.checkpoint)
            await_query(start_query(spark, flow, run_pipeline, args, settings, sink), sink)
            flush_done(args.checkpoint)
    finally:
        ctx.close()
    return sink


def stream_flow_main(
    flow: FlowSpec, run_pipeline: Any, args: argparse.Namespace, ctx: RunContext, graph: Any
) -> int:
    """``--stream`` of a flow job: the exit code (2 for options or a flow that can not
    stream, 130 on Ctrl-C)."""
    from runtime_support.spark.job_cli import job_session
    from runtime_support.spark.state_store import state_fingerprint

    spark = None
    try:
        check_flow(flow, args)
        conf = {**STREAM_CONF, **flow_conf(args, flow)}
        spark = job_session(args.verbose, args.master, conf, remote=args.remote)
        fingerprint = state_fingerprint(*graph) if graph is not None else ""
        sink = run_stream_flow(spark, flow, run_pipeline, args, ctx, fingerprint)
    except StreamError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        for query in spark.streams.active if spark is not None else ():
            query.stop()
        return 130
    if sink.exited:
        print("tremorc: the flow exited (an event reached an exit connector)", file=sys.stderr)
    return 0
