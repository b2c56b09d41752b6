"""Scaling of generated jobs from 1 to 2 cores: prints a table (never a unit test).

Usage::

    python benchmarks/scaling.py [--events 5000000] [--repeat 3] [--groups 1000] [--only NAME ...]

Pipelines (``benchmarks/scale/<name>.trickle``): ``groups1000`` (keyed windowed aggregation,
``group by each``, a size and an interval window in a tilt frame; ``--groups`` keys),
``groups10`` (the same over 10 keys) and ``global`` (the same windows without ``group by``).
Synthetic events are made once from ``../shared/workloads/data/data.json.xz`` as JSON lines in a
temp folder. Each pipeline runs in a fresh subprocess per master (``local[1]``, ``local[2]``):
the job's ``run_pipeline`` over ``spark.read.text`` (the driver never holds events), all outputs
written as text (full evaluation, nothing collected), one warm-up over the first 20,000
events, then the median of ``--repeat`` runs. The same subprocess times a hand-written PySpark
job doing the same aggregation natively (``benchmarks/scale/native.py``: comparable work, not
identical semantics).
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCALE = ROOT / "benchmarks" / "scale"
DATA = ROOT.parent / "shared" / "workloads" / "data" / "data.json.xz"
PIPELINES = ("groups1000", "groups10", "global")
MASTERS = ("local[1]", "local[2]")
FIELDS = ("application", "short_message", "aint", "logger_name", "syslog_hostname")
TS0 = 1_600_000_000_000_000_000  # first event's ts (ns); a multiple of the 10-event bucket
EVENT_NS = 1_000_000  # ts step between events: 1,000 events per second of event time
WARM_EVENTS = 20_000  # the warm-up sample: the first events, in a file of their own


def make_data(events: int, groups: int, folder: Path) -> Path:
    """``events`` JSON lines built from the sample events (five short fields each), plus
    ``ts`` (increasing by 1 ms; the jobs use it as ``seq`` and ``ingest_ns``), ``keys``
    (one of ``groups`` keys) and ``keys10`` (one of 10 keys), keys spread evenly over time."""
    samples = [json.loads(line) for line in lzma.open(DATA, "rt") if line.strip()]
    bases = [{k: s[k] for k in FIELDS if k in s} for s in samples]
    path = folder / "events.json"
    with path.open("w") as out, Path(f"{path}.warm").open("w") as warm:
        for i in range(events):
            if i == WARM_EVENTS:
                warm = None
            event = dict(bases[i % len(bases)])
            event["ts"] = TS0 + i * EVENT_NS
            event["keys"] = [f"g{(i * 7919) % groups}"]
            event["keys10"] = [f"g{i % 10}"]
            line = json.dumps(event, separators=(",", ":")) + "\n"
            out.write(line)
            if warm is not None:
                warm.write(line)
    return path


def session(master: str, input_bytes: int) -> Any:
    """A fresh session on ``master``; the input is split in 8 (so both cores read), shuffles
    use 4 partitions; the same settings on every master."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("tremorc-scaling").master(master)
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.driver.memory": "2g",
        "spark.sql.files.maxPartitionBytes": str(max(1 << 20, input_bytes // 8)),
    }
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def tremorc_run(spark: Any, name: str, path: str):
    """The run function (output folder → None) of the generated job of pipeline ``name``."""
    from pyspark.sql import functions as F

    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job

    module = load_job(compile_path(SCALE / f"{name}.trickle").job, name)

    def run(out: str) -> None:
        ts = F.get_json_object("value", "$.ts").cast("long")
        events = spark.read.text(path).select("value", ts.alias("seq"), ts.alias("ingest_ns"))
        frames = [f.select("value") for f in module.run_pipeline(spark, {"in": events}).values()]
        union = frames[0]
        for frame in frames[1:]:
            union = union.unionByName(frame)
        union.write.mode("overwrite").text(out)
        spark.catalog.clearCache()  # the runtime may persist its result

    return run


def timed(runs: dict[str, Any], warm: dict[str, Any], repeat: int, folder: str) -> dict:
    """Median seconds per run function after one warm-up each (``warm``: the same jobs over a
    small sample); rounds interleave them, so a burst of load from other processes hits all
    alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for name, run in warm.items():
        run(f"{folder}/warm-{name}")
    for i in range(repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run(f"{folder}/{name}-{i}")
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def worker(master: str, name: str, path: str, repeat: int) -> dict[str, float]:
    """Inside the subprocess: time the generated job and the native one on ``master`` (the
    warm-up runs both over ``<path>.warm``, a small sample)."""
    sys.path.insert(0, str(SCALE))
    from native import NATIVE  # noqa: PLC0415 - benchmark-only module next to the pipelines

    spark = session(master, Path(path).stat().st_size)
    sample = path + ".warm"
    runs = {"tremorc": tremorc_run(spark, name, path)}
    runs["native"] = lambda out: NATIVE[name](spark, path, out)
    warm = {"tremorc": tremorc_run(spark, name, sample)}
    warm["native"] = lambda out: NATIVE[name](spark, sample, out)
    folder = tempfile.mkdtemp(prefix="tremorc-scaling-")
    try:
        return timed(runs, warm, repeat, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        spark.stop()


def spawn(master: str, name: str, path: Path, repeat: int) -> dict[str, float]:
    """Run :func:`worker` in a fresh Python process (a fresh JVM with that master)."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    argv = [sys.executable, __file__, "--worker", master, name, str(path), str(repeat)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} on {master} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(label: str, events: int, one: float, two: float) -> str:
    """One table line: seconds on 1 and 2 cores, the speed-up, events/s/core on each."""
    per_core = f"{events / one:>11,.0f} {events / two / 2:>11,.0f}"
    return f"{label:22s} {events:>10,} {one:8.2f} {two:8.2f} {one / two:7.2f}x {per_core}"


HEADER = (
    f"{'pipeline':22s} {'events':>10} {'1 core s':>8} {'2 core s':>8} {'speedup':>8} "
    f"{'ev/s/core@1':>11} {'ev/s/core@2':>11}"
)


def report(name: str, events: int, by_master: dict[str, dict[str, float]]) -> None:
    """Print one pipeline's lines: the generated job, then the native one."""
    one, two = by_master[MASTERS[0]], by_master[MASTERS[1]]
    print(row(name, events, one["tremorc"], two["tremorc"]))
    print(row(f"  native ({name})", events, one["native"], two["native"]), flush=True)


def report_ratios(results: dict[str, dict[str, dict[str, float]]]) -> None:
    """Print the generated job's seconds over the native job's, per core count."""
    print("\ntremorc / native seconds (comparable, not identical semantics; see scale/native.py)")
    for name, by_master in results.items():
        ratios = [by_master[m]["tremorc"] / by_master[m]["native"] for m in MASTERS]
        print(f"{name:22s} 1 core {ratios[0]:6.2f}x   2 cores {ratios[1]:6.2f}x")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        master, name, path, repeat = argv[1:5]
        print(json.dumps(worker(master, name, path, int(repeat))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--groups", type=int, default=1000, help="keys of groups1000")
    parser.add_argument("--only", nargs="+", choices=PIPELINES, default=list(PIPELINES))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tremorc-scaling-data-") as tmp:
        path = make_data(args.events, args.groups, Path(tmp))
        print(
            f"{args.events:,} events ({path.stat().st_size / 1e6:.0f} MB), median of "
            f"{args.repeat} after a warm-up on {WARM_EVENTS:,}; load: {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        print(HEADER, flush=True)
        results = {}
        for name in args.only:
            results[name] = {m: spawn(m, name, path, args.repeat) for m in MASTERS}
            report(name, args.events, results[name])
    report_ratios(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
