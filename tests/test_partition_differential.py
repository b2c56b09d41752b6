"""Partition differential: a job's output must not depend on how its input is partitioned.

Every ratchet-listed ``queries``/``flows`` case that runs a pipeline over input events, and every
``golden/query`` program (over synthetic events spanning several one-minute windows), runs through
the generated job's ``run_pipeline`` twice: with the input in one partition and split round-robin
into ``SPLIT`` partitions (``seq`` kept). Per output port the two runs must give the same events as
a multiset and the same sequence when ordered by ``(seq, sub)``, with ``(seq, sub)`` unique within
the port (so that order is well defined). Only the documented job API is used: ``run_pipeline``
and, for flows, the job's ``FLOW.sources`` stream names.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source, kind_of, read_source
from compiler.testing.cases import Case, classify, input_lines
from compiler.testing.loader import load_job
from compiler.testing.runner import ORIGINS, flow_source

from .conftest import CONFORMANCE, ROOT

SPLIT = 4
CATEGORIES = ("queries/", "flows/")
LISTED = [
    line.strip()
    for line in (ROOT / "tests" / "conformance_passing.txt").read_text().splitlines()
    if line.strip().startswith(CATEGORIES)
]
GOLDEN = sorted((ROOT / "golden" / "query").glob("*/input.trickle"))
HOSTS = ("alpha", "beta", "gamma")


def _golden_lines() -> list[str]:
    """Deterministic events for the golden queries: every field they read (host, ms, status)."""
    return [
        json.dumps({"host": HOSTS[i % 3], "ms": (i * 37) % 250, "status": 200 + (i * 61) % 400})
        for i in range(60)
    ]


def _golden_ingest_ns(index: int) -> int:
    """Spread the golden events over five minutes, so interval windows open and close."""
    return index * 5_000_000_000


def _frame(spark: Any, lines: list[str], origin: str | None, ingest) -> Any:
    """The input DataFrame: ``seq``/``ingest_ns`` follow input order, as the job CLI sets them."""
    rows = [(i, line, ingest(i), origin) for i, line in enumerate(lines)]
    return spark.createDataFrame(rows, "seq long, value string, ingest_ns long, origin string")


def _metronome_lines() -> list[str]:
    """Ten metronome-shaped ticks (the corpus flows pass them through unchanged)."""
    return [json.dumps({"onramp": "metronome", "id": i, "ingest_ns": i}) for i in range(10)]


def _program(name: str) -> tuple[str, dict[str, list[str]], str | None]:
    """``(job source, {stream: input lines}, origin)`` of a listed case."""
    case = classify(CONFORMANCE / name)
    assert case is not None, f"{name} is not a case folder"
    if case.kind == "flow":
        job = compile_source(flow_source(case), "deploy").job
        streams = load_job(job, name).FLOW.sources
        return job, {stream: _metronome_lines() for _, _, stream in streams}, None
    return _query_job(case), {"in": input_lines(case)}, ORIGINS["query"]


def _query_job(case: Case) -> str:
    return compile_source(read_source(case.program), kind_of(case.program)).job


def _collect(outputs: dict[str, Any]) -> dict[str, list[tuple[int, int, str]]]:
    """Per port, ``(seq, sub, value)`` rows sorted by ``(seq, sub)``."""
    from pyspark.sql import functions as F

    tagged = [f.select(F.lit(p).alias("port"), "seq", "sub", "value") for p, f in outputs.items()]
    union = tagged[0]
    for frame in tagged[1:]:
        union = union.unionByName(frame)
    collected: dict[str, list[tuple[int, int, str]]] = {port: [] for port in outputs}
    for r in union.collect():  # one Spark job per run
        collected[r.port].append((r.seq, r.sub, r.value))
    return {port: sorted(rows, key=lambda r: r[:2]) for port, rows in collected.items()}


def _run(spark: Any, job: str, name: str, inputs: dict[str, Any], parts: int) -> dict:
    module = load_job(job, name)
    split = {stream: frame.repartition(parts) for stream, frame in inputs.items()}
    try:
        return _collect(module.run_pipeline(spark, split, flush_at_end=True))
    finally:
        spark.catalog.clearCache()  # run_graph may persist its result; cases must not pile up


def _assert_same(serial: dict, split: dict) -> None:
    """Same ports; per port the same multiset, unique ``(seq, sub)`` and the same order."""
    assert sorted(split) == sorted(serial)
    for port, rows in serial.items():
        other = split[port]
        assert Counter(r[2] for r in other) == Counter(r[2] for r in rows), f"port {port}: events"
        keys = [r[:2] for r in rows]
        assert len(set(keys)) == len(keys), f"port {port}: (seq, sub) not unique in serial run"
        assert other == rows, f"port {port}: order by (seq, sub) differs"


def _differential(spark: Any, job: str, name: str, inputs: dict[str, Any]) -> None:
    serial = _run(spark, job, name, inputs, 1)
    split = _run(spark, job, name, inputs, SPLIT)
    _assert_same(serial, split)


@pytest.mark.spark
@pytest.mark.parametrize("name", LISTED)
def test_listed_case_is_partition_invariant(name: str, spark: Any) -> None:
    job, streams, origin = _program(name)
    inputs = {s: _frame(spark, lines, origin, lambda i: i) for s, lines in streams.items()}
    _differential(spark, job, name, inputs)


@pytest.mark.spark
@pytest.mark.parametrize("program", GOLDEN, ids=lambda p: p.parent.name)
def test_golden_query_is_partition_invariant(program: Path, spark: Any) -> None:
    job = compile_source(read_source(program), "query").job
    frame = _frame(spark, _golden_lines(), ORIGINS["query"], _golden_ingest_ns)
    _differential(spark, job, program.parent.name, {"in": frame})
