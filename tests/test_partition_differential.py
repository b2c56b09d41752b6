"""Partition differential: a job's output must not depend on how its input is partitioned.

Every ratchet-listed ``queries``/``flows`` case that runs a pipeline over input events, and every
``golden/query`` program (over synthetic events spanning several one-minute windows), runs through
the generated job's ``run_pipeline`` with its input split round-robin into ``SPLIT`` partitions
(``seq`` kept) and ``SPLIT`` shuffle partitions, so keyed stages run on several partitions. The
serial run is the job's ``GRAPH`` in one thread, in-process, without Spark (one event after the
other, then the end-of-input tick): Tremor's single-threaded order. All outputs ordered by
``(seq, sub)`` must be that sequence of ``(port, event)`` exactly (so also per port and per key),
with ``(seq, sub)`` unique. Only the documented job API is used: ``run_pipeline``, ``GRAPH`` and,
for flows, the job's ``FLOW.sources`` stream names.
"""

from __future__ import annotations

import json
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


def _frame(spark: Any, lines: list[str], origin: str | None, ingest, n: int, count: int) -> Any:
    """Input DataFrame ``n`` of ``count``: ``seq`` interleaves the streams (as flow jobs number
    their sources), ``ingest_ns`` follows ``seq``."""
    seqs = [i * count + n for i in range(len(lines))]
    rows = [(seq, line, ingest(seq), origin) for seq, line in zip(seqs, lines, strict=True)]
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
    try:
        return _collect(module.run_pipeline(spark, split, flush_at_end=True))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)
        spark.catalog.clearCache()  # stages may persist their rows; cases must not pile up


def _serial(module: Any, streams: dict[str, list[str]], ingest) -> list[tuple[str, str]]:
    """The job's GRAPH in one thread: events in ``seq`` order (streams interleaved as the
    flow and query jobs number them), then the end-of-input tick."""
    from runtime_support.graph import END_OF_INPUT, Event, Graph
    from runtime_support.jsonio import decode_json, encode_json

    graph = Graph(module.GRAPH)
    count = len(streams)
    events = sorted(
        (i * count + n, stream, line)
        for n, (stream, lines) in enumerate(streams.items())
        for i, line in enumerate(lines)
    )
    outputs: list[tuple[str, Any]] = []
    for seq, stream, line in events:
        try:
            value = decode_json(line)
        except ValueError as err:  # the documented `err` event of an undecodable line
            outputs.append(("err", {"error": f"Invalid JSON input: {err}", "event": line}))
            continue
        outputs += graph.push(stream, Event(value, {}, ingest(seq), ORIGIN[0]))
    outputs += graph.tick(END_OF_INPUT)
    return [(port, encode_json(value)) for port, value in outputs]


ORIGIN: list[Any] = [None]


def _differential(spark: Any, job: str, name: str, streams: dict, origin, ingest) -> None:
    module = load_job(job, name)
    count = len(streams)
    inputs = {
        stream: _frame(spark, lines, origin, ingest, n, count)
        for n, (stream, lines) in enumerate(streams.items())
    }
    ORIGIN[0] = origin
    expected = _serial(module, streams, ingest)
    assert _run(spark, module, inputs) == expected


@pytest.mark.spark
@pytest.mark.parametrize("name", LISTED)
def test_listed_case_is_partition_invariant(name: str, spark: Any) -> None:
    job, streams, origin = _program(name)
    _differential(spark, job, name, streams, origin, lambda seq: seq)


@pytest.mark.spark
@pytest.mark.parametrize("program", GOLDEN, ids=lambda p: p.parent.name)
def test_golden_query_is_partition_invariant(program: Path, spark: Any) -> None:
    job = compile_source(read_source(program), "query").job
    streams = {"in": _golden_lines()}
    _differential(spark, job, program.parent.name, streams, ORIGINS["query"], _golden_ingest_ns)


SYNTHETIC = sorted((ROOT / "tests" / "fixtures" / "differential").glob("*.trickle")) + sorted(
    (ROOT / "benchmarks" / "scale").glob("*.trickle")
)
TAGS = ("red", "green", "blue", "cyan")


def _synthetic_lines(count: int = 240) -> list[str]:
    """Events for the synthetic programs: every field they read, several groups per event
    (``tags``), uneven key frequencies, and one undecodable line (it goes to ``err``)."""
    lines = []
    for i in range(count):
        tags = [TAGS[(i * k) % len(TAGS)] for k in range(1, 2 + i % 3)]
        event = {
            "host": HOSTS[(i * i) % 3],
            "tags": tags,
            "aint": (i * 37) % 101,
            "cls": f"c{i % 4}",
            "keys": [f"g{(i * 7) % 13}"],
            "keys10": [f"g{i % 10}"],
        }
        lines.append(json.dumps(event))
    lines.insert(count // 2, "{not json")
    return lines


@pytest.mark.spark
@pytest.mark.parametrize("program", SYNTHETIC, ids=lambda p: p.stem)
def test_synthetic_program_is_partition_invariant(program: Path, spark: Any) -> None:
    """Several groups per event, keyed then global stages, a keyed operator, tilt frames over
    interval windows (events 5 s apart) and the benchmark pipelines, against one thread."""
    job = compile_source(read_source(program), "query").job
    lines = _synthetic_lines()
    streams = {"in": lines}
    _differential(spark, job, program.stem, streams, None, _golden_ingest_ns)
