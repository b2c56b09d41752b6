"""The partition differential: a job's output, run by Spark on input split into several
partitions, equals the one-thread run of its graph (``tests.support.one_thread``)."""

from __future__ import annotations

import json
from typing import Any

from compiler.testing.loader import load_job
from tests.support.one_thread import HOSTS, one_thread

SPLIT = 4
COALESCE = "spark.sql.adaptive.coalescePartitions.enabled"


def golden_lines() -> list[str]:
    """Deterministic events for the golden queries: every field they read (host, ms, status)."""
    return [
        json.dumps({"host": HOSTS[i % 3], "ms": (i * 37) % 250, "status": 200 + (i * 61) % 400})
        for i in range(60)
    ]


def _frame(spark: Any, lines: list[str], origin: str | None, ingest, n: int, count: int) -> Any:
    """Input DataFrame ``n`` of ``count``: ``seq`` interleaves the streams (as flow jobs number
    their sources), ``ingest_ns`` follows ``seq``."""
    seqs = [i * count + n for i in range(len(lines))]
    rows = [(seq, line, ingest(seq), origin) for seq, line in zip(seqs, lines, strict=True)]
    return spark.createDataFrame(rows, "seq long, value string, ingest_ns long, origin string")


def _collect(outputs: dict[str, Any]) -> list[tuple[str, str]]:
    """Every ``(port, value)``, ordered by ``(seq, sub)`` (which must be unique)."""
    from pyspark.sql import functions as F

    tagged = [f.select(F.lit(p).alias("port"), "seq", "sub", "value") for p, f in outputs.items()]
    union = tagged[0]
    for frame in tagged[1:]:
        union = union.unionByName(frame)
    rows = union.collect()  # one Spark job per run
    keys = [(r.seq, tuple(r.sub)) for r in rows]
    assert len(set(keys)) == len(keys), "(seq, sub) is not unique"
    return [(r.port, r.value) for r in sorted(rows, key=lambda r: (r.seq, list(r.sub)))]


def _run(spark: Any, module: Any, inputs: dict[str, Any]) -> list[tuple[str, str]]:
    split = {stream: frame.repartition(SPLIT) for stream, frame in inputs.items()}
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(SPLIT))
    # Keep every shuffle partition: adaptive execution would merge these small ones into one.
    spark.conf.set(COALESCE, "false")
    try:
        return _collect(module.run_pipeline(spark, split, flush_at_end=True))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)
        spark.conf.unset(COALESCE)
        spark.catalog.clearCache()  # stages may persist their rows; cases must not pile up


def differential(spark: Any, job: str, name: str, streams: dict, origin, ingest) -> None:
    """Run ``job`` on ``streams`` split into partitions: it must give what one thread gives."""
    module = load_job(job, name)
    count = len(streams)
    inputs = {
        stream: _frame(spark, lines, origin, ingest, n, count)
        for n, (stream, lines) in enumerate(streams.items())
    }
    expected = one_thread(module.GRAPH, streams, ingest, origin)
    assert _run(spark, module, inputs) == expected
