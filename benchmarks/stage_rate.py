"""Events/s of one generated stage's Python, without Spark: ``stage_mapper`` of a workload's
source stage over Arrow batches of the sample events, CPU time, best of ``--rounds`` (in process,
so it shows the runtime's own per-event cost; never a unit test).

Usage::

    python benchmarks/stage_rate.py [--workload classify] [--events 50000] [--rounds 7] [--counted]

``--counted``: the graph counts its events per node and port (a flow with a ``metrics`` source).
"""

from __future__ import annotations

import argparse
import lzma
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "workloads" / "data" / "data.json.xz"


def main() -> None:
    import pyarrow as pa

    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job
    from runtime_support.stages import stage_mapper

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="classify")
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--counted", action="store_true", help="count per node and port")
    args = parser.parse_args()
    path = ROOT / "benchmarks" / "workloads" / f"{args.workload}.trickle"
    job = load_job(compile_path(path).job, args.workload)
    lines = [line for line in lzma.open(DATA, "rt").read().splitlines() if line.strip()]
    values = [lines[i % len(lines)] for i in range(args.events)]
    batches = [
        pa.RecordBatch.from_pydict(
            {
                "stream": ["in"] * len(values[s : s + 10_000]),
                "seq": list(range(s, s + len(values[s : s + 10_000]))),
                "value": values[s : s + 10_000],
                "ingest_ns": list(range(s, s + len(values[s : s + 10_000]))),
                "origin": [None] * len(values[s : s + 10_000]),
            }
        )
        for s in range(0, args.events, 10_000)
    ]
    graph = replace(job.GRAPH, counted=True) if args.counted else job.GRAPH
    mapper = stage_mapper(graph, job.STAGES, 0, True)
    best = float("inf")
    for _ in range(args.rounds):
        start = time.process_time()
        rows = sum(batch.num_rows for batch in mapper(iter(batches)))
        best = min(best, time.process_time() - start)
    name = args.workload + (" (counted)" if args.counted else "")
    print(f"{name}: {args.events} events -> {rows} rows, {args.events / best:,.0f} ev/s")


if __name__ == "__main__":
    main()
