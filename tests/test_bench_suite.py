"""The benchmark suite's hand-written jobs keep the workloads' meaning: on 2,000 events each
writes the same multiset of JSON values as the generated job (no timing asserted); and each
one's physical plan parses an event once (planning only, so it runs by default).

The output comparison is marked ``long`` (deselected by default: 12 workloads × two Spark
jobs): ``python3 -m pytest -q -m long tests/test_bench_suite.py``.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

from suite import generated_runner, handwritten_runner, mismatch  # noqa: E402
from suite_build import big_program  # noqa: E402
from suite_data import WORKLOADS, input_frame, write_events  # noqa: E402

from compiler.pipeline import compile_path  # noqa: E402

EVENTS = 2_000
PARSES = re.compile(r"from_json\(|JsonToStructs")


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_handwritten_job_parses_each_event_once(spark, tmp_path, workload):
    frame = input_frame(spark, write_events(workload.data, 20, tmp_path))
    job = importlib.import_module(f"handwritten.{workload.module}").run(frame)
    plan = job._jdf.queryExecution().executedPlan().toString()
    # One parse in the whole plan: a second `from_json` would parse every event again.
    assert len(PARSES.findall(plan)) == 1, plan


@pytest.mark.long
@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_handwritten_job_writes_what_the_generated_job_writes(spark, tmp_path, workload):
    frame = input_frame(spark, write_events(workload.data, EVENTS, tmp_path))
    generated, handwritten = str(tmp_path / "generated"), str(tmp_path / "handwritten")
    generated_runner(spark, workload, frame)(generated)
    handwritten_runner(workload, frame)(handwritten)
    assert mismatch(spark, generated, handwritten) == ""
    assert spark.read.text(generated).count() > 0


@pytest.mark.long
def test_big_program_has_the_lines_asked_and_compiles(tmp_path):
    path, lines = big_program(tmp_path, 120)
    assert lines >= 120
    assert "select event from s0 into s1;" in path.read_text()
    assert "def run_pipeline" in compile_path(path).job
