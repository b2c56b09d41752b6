"""A job as a checkpointed Structured Streaming query:
``python job.py --stream --checkpoint DIR -i INPUT_DIR -o OUTPUT_DIR [--trigger …]``.

- **Input**: every file that appears in ``INPUT_DIR`` (JSON lines; Spark's file stream source,
  oldest first), numbered in arrival order (:class:`~runtime_support.spark.state_store.Numberer`).
- **Stages**: the job's own ``run_pipeline`` with ``streaming`` set: stateless stages as in
  batch, stateful ones on the state store (RocksDB) with ticks as processing-time timers.
- **Output**: ``OUTPUT_DIR/<port>/part-<batch>-<n>.json``, one folder per port as in batch. Each
  micro-batch is written to ``_tmp-<batch>`` and moved in under names fixed by the batch id, so a
  micro-batch replayed after a crash replaces its own files: the output is exactly once.
- **Checkpoint** ``DIR``: Spark's (``DIR/query``), the end-of-input signals (``DIR/signals``) and
  ``DIR/tremorc.json``: the shard count and the job's state fingerprint. A rebuilt job restarts
  from it only with the same fingerprint (its stateful nodes and what their state means).

``--trigger`` ``1s``/``500ms`` (default ``1s``: a micro-batch per second, periodic ticks every
``--tick``), ``available-now`` (the files there are, then stop; no periodic ticks) or ``once``.
``--flush`` (with ``available-now``/``once``) ends the stream as batch ends its input: the
end-of-input tick closes every window after the last file.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
from typing import Any

from runtime_support.spark.input_lines import source_columns
from runtime_support.spark.state_store import StreamSettings, numbered_events

__all__ = ["StreamError", "add_stream_options", "run_stream"]

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
STREAM_CONF = {"spark.sql.streaming.stateStore.providerClass": ROCKSDB}
META = "tremorc.json"


class StreamError(Exception):
    """A streaming run that can not start (one line for the user)."""


def add_stream_options(parser: argparse.ArgumentParser) -> None:
    """``--stream`` and its options."""
    group = parser.add_argument_group("streaming (Structured Streaming, exactly once)")
    group.add_argument("--stream", action="store_true", help="run as a streaming query")
    group.add_argument("--checkpoint", metavar="DIR", help="checkpoint folder (required)")
    group.add_argument(
        "--trigger", help="micro-batch interval (1s, 500ms), available-now or once (default 1s)"
    )
    group.add_argument("--tick", help="periodic tick interval (default 100ms, Tremor's)")
    group.add_argument(
        "--files-per-batch", type=int, metavar="N", help="at most N new files per micro-batch"
    )
    group.add_argument(
        "--flush",
        action="store_true",
        help="with available-now/once: end the stream after the input there is (the "
        "end-of-input tick closes every window, as in batch)",
    )
    group.add_argument("--state-ttl", metavar="DURATION", help="forget a key idle this long")


def duration_ms(text: str) -> int:
    """``250ms``, ``1s``, ``2m``, ``1h`` in milliseconds (StreamError otherwise)."""
    match = re.fullmatch(r"\s*(\d+)\s*(ms|s|m|h)\s*", text)
    if match is None:
        raise StreamError(f"can not read the duration {text!r}: expected e.g. 100ms, 1s, 5m, 1h")
    scale = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[match.group(2)]
    return int(match.group(1)) * scale


STREAM_ONLY = ("checkpoint", "trigger", "tick", "files_per_batch", "flush", "state_ttl")


def check_batch_args(args: argparse.Namespace) -> None:
    """A batch run was given no streaming option (StreamError naming it)."""
    for name in STREAM_ONLY:
        if getattr(args, name) not in (None, False):
            raise StreamError(f"--{name.replace('_', '-')} is an option of --stream runs")


def check_args(args: argparse.Namespace) -> None:
    """The streaming options make sense together (StreamError naming what is wrong); fills in
    the defaults (``--trigger 1s``, ``--tick 100ms``)."""
    if getattr(args, "no_flush", False):
        raise StreamError(
            "--no-flush is for batch runs: a stream sends the end-of-input tick "
            "only with --flush"
        )
    args.trigger = args.trigger or "1s"
    args.tick = args.tick or "100ms"
    if not args.checkpoint:
        raise StreamError("--stream needs --checkpoint DIR")
    if not args.input or len(args.input) != 1:
        raise StreamError("--stream reads one folder: -i INPUT_DIR")
    if not args.output:
        raise StreamError("--stream writes to a folder: -o OUTPUT_DIR")
    for path in (args.input[0], args.output, args.checkpoint):
        if "://" in path and not path.startswith("file://"):
            raise StreamError(f"--stream runs on local or mounted folders, not {path}")
    if args.trigger not in ("available-now", "once"):
        duration_ms(args.trigger)
        if args.flush:
            raise StreamError(
                "--flush ends the stream: use it with --trigger available-now or once"
            )
    if not os.path.isdir(args.input[0]):
        raise StreamError(f"can not read {args.input[0]}: --stream reads a folder")


def settings_for(args: argparse.Namespace, spark: Any, fingerprint: str) -> StreamSettings:
    """The run's settings; the shard count and fingerprint come from the checkpoint when it
    has them (StreamError when the job does not match it)."""
    meta_path = os.path.join(args.checkpoint, META)
    finite = args.trigger in ("available-now", "once")
    tick_ms = None if finite else duration_ms(args.tick)
    ttl_ms = duration_ms(args.state_ttl) if args.state_ttl else None
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as handle:
            meta = json.load(handle)
        if meta.get("fingerprint") != fingerprint:
            raise StreamError(_incompatible(meta.get("state", []), fingerprint))
        if meta.get("ingest_ns") != args.ingest_ns:
            raise StreamError(
                f"the checkpoint numbers events with --ingest-ns {meta.get('ingest_ns')}"
            )
        shards = int(meta["shards"])
    else:
        shards = args.partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
        os.makedirs(args.checkpoint, exist_ok=True)
        meta = {"fingerprint": fingerprint, "shards": shards, "ingest_ns": args.ingest_ns}
        with open(meta_path, "w", encoding="utf-8") as handle:
            json.dump(meta, handle)
    return StreamSettings(shards=shards, tick_ms=tick_ms, ingest_ns=args.ingest_ns, ttl_ms=ttl_ms)


def _incompatible(before: list[str], fingerprint: str) -> str:
    return (
        "the checkpoint holds state of a different program: a stateful node, its group key, "
        "window or stage changed since it was written. Start with a new --checkpoint "
        "(the old state can not be carried over)"
    )


def input_lines(spark: Any, folder: str, signals: str, files_per_batch: int | None):
    """The stream of input lines (``mtime, file, block, row, value``) and, from ``signals``,
    end-of-input signals (``value`` null)."""
    from pyspark.sql import functions as F

    reader = spark.readStream
    if files_per_batch:
        reader = reader.option("maxFilesPerTrigger", files_per_batch)
    lines = reader.text(folder)
    lines = lines.select(
        F.col("_metadata.file_modification_time").cast("long").alias("mtime"),
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        F.col("value").cast("binary").alias("value"),  # bytes: a line may not be UTF-8
    ).mapInArrow(split_lines, LINES_SCHEMA)
    ends = spark.readStream.text(signals).select(
        F.lit(2**62).alias("mtime"),
        F.col("_metadata.file_path").alias("file"),
        F.lit(0).cast("long").alias("block"),
        F.lit(0).cast("long").alias("row"),
        F.lit(None).cast("binary").alias("value"),
    )
    return lines.unionByName(ends)


LINES_SCHEMA = "mtime long, file string, block long, row long, value binary"


def split_lines(batches: Any) -> Any:
    """``row``: each line's number within its file split (a split is read whole, in order, by
    one task); blank lines are dropped after numbering, as batch skips them."""
    import pyarrow as pa

    counts: dict[tuple[str, int], int] = {}
    for batch in batches:
        cols = source_columns(batch)
        out: dict[str, list[Any]] = {"mtime": [], "file": [], "block": [], "row": [], "value": []}
        for mtime, file, block, value in zip(
            cols["mtime"], cols["file"], cols["block"], cols["value"], strict=True
        ):
            row = counts.get((file, block), 0)
            counts[(file, block)] = row + 1
            if value is None or not value.strip():
                continue
            for name, item in (("mtime", mtime), ("file", file), ("block", block)):
                out[name].append(item)
            out["row"].append(row)
            out["value"].append(value)
        yield pa.RecordBatch.from_pydict(out, schema=_lines_arrow())


def _lines_arrow() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("mtime", pa.int64()),
            ("file", pa.string()),
            ("block", pa.int64()),
            ("row", pa.int64()),
            ("value", pa.binary()),
        ]
    )


class PortWriter:
    """``foreachBatch``: each port's rows of a micro-batch as part files of ``folder/<port>``,
    each in emission order, named by the batch id (a replay replaces them)."""

    def __init__(self, folder: str, ports: list[str]) -> None:
        self.folder = folder
        self.ports = ports

    def __call__(self, frame: Any, batch_id: int) -> None:
        tmp = os.path.join(self.folder, f"_tmp-{batch_id}")
        ordered = frame.sortWithinPartitions("port", "seq", "sub").select("port", "value")
        ordered.write.mode("overwrite").partitionBy("port").text(tmp)
        for port in self.ports:
            self._commit(
                os.path.join(self.folder, port), os.path.join(tmp, f"port={port}"), batch_id
            )
        shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def _commit(target: str, written: str, batch_id: int) -> None:
        """Move a port's part files of one micro-batch in under fixed names (replacing those
        of an earlier attempt at the same batch)."""
        os.makedirs(target, exist_ok=True)
        for old in glob.glob(os.path.join(target, f"part-{batch_id:010d}-*")):
            os.remove(old)
        if not os.path.isdir(written):
            return
        parts = sorted(p for p in os.listdir(written) if p.startswith("part-"))
        for number, name in enumerate(parts):
            final = os.path.join(target, f"part-{batch_id:010d}-{number:05d}.json")
            os.replace(os.path.join(written, name), final)


def start_query(
    spark: Any,
    run_pipeline: Any,
    args: argparse.Namespace,
    settings: StreamSettings,
    sink: Any = None,
    trigger: str | None = None,
):
    """The streaming query of one run (started); ``sink`` (``foreachBatch``) defaults to
    :class:`PortWriter` into ``args.output``; ``trigger`` (an interval) overrides
    ``args.trigger``."""
    from pyspark.sql import functions as F

    signals = os.path.join(args.checkpoint, "signals")
    os.makedirs(signals, exist_ok=True)
    lines = input_lines(spark, args.input[0], signals, args.files_per_batch)
    union, ports = run_pipeline(spark, {"in": numbered_events(lines, settings)}, False, settings)
    if union is None:  # no stage emits: the input is still read and numbered
        union = (
            numbered_events(lines, settings)
            .select(
                "value", "seq", F.array().cast("array<long>").alias("sub"), F.lit("").alias("port")
            )
            .filter(F.lit(False))
        )
    sink = sink or PortWriter(args.output, ports)
    return start_writer(union, sink, args.checkpoint, "tremorc", trigger or args.trigger)


def start_writer(frame: Any, sink: Any, checkpoint: str, name: str, trigger: str):
    """``frame.writeStream`` into ``foreachBatch(sink)`` with Spark's checkpoint in
    ``checkpoint/query``, started; ``trigger``: ``available-now``, ``once`` or an interval."""
    writer = (
        frame.writeStream.foreachBatch(sink)
        .option("checkpointLocation", os.path.join(checkpoint, "query"))
        .queryName(name)
    )
    if trigger == "available-now":
        writer = writer.trigger(availableNow=True)
    elif trigger == "once":
        writer = writer.trigger(once=True)
    else:
        writer = writer.trigger(processingTime=f"{duration_ms(trigger)} milliseconds")
    return writer.start()


def send_flush(checkpoint: str) -> None:
    """The end-of-input signal file of the next flush, unless it is there already (a run killed
    after writing it and before the flush was done: the signal is then still to be read)."""
    signals = os.path.join(checkpoint, "signals")
    path = os.path.join(signals, f"end-{_flushes_done(checkpoint):08d}.txt")
    if os.path.exists(path):
        return
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write("end\n")
    os.replace(path + ".tmp", path)


def _flushes_done(checkpoint: str) -> int:
    try:
        with open(os.path.join(checkpoint, "flushes"), encoding="utf-8") as handle:
            return int(handle.read().strip() or 0)
    except FileNotFoundError:
        return 0


def flush_done(checkpoint: str) -> None:
    """Record that the last signal was read and its micro-batch committed."""
    path = os.path.join(checkpoint, "flushes")
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(str(_flushes_done(checkpoint) + 1))
    os.replace(path + ".tmp", path)


def run_stream(spark: Any, run_pipeline: Any, args: argparse.Namespace, fingerprint: str) -> int:
    """Run the streaming query until it ends (finite triggers) or is stopped (Ctrl-C)."""
    settings = settings_for(args, spark, fingerprint)
    try:
        run_until_done(spark, run_pipeline, args, settings)
    except KeyboardInterrupt:
        for query in spark.streams.active:
            query.stop()
        return 130
    return 0


def run_until_done(
    spark: Any,
    run_pipeline: Any,
    args: argparse.Namespace,
    settings: StreamSettings,
    sink: Any = None,
) -> None:
    """One run: the query until it ends (or forever, for a continuous trigger). With
    ``--flush`` one query runs what input there is, then the end-of-input signal in a micro-batch
    of its own, and stops."""
    if not args.flush:
        start_query(spark, run_pipeline, args, settings, sink).awaitTermination()
        return
    query = start_query(spark, run_pipeline, args, settings, sink, trigger="0ms")
    try:
        query.processAllAvailable()
        send_flush(args.checkpoint)
        query.processAllAvailable()
        flush_done(args.checkpoint)
    finally:
        query.stop()
