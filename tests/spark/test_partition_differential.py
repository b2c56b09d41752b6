"""Partition differential: a job's output must not depend on how its input is partitioned.

Every ratchet-listed ``queries``/``flows`` case that runs a pipeline over input events, and every
``golden/query`` program (over synthetic events spanning several one-minute windows), runs through
the generated job's ``run_pipeline`` with its input split round-robin into ``SPLIT`` partitions
(``seq`` kept) and ``SPLIT`` shuffle partitions, none merged, so keyed stages run on several
partitions. The serial run is the job's ``GRAPH`` in one thread, in-process, without Spark (one
event after the other, then the end-of-input tick): Tremor's single-threaded order. All outputs
ordered by ``(seq, sub)`` must be that sequence of ``(port, event)`` exactly (so also per port
and per key), with ``(seq, sub)`` unique. Only the documented job API is used: ``run_pipeline``,
``GRAPH`` and, for flows, the job's ``FLOW.sources`` stream names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source, kind_of, read_source
from compiler.testing.cases import Case, classify, input_lines
from compiler.testing.loader import load_job
from compiler.testing.runner import ORIGINS, flow_source
from tests.support.one_thread import synthetic_lines
from tests.support.partition_differential import differential, golden_lines
from tests.support.paths import CONFORMANCE, ROOT

CATEGORIES = ("queries/", "flows/")
LISTED = [
    line.strip()
    for line in (ROOT / "tests" / "conformance_passing.txt").read_text().splitlines()
    if line.strip().startswith(CATEGORIES)
]
GOLDEN = sorted((ROOT / "golden" / "query").glob("*/input.trickle"))


def _golden_ingest_ns(index: int) -> int:
    """Spread the golden events over five minutes, so interval windows open and close."""
    return index * 5_000_000_000


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


@pytest.mark.spark
@pytest.mark.parametrize("name", LISTED)
def test_listed_case_is_partition_invariant(name: str, spark: Any) -> None:
    job, streams, origin = _program(name)
    differential(spark, job, name, streams, origin, lambda seq: seq)


@pytest.mark.spark
@pytest.mark.parametrize("program", GOLDEN, ids=lambda p: p.parent.name)
def test_golden_query_is_partition_invariant(program: Path, spark: Any) -> None:
    job = compile_source(read_source(program), "query").job
    streams = {"in": golden_lines()}
    differential(spark, job, program.parent.name, streams, ORIGINS["query"], _golden_ingest_ns)


SYNTHETIC = sorted((ROOT / "tests" / "fixtures" / "differential").glob("*.trickle")) + sorted(
    (ROOT / "benchmarks" / "scale").glob("*.trickle")
)


@pytest.mark.spark
@pytest.mark.parametrize("program", SYNTHETIC, ids=lambda p: p.stem)
def test_synthetic_program_is_partition_invariant(program: Path, spark: Any) -> None:
    """Several groups per event, keyed then global stages, a keyed operator, tilt frames over
    interval windows (events 5 s apart) and the benchmark pipelines, against one thread."""
    job = compile_source(read_source(program), "query").job
    lines = synthetic_lines(240)
    streams = {"in": lines}
    differential(spark, job, program.stem, streams, None, _golden_ingest_ns)


WINDOWS_EXT = sorted((ROOT / "tests" / "fixtures" / "windows_ext").glob("*.trickle"))


@pytest.mark.spark
@pytest.mark.parametrize("program", WINDOWS_EXT, ids=lambda p: p.stem)
def test_window_extension_is_partition_invariant(program: Path, spark: Any) -> None:
    """Sliding, session and event-time windows (README "Window extensions") on their own
    input (``<stem>.in.jsonl``, ingest time = position), against one thread."""
    job = compile_source(read_source(program), "query").job
    lines = (program.parent / f"{program.stem}.in.jsonl").read_text().splitlines()
    differential(spark, job, program.stem, {"in": lines}, None, lambda seq: seq)
