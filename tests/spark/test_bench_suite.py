"""The benchmark suite's hand-written jobs keep the workloads' meaning: on 2,000 events each
writes the same multiset of JSON values as the generated job (no timing asserted); and each
one's physical plan parses an event once (planning only, so it runs by default).

The output comparison is marked ``long`` (deselected by default: 12 workloads × two Spark
jobs): ``python3 -m pytest -q -m long tests/spark/test_bench_suite.py``.
"""

from __future__ import annotations

import importlib
import re
import sys

import pytest

from tests.support.paths import ROOT

BENCH = ROOT / "benchmarks"
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


def _busy(batches):
    """Spin ~1 s of CPU in this Python worker; one row: the CPU seconds it measured."""
    import time

    import pyarrow as pa

    for _ in batches:
        pass
    started = time.process_time()
    while time.process_time() - started < 1.0:
        pass
    yield pa.RecordBatch.from_pydict({"cpu": [time.process_time() - started]})


GRANDCHILD = """
import subprocess, sys, time
if sys.argv[1:] == ["burn"]:
    started = time.process_time()
    while time.process_time() - started < 1.0:
        pass
    print("burnt", flush=True)
    time.sleep(60)
else:
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1], "burn"])
    time.sleep(60)
"""


def test_cpu_clock_counts_live_descendants():
    """A process that only sleeps, whose child burns 1 s of CPU and stays alive: its tree
    used at least that second (the grandchild's own CPU, not its parent's)."""
    import subprocess
    import time

    from cpu_clock import _stat, tree_cpu_seconds

    parent = subprocess.Popen([sys.executable, "-c", GRANDCHILD, GRANDCHILD])
    try:
        deadline = time.monotonic() + 60
        while tree_cpu_seconds(parent.pid) - _stat(parent.pid)[1] < 0.9:
            assert time.monotonic() < deadline, "the child's CPU was never counted"
            time.sleep(0.1)
        assert _stat(parent.pid)[1] < 0.5  # the parent itself only slept
    finally:
        subprocess.run(["pkill", "-P", str(parent.pid)], check=False)
        parent.kill()
        parent.wait()


@pytest.mark.spark
def test_cpu_clock_counts_the_python_workers(spark):
    from cpu_clock import spark_cpu_seconds

    before = spark_cpu_seconds(spark)
    rows = spark.range(0, 4, numPartitions=4).mapInArrow(_busy, "cpu double").collect()
    counted = spark_cpu_seconds(spark) - before
    spent = sum(row.cpu for row in rows)  # what the workers measured of their own CPU
    assert spent >= 4.0
    assert counted >= spent, (counted, spent)
