"""Run one built job both ways in this process's Spark session: in batch over a list of JSON
lines, and as a streaming query over the same lines split into files, one file per micro-batch.
Both give ``(port, seq, sub, value)`` rows; the streaming rows also say their micro-batch."""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path
from typing import Any

from runtime_support.spark import stream_job as streaming
from runtime_support.spark.state_store import StreamSettings

Row = tuple[str, int, tuple[int, ...], str]


def batch_rows(
    spark: Any, module: Any, lines: list[str], flush: bool = True, step: int = 1
) -> list[Row]:
    """The batch job's outputs, every port, in emission order (``ingest_ns`` = index * step)."""
    from pyspark.sql import functions as F

    rows = [(i, line, i * step, None) for i, line in enumerate(lines)]
    df = spark.createDataFrame(rows, "seq long, value string, ingest_ns long, origin string")
    outputs = module.run_pipeline(spark, {"in": df}, flush_at_end=flush)
    frames = [frame.withColumn("port", F.lit(port)) for port, frame in outputs.items()]
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    got = [(r.port, r.seq, tuple(r.sub), r.value) for r in union.collect()]
    spark.catalog.clearCache()
    return sorted(got, key=lambda r: (r[1], r[2]))


class Collect:
    """``foreachBatch`` sink of a test: every row with its batch id, on the driver."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, Row]] = []
        self.batches: set[int] = set()
        self.lock = threading.Lock()

    def __call__(self, frame: Any, batch_id: int) -> None:
        got = [(r.port, r.seq, tuple(r.sub), r.value) for r in frame.collect()]
        with self.lock:
            self.batches.add(batch_id)
            self.rows.extend((batch_id, row) for row in got)


def write_files(folder: Path, lines: list[str], files: int) -> None:
    """``lines`` as ``min(files, len(lines))`` JSON-lines files (one when there are none), as
    even as possible, oldest first."""
    folder.mkdir(parents=True, exist_ok=True)
    count = max(1, min(files, len(lines)))
    bounds = [len(lines) * i // count for i in range(count + 1)]
    for number in range(count):
        chunk = lines[bounds[number] : bounds[number + 1]]
        path = folder / f"part-{number:04d}.json"
        path.write_text("".join(line + "\n" for line in chunk), encoding="utf-8")
        os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))


def stream_args(work: Path, **overrides: Any) -> argparse.Namespace:
    values = {
        "checkpoint": str(work / "checkpoint"),
        "input": [str(work / "in")],
        "output": str(work / "out"),
        "trigger": "available-now",
        "tick": "100ms",
        "files_per_batch": 1,
        "flush": True,
        "state_ttl": None,
        "ingest_ns": "index",
        "partitions": None,
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def stream_rows(
    spark: Any,
    module: Any,
    lines: list[str],
    work: Path,
    files: int = 3,
    shards: int = 2,
    step: int = 1,
    batches: set[int] | None = None,
) -> list[tuple[int, Row]]:
    """The streaming job's outputs as ``(batch id, row)``, over ``lines`` in ``files`` files,
    one per micro-batch, then the end-of-input signal (``--flush``); ``batches`` gets the id of
    every micro-batch that ran."""
    write_files(work / "in", lines, files)
    args = stream_args(work)
    settings = StreamSettings(shards=shards, tick_ms=None, ingest_ns="index", ingest_step=step)
    sink = Collect()
    streaming.run_until_done(spark, module.run_pipeline, args, settings, sink)
    if batches is not None:
        batches |= sink.batches
    return sorted(sink.rows, key=lambda item: (item[1][1], item[1][2]))
