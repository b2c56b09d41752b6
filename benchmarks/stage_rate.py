"""Events/s of one generated stage's Python, without Spark: ``stage_mapper`` of a workload's
source stage over Arrow batches of the sample events, CPU time, best of ``--rounds`` (in process,
so it shows the runtime's own per-event cost; never a unit test).

Usage::

    python benchmarks/stage_rate.py [--workload classify] [--events 50000] [--rounds 7] [--counted]
    python benchmarks/stage_rate.py --suite batch --instructions [--events 20000]

``--workload``: a program of ``benchmarks/workloads``; ``--suite``: a workload of the benchmark
suite instead (``suite_data``; its flush-transparent batches are passthroughs, as the job runs
them when the run flushes). ``--counted``: the graph counts its events per node and port (a flow
with a ``metrics`` source). ``--instructions``: instructions per event instead of time, counted
by valgrind's callgrind (the same count in any hour, so two checkouts compare on a noisy
machine: run it from each, or with ``PYTHONPATH`` set to each): a run over ``--events`` events
less a run over none, both after a warm-up batch, divided by ``--events``.
"""

from __future__ import annotations

import argparse
import ast
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
DATA = ROOT.parent / "shared" / "workloads" / "data" / "data.json.xz"
BATCH_ROWS = 10_000  # Spark's spark.sql.execution.arrow.maxRecordsPerBatch default
WARM_UP = 100
_CHILD = "TREMORC_STAGE_RATE_COUNTED"
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")
# The batches the job runs as passthroughs when the run flushes (compiler/plan/job_phases.py).
_FLUSHING = re.compile(r"passthroughs\(GRAPH,\s*(\([^)]*\))", re.S)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="classify")
    parser.add_argument("--suite", help="a workload of the benchmark suite (suite_data.py)")
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--counted", action="store_true", help="count per node and port")
    parser.add_argument("--instructions", action="store_true", help="callgrind's count")
    args = parser.parse_args()
    if args.instructions and _CHILD not in os.environ:
        counted_per_event(args)
        return
    mapper, lines = stage(args)
    warm = batches([lines[i % len(lines)] for i in range(WARM_UP)])
    timed = batches([lines[i % len(lines)] for i in range(args.events)])
    if args.instructions:  # a child under callgrind: one warm-up, one run
        for part in (warm, timed):
            sum(batch.num_rows for batch in mapper(iter(part)))
        return
    best, rows = float("inf"), 0
    for _ in range(args.rounds):
        start = time.process_time()
        rows = sum(batch.num_rows for batch in mapper(iter(timed)))
        best = min(best, time.process_time() - start)
    name = (args.suite or args.workload) + (" (counted)" if args.counted else "")
    print(f"{name}: {args.events} events -> {rows} rows, {args.events / best:,.0f} ev/s")


def stage(args: argparse.Namespace) -> tuple:
    """The source stage's ``mapInArrow`` function and the sample lines of its data set."""
    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job
    from runtime_support.spark.plan import passthroughs
    from runtime_support.spark.stages import stage_mapper

    if args.suite:
        from suite_data import BY_NAME, source_lines

        workload = BY_NAME[args.suite]
        text = compile_path(workload.trickle).job
        lines = source_lines(workload.data)
    else:
        text = compile_path(ROOT / "benchmarks" / "workloads" / f"{args.workload}.trickle").job
        lines = [line for line in lzma.open(DATA, "rt").read().splitlines() if line.strip()]
    job = load_job(text, args.suite or args.workload)
    graph = replace(job.GRAPH, counted=True) if args.counted else job.GRAPH
    flushing = _FLUSHING.search(text)
    if flushing:
        graph = passthroughs(graph, ast.literal_eval(flushing.group(1)))
    return stage_mapper(graph, job.STAGES, 0, True), lines


def batches(values: list[str]) -> list:
    """Input rows as a source stage reads them (``event_columns``), in Arrow batches."""
    import pyarrow as pa

    out = []
    for start in range(0, len(values), BATCH_ROWS):
        part = values[start : start + BATCH_ROWS]
        count = len(part)
        out.append(
            pa.RecordBatch.from_pydict(
                {
                    "seq": pa.array(range(start, start + count), pa.int64()),
                    "value": pa.array(part, pa.string()),
                    "ingest_ns": pa.array(range(start, start + count), pa.int64()),
                    "origin": pa.nulls(count, pa.string()),
                    "meta": pa.nulls(count, pa.string()),
                    "stream": pa.array(["in"] * count),
                }
            )
        )
    return out


def counted_per_event(args: argparse.Namespace) -> None:
    """Run this script under callgrind over ``args.events`` events and over none; print the
    difference per event."""
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    counts = []
    for events in (args.events, 0):
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        command += [sys.executable, __file__, "--instructions", "--events", str(events)]
        command += ["--suite", args.suite] if args.suite else ["--workload", args.workload]
        command += ["--counted"] if args.counted else []
        env = {**os.environ, _CHILD: "1"}
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        found = _REFS.search(done.stderr)
        if found is None:
            sys.exit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
        counts.append(int(found.group(1).replace(",", "")))
    name = args.suite or args.workload
    per_event = (counts[0] - counts[1]) / args.events
    print(f"{name}: {per_event:,.0f} instructions per event ({args.events} events)")


if __name__ == "__main__":
    main()
