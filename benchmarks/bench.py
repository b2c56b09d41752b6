"""Throughput of generated jobs, as ratios to the text read/write floor (never a unit test).

Usage::

    python benchmarks/bench.py [--events 200000] [--runs 3] [ARRANGEMENT ...]

Arrangements: ``floor`` (read text → write text), ``py:<workload>`` (the generated job without
a native pre-filter: every event goes to Python; what tremorc builds), ``native:<workload>``
(the job with its drop plan attached: the narrow lowering where it applies, else the variant
one), ``variant:<workload>`` (the plan forced on the variant lowering, ``try_parse_json``) and
``cand:<name>`` (hand-written native candidates measured before choosing a design; some are
knowingly inexact and say so).
Workloads are ``benchmarks/workloads/<name>.trickle`` (Tremor's benchmark pipelines, adapted to
today's grammar). Each figure is the warm median of ``--runs`` runs after one warm-up run, on the
sample data (``../shared/workloads/data/data.json.xz``) repeated to ``--events`` lines.
"""

from __future__ import annotations

import argparse
import lzma
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workload_jobs import job_module, write_all  # benchmark-only module next to this one

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(__file__).resolve().parents[2] / "shared" / "workloads" / "data" / "data.json.xz"


SMALL_KEYS = ("short_message", "aint", "application", "index_type", "tags")


def make_data(events: int, folder: Path, small: bool) -> Path:
    """The sample events repeated to ``events`` lines, as one JSON-lines file (``small``: only
    five short fields of each, about 110 bytes instead of 630)."""
    lines = [line for line in lzma.open(DATA, "rt").read().splitlines() if line.strip()]
    if small:
        import orjson

        lines = [
            orjson.dumps({k: v for k, v in orjson.loads(line).items() if k in SMALL_KEYS}).decode()
            for line in lines
        ]
    path = folder / "events.json"
    with path.open("w") as out:
        for i in range(events):
            out.write(lines[i % len(lines)] + "\n")
    return path


def arrangement(name: str, spark, path: str) -> Callable[[str], None]:
    """The run function (output folder → None) of an arrangement name."""
    from pyspark.sql import functions as F

    kind, _, arg = name.partition(":")
    if kind == "floor":
        return lambda out: spark.read.text(path).write.mode("overwrite").text(out)
    if kind in ("py", "native", "variant"):
        module = job_module(arg, kind)
        return lambda out: write_all(module.run_pipeline(spark, {"in": spark.read.text(path)}), out)
    from candidates import CANDIDATES  # noqa: PLC0415 - benchmark-only module next to this one

    return lambda out: CANDIDATES[arg](spark, F, path, out)


def measure(spark, fns: dict[str, Callable[[str], None]], runs: int) -> dict[str, float]:
    """Warm median of ``runs`` timed runs per arrangement (after one warm-up each).

    Runs are interleaved round by round, so a burst of load from other processes on the shared
    machine hits every arrangement alike instead of skewing one. The cache is cleared after
    every run (untimed): a generated job persists its stages, and an identical plan would
    otherwise be served from the previous run's cache.
    """
    folder = tempfile.mkdtemp(prefix="tremorc-bench-")
    times: dict[str, list[float]] = {name: [] for name in fns}
    try:
        for fn in fns.values():
            fn(f"{folder}/warm")
            spark.catalog.clearCache()
        for i in range(runs):
            for name, fn in fns.items():
                started = time.perf_counter()
                fn(f"{folder}/run{i}")
                times[name].append(time.perf_counter() - started)
                spark.catalog.clearCache()
        return {name: statistics.median(values) for name, values in times.items()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="small events (about 110 bytes)")
    parser.add_argument("names", nargs="*", default=["floor", "py:let", "native:let"])
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).parent))
    from runtime_support.spark.session import get_session

    spark = get_session("tremorc-bench")
    # Several input splits, so both cores work in every arrangement (the default 128 MiB split
    # would give the native arrangements one task while the Python path pipelines over two).
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 << 20))
    with tempfile.TemporaryDirectory() as tmp:
        path = str(make_data(args.events, Path(tmp), args.small))
        names = args.names if "floor" in args.names else ["floor", *args.names]
        fns = {name: arrangement(name, spark, path) for name in names}
        results = measure(spark, fns, args.runs)
        floor = results["floor"]
        print(f"{args.events} events, warm median of {args.runs}; ratio = seconds / floor")
        for name, seconds in results.items():
            print(f"{name:40s} {seconds:7.2f} s  {seconds / floor:5.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
