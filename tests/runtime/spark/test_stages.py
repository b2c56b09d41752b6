"""The stage runner (runtime_support/spark/stages.py) without Spark: a job's ``STAGES`` run
in-process, with Spark's data movement done by hand (input in contiguous splits, a keyed stage's
rows hash-partitioned by ``key``, a single stage's in one partition, each partition sorted by
``(seq, path)``), for many split counts. All outputs ordered by ``(seq, path)`` must be exactly
what one thread running the job's ``GRAPH`` emits (Tremor's order). Fast, so it runs many more
partitionings than the Spark differential test (tests/spark/test_partition_differential.py).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from compiler.pipeline import compile_source, read_source
from compiler.testing.cases import classify, input_lines
from compiler.testing.loader import load_job
from runtime_support.spark.stages import stage_mapper
from tests.support.one_thread import one_thread, synthetic_lines
from tests.support.paths import CONFORMANCE, ROOT

SPLITS = (1, 2, 3, 5)
PROGRAMS = sorted((ROOT / "tests" / "fixtures" / "differential").glob("*.trickle")) + sorted(
    (ROOT / "benchmarks" / "scale").glob("*.trickle")
)
QUERIES = sorted(CONFORMANCE.glob("queries/*/*.trickle")) + sorted(
    CONFORMANCE.glob("query_runtime_errors/*/*.trickle")
)


def _batch(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> pa.RecordBatch:
    return (
        pa.RecordBatch.from_pylist(rows)
        if rows
        else pa.RecordBatch.from_pydict({c: [] for c in columns})
    )


def _partitions(rows: list[dict[str, Any]], kind: str, parts: int) -> list[list[dict]]:
    """Spark's movement into a stage: by key hash, into one partition, or kept as produced
    (here: round-robin), then each partition sorted by ``(seq, path)``."""
    buckets: list[list[dict]] = [[] for _ in range(parts)]
    for i, row in enumerate(rows):
        if kind == "hash":
            index = zlib.crc32((row["key"] or "").encode()) % parts
        elif kind == "single":
            index = 0
        else:
            index = i % parts
        buckets[index].append(row)
    return [sorted(b, key=lambda r: (r["seq"], r["path"])) for b in buckets]


def _staged(module: Any, lines: list[str], ingest, parts: int) -> list[tuple[str, str]]:
    stages, spec = module.STAGES, module.GRAPH
    pending: dict[int, list[dict]] = {i: [] for i in range(len(stages))}
    outputs: list[dict] = []
    for index, stage in enumerate(stages):
        if any(m in spec.inputs for m in stage.members):
            events = [
                {"stream": "in", "seq": s, "value": v, "ingest_ns": ingest(s), "origin": None}
                for s, v in enumerate(lines)
            ]
            size = -(-len(events) // parts) or 1
            splits = [events[i : i + size] for i in range(0, len(events), size)]
            if stage.partitioning == "single":
                splits = [events]
        else:
            splits = _partitions(pending[index], stage.partitioning, parts)
        for split in splits:
            if not split:
                continue
            mapper = stage_mapper(spec, stages, index, True)
            for batch in mapper(iter([pa.RecordBatch.from_pylist(split)])):
                for row in batch.to_pylist():
                    (outputs if row["stage"] == -1 else pending[row["stage"]]).append(row)
    outputs.sort(key=lambda r: (r["seq"], r["path"]))
    keys = [(r["seq"], tuple(r["path"])) for r in outputs]
    assert len(set(keys)) == len(keys), "(seq, path) is not unique"
    return [(r["target"], r["value"]) for r in outputs]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
@pytest.mark.parametrize("parts", SPLITS)
def test_synthetic_stages_match_one_thread(program: Path, parts: int) -> None:
    module = load_job(compile_source(read_source(program), "query").job, program.stem)

    def ingest(seq: int) -> int:
        return seq * 5_000_000_000

    lines = synthetic_lines(300, bad=False)
    expected = one_thread(module.GRAPH, {"in": lines}, ingest)
    assert _staged(module, lines, ingest, parts) == expected


@pytest.mark.parametrize("program", QUERIES, ids=lambda p: p.parent.name)
def test_corpus_query_stages_match_one_thread(program: Path) -> None:
    case = classify(program.parent)
    assert case is not None
    module = load_job(compile_source(read_source(program), "query").job, case.name)
    lines = input_lines(case)
    expected = one_thread(module.GRAPH, {"in": lines}, lambda seq: seq)
    for parts in SPLITS:
        assert _staged(module, lines, lambda seq: seq, parts) == expected, parts


def _keyed_and_global(plan_stages: list[tuple[tuple[str, ...], str]], stateful: set[str]) -> set:
    return {(m, kind) for members, kind in plan_stages for m in members if m in stateful}


@pytest.mark.parametrize(
    "program",
    sorted(CONFORMANCE.glob("queries/*/*.trickle")) + sorted(ROOT.glob("golden/*/*/input.*")),
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}",
)
def test_job_stages_are_the_dbg_plan_split(program: Path) -> None:
    """Every stateful node runs in the job under the partitioning ``tremorc dbg plan`` shows
    (hash by its key, or single); the job's stages are the planner's, over the job graph."""
    from compiler.codegen.build import job_plan
    from compiler.pipeline import check_program, kind_of
    from compiler.plan.model import Hash, Single
    from compiler.source import Source

    kind = kind_of(program)
    plan = job_plan(check_program(Source.from_path(program), kind))
    names = {Hash: "hash", Single: "single"}
    shown = [(s.members, names.get(type(s.partitioning), "other")) for s in plan.stages]
    module = load_job(compile_source(read_source(program), kind).job, program.parent.name)
    stateful = {n.name for n in module.GRAPH.nodes if n.stateful}
    job = [(s.members, s.partitioning) for s in module.STAGES]
    assert _keyed_and_global(job, stateful) == _keyed_and_global(shown, stateful)
    assert all(kind in ("hash", "single") for _, kind in _keyed_and_global(job, stateful))


def test_output_metadata_that_cannot_be_encoded_becomes_an_error_record() -> None:
    """A sink that reads ``$`` never gets an event whose metadata was dropped: an integer beyond
    64 bits has no JSON encoding here, so the value becomes an error record naming why."""
    from runtime_support.spark.stages import _encoded_with_meta
    from runtime_support.tremor.graph import MetaValue
    from runtime_support.tremor.jsonio import decode_json

    value, meta = _encoded_with_meta(MetaValue({"a": 1}, {"kafka_producer": {"key": "k"}}, (0, 2)))
    assert decode_json(value) == {"a": 1}
    assert decode_json(meta) == {"$": {"kafka_producer": {"key": "k"}}, "batch": [0, 2]}

    value, meta = _encoded_with_meta(MetaValue({"a": 1}, {"big": 1 << 70}, None))
    failed = decode_json(value)
    assert failed["error"].startswith("Can not encode the event's metadata for its sink")
    assert failed["event"] == "{'a': 1}"
    assert decode_json(meta) == {"$": {}, "batch": None}


RAW_KEYED = """
define window two from tumbling with size = 2 end;
select {"n": aggr::stats::count(), "first": aggr::win::first(event), "meta": aggr::win::last($)}
from in[two] group by event.g into out;
"""


def test_input_events_cross_into_a_keyed_stage_as_their_lines() -> None:
    """An input event that goes straight to a keyed node travels as its input line (with its
    metadata, ingest time, origin and group beside it) and runs there as the event itself:
    the same outputs as one thread running the graph on the decoded events."""
    import json

    from compiler.source import Source
    from runtime_support.tremor.graph import END_OF_INPUT, Event, Graph
    from runtime_support.tremor.jsonio import decode_json, encode_json

    module = load_job(compile_source(Source("raw.trickle", RAW_KEYED), "query").job, "raw_keyed")
    spec, stages = module.GRAPH, module.STAGES
    lines = [f'{{"g": "{"ab"[i % 2]}", "i": {i}, "pad":  [1, 2.5, "x"]}}' for i in range(9)]
    metas = [json.dumps({"k": i}) for i in range(9)]
    rows = [
        {"stream": "in", "seq": s, "value": v, "ingest_ns": 10 * s, "origin": "tcp://h/", "meta": m}
        for s, (v, m) in enumerate(zip(lines, metas, strict=True))
    ]
    first = stage_mapper(spec, stages, 0, True)(iter([pa.RecordBatch.from_pylist(rows)]))
    crossing = [row for batch in first for row in batch.to_pylist() if row["stage"] == 1]
    assert [row["value"] for row in crossing] == lines  # the lines, unchanged
    crossing.sort(key=lambda r: (r["key"], r["seq"], r["path"]))
    second = stage_mapper(spec, stages, 1, True)(iter([pa.RecordBatch.from_pylist(crossing)]))
    got = sorted(
        (r["seq"], r["path"], r["value"]) for b in second for r in b.to_pylist() if r["stage"] == -1
    )
    graph = Graph(spec)
    expected = []
    for seq, (line, meta) in enumerate(zip(lines, metas, strict=True)):
        event = Event(decode_json(line), decode_json(meta), 10 * seq, "tcp://h/")
        expected += [encode_json(v) for _, v in graph.push("in", event)]
    expected += [encode_json(v) for _, v in graph.tick(END_OF_INPUT)]
    assert [value for _, _, value in got] == expected
    assert decode_json(expected[0])["meta"] == {"k": 2}  # group "a": events 0 and 2
