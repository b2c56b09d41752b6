"""Benchmark suite: every workload of ``../shared/workloads`` as the generated job against a
hand-written PySpark job with the same meaning (never a unit test).

Usage::

    python benchmarks/suite.py [--events 1000000] [--runs 3] [--json out.json]
        [--only NAME ...] [--no-build] [--build-runs 5] [--big-lines 10000]
        [--typed | --typed-source] [--shape NAME]

Per workload: both jobs read the same cached DataFrame of JSON text and write JSON text; one
warm-up each (its outputs are compared: same multiset of JSON values, or a FAIL in the table),
then ``--runs`` interleaved rounds; the median seconds of each. Also the ``tremorc build`` time
per workload (median of ``--build-runs``, in process and as the CLI) and of a generated program
of ``--big-lines`` lines. Prints a table; ``--json`` writes every figure. ``--typed``: the
stateless workloads, their generated job built with the data set's schema (``--schema``, the
typed native path) against the same hand-written typed job. ``--typed-source``: the same, but
both jobs read a typed source (the data set parsed once into a cached DataFrame of its schema's
columns, as a Parquet or JDBC table reads; no JSON text in), and write JSON text. ``--shape``:
the workloads of the sample data set read that shape of it (``benchmarks/shapes.py``; the
shapes that keep the sample's fields), the hand-written pass-through job reading the fields
the shape adds too; other hand-written jobs do not know them (a ``--shape`` run refuses them).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import shapes  # noqa: E402
from cpu_clock import spark_cpu_seconds  # noqa: E402
from suite_build import big_program, build_times  # noqa: E402
from suite_data import BY_NAME, WORKLOADS, Workload, input_frame, write_events  # noqa: E402

CORES = 2  # local[2]


# --typed: the schema declared for each data set (the hand-written jobs' schemas, as DDL).
_FIELDS = (
    "about STRING, guid STRING, abool BOOLEAN, aint BIGINT, short_message STRING, tags {}, "
    "array ARRAY<BIGINT>, index_type STRING, logger_name STRING, syslog_hostname STRING, "
    "application STRING, type STRING, `doc-type` STRING"
)
SCHEMAS = {
    "data": _FIELDS.format("ARRAY<STRING>"),
    "match": _FIELDS.format("STRUCT<pipeline: STRING>") + ", measurement STRING",
}
TYPED = ("real-workflow-throughput-json", "patch", "merge", "let", "match")


def typed_source_frame(frame, data: str):
    """The cached typed source of a data set: its JSON input parsed once with its schema, one
    column per field (``seq``, ``ingest_ns`` kept), materialised before timing. Every event of
    both data sets has every field, so the source declares them NOT NULL, as a Parquet file
    with required fields or a table with NOT NULL columns would (``coalesce`` with a default
    that no row reaches is how Spark learns a column is not nullable)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, BooleanType, LongType, StringType

    typed = frame.select("seq", "ingest_ns", F.from_json("value", SCHEMAS[data]).alias("e"))
    typed = typed.select("seq", "ingest_ns", "e.*")
    absent = [F.col(f"`{name}`").isNull() for name in typed.columns]
    if typed.filter(functools.reduce(lambda a, b: a | b, absent)).count():
        raise ValueError(f"the {data} data set has events without some field")
    defaults = {StringType: F.lit(""), LongType: F.lit(0), BooleanType: F.lit(False)}
    columns = []
    for field in typed.schema.fields:
        column = F.col(f"`{field.name}`")
        if isinstance(field.dataType, ArrayType):
            column = F.coalesce(column, F.array().cast(field.dataType))
        elif type(field.dataType) in defaults:
            column = F.coalesce(column, defaults[type(field.dataType)])
        columns.append(column.alias(field.name))
    typed = typed.select(*columns).cache()
    typed.count()
    return typed


def generated_runner(spark, workload: Workload, frame, typed: bool = False):
    """The generated job as tremorc builds it (``typed``: built with the data set's schema)
    writing its `out` port as text."""
    from compiler.lowering.schema import parse_schema
    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job

    schema = parse_schema(SCHEMAS[workload.data]) if typed else None
    job = compile_path(workload.trickle, schema=schema).job
    if typed:
        print(f"{workload.name}: typed plan {'yes' if 'with_typed_plan(' in job else 'no'}")
    module = load_job(job, workload.name)

    def run(out: str) -> None:
        # only `out` is read, as a user writing one port would (the others are never planned)
        module.run_pipeline(spark, {"in": frame})["out"].select("value").write.mode(
            "overwrite"
        ).text(out)

    return run


def handwritten_runner(workload: Workload, frame, shape: str = "") -> Callable[[str], None]:
    """The hand-written job of ``benchmarks/handwritten/<workload>.py`` writing its text
    (``shape``: the pass-through job, its schema with the fields the shape adds)."""
    module = importlib.import_module(f"handwritten.{workload.module}")
    if shape and shapes.EXTRA_FIELDS[shape]:
        from handwritten import EVENT, as_json, parsed
        from handwritten.passthrough import run
        from pyspark.sql.types import LongType, StringType, StructField, StructType

        if module.run is not run:
            raise ValueError(f"--shape {shape}: {workload.name} is no pass-through job")
        name, kind = shapes.EXTRA_FIELDS[shape].split()
        extra = StructField(name, {"BIGINT": LongType(), "STRING": StringType()}[kind])
        schema = StructType([*EVENT.fields, extra])
        return (
            lambda out: parsed(frame, schema).select(as_json("e")).write.mode("overwrite").text(out)
        )
    return lambda out: module.run(frame).write.mode("overwrite").text(out)


def mismatch(spark, left: str, right: str) -> str:
    """ "" when the JSON lines under ``left`` and ``right`` are the same multiset of values
    (each line canonicalised through Spark's variant: keys sorted), else counts of each side's
    surplus and one example."""
    from pyspark.sql import functions as F

    def canonical(folder: str):
        return spark.read.text(folder).select(F.to_json(F.parse_json("value")).alias("v"))

    a, b = canonical(left), canonical(right)
    only_a, only_b = a.exceptAll(b), b.exceptAll(a)
    count_a, count_b = only_a.count(), only_b.count()
    if not count_a and not count_b:
        return ""
    example = (only_a if count_a else only_b).first().v[:160]
    return (
        f"{a.count()} vs {b.count()} lines; {count_a} only generated, {count_b} only "
        f"hand-written; e.g. {example}"
    )


def machine_speed() -> float:
    """Seconds for a 5M-step pure-Python loop (best of 3): absolute times on this shared
    machine move by 2-3x between hours (load average does not show it), so build times and
    events/s are read against it; ratios need no such correction (interleaved rounds)."""
    best = float("inf")
    for _ in range(3):
        started, total = time.perf_counter(), 0
        for i in range(5_000_000):
            total += i
        best = min(best, time.perf_counter() - started)
    return best


def fresh_cache(spark, frame) -> None:
    """Drop what a run persisted (a later run with the same plan would read it instead of
    computing), keeping only the cached input (untimed)."""
    spark.catalog.clearCache()
    frame.cache()
    frame.count()


def measure(
    spark, workload: Workload, frame, runs: int, folder: str, typed: bool, shape: str = ""
) -> dict:
    """Warm-up (outputs compared), then ``runs`` interleaved rounds; medians in seconds."""
    fns = {
        "generated": generated_runner(spark, workload, frame, typed),
        "handwritten": handwritten_runner(workload, frame, shape),
    }
    for name, fn in fns.items():
        fn(f"{folder}/{workload.name}-{name}")
        fresh_cache(spark, frame)
    problem = mismatch(
        spark, f"{folder}/{workload.name}-generated", f"{folder}/{workload.name}-handwritten"
    )
    times: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(runs):
        for name, fn in fns.items():
            cpu_started, started = spark_cpu_seconds(spark), time.perf_counter()
            fn(f"{folder}/{workload.name}-{name}-{i}")
            times[name].append(time.perf_counter() - started)
            if cpu_started is not None:
                cpu[name].append(spark_cpu_seconds(spark) - cpu_started)
            fresh_cache(spark, frame)
    return {
        "mismatch": problem,
        **{name: statistics.median(values) for name, values in times.items()},
        "round_ratios": [
            gen / hand for gen, hand in zip(times["generated"], times["handwritten"], strict=True)
        ],
        "samples": times,
        "cpu": {name: statistics.median(values) for name, values in cpu.items() if values},
        "cpu_samples": cpu,
    }


def run_workloads(
    names: list[str],
    events: int,
    runs: int,
    typed: bool,
    typed_source: bool = False,
    shape: str = "",
) -> dict[str, dict]:
    """Every named workload measured in one SparkSession (local[2]), inputs cached per data set
    (``typed_source``: the typed source of each, see :func:`typed_source_frame`; ``shape``: the
    sample data set in that shape, see :mod:`shapes`)."""
    from runtime_support.spark.session import get_session

    spark = get_session("tremorc-suite")
    # As bench.py: 16 MiB input splits so every job uses both cores.
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 << 20))
    results: dict[str, dict] = {}
    folder = tempfile.mkdtemp(prefix="tremorc-suite-")
    frames: dict[str, object] = {}
    try:
        for name in names:
            workload = BY_NAME[name]
            if workload.data not in frames:
                if shape and workload.data != "data":
                    raise ValueError(f"--shape {shape}: {name} reads the {workload.data} data")
                if shape:
                    path = shapes.write(shape, events, Path(folder) / f"{shape}-{events}.json")
                else:
                    path = write_events(workload.data, events, Path(folder))
                frames[workload.data] = input_frame(spark, path)
                if typed_source:
                    text = frames[workload.data]
                    frames[workload.data] = typed_source_frame(text, workload.data)
                    text.unpersist()
            frame = frames[workload.data]
            results[name] = measure(
                spark, workload, frame, runs, folder, typed or typed_source, shape
            )
            print(f"{name}: {summary(results[name], events)}", flush=True)
            for sub in Path(folder).glob(f"{name}-*"):
                shutil.rmtree(sub, ignore_errors=True)
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def summary(result: dict, events: int) -> str:
    """One line: both medians, their ratio, and events/s/core of each (or the mismatch)."""
    gen, hand = result["generated"], result["handwritten"]
    text = (
        f"generated {gen:.2f} s, hand-written {hand:.2f} s, ratio {gen / hand:.2f} "
        f"(rounds {spread(result)}), "
        f"{events / gen / CORES:,.0f} vs {events / hand / CORES:,.0f} events/s/core"
    )
    if cpu := result.get("cpu"):
        text += (
            f"; CPU {cpu['generated']:.2f} vs {cpu['handwritten']:.2f} s, "
            f"ratio {cpu_ratio(result)}"
        )
    return f"FAIL ({result['mismatch']}) {text}" if result["mismatch"] else text


def spread(result: dict) -> str:
    """The lowest and highest ratio of one round's two runs (each round runs both jobs in
    turn, so the two share the machine's state of that moment)."""
    ratios = result.get("round_ratios") or []
    return f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else ""


def cpu_ratio(result: dict) -> str:
    """Generated / hand-written CPU seconds (driver, JVM, Python workers), or "" unmeasured."""
    cpu = result.get("cpu") or {}
    if "generated" not in cpu or not cpu.get("handwritten"):
        return ""
    return f"{cpu['generated'] / cpu['handwritten']:.2f}"


def table(results: dict, builds: dict, events: int) -> str:
    """The report table (one row per workload, then the big program's build)."""
    head = (
        f"{'workload':30s} {'gen s':>7s} {'hand s':>7s} {'ratio':>6s} {'rounds':>9s} {'cpu':>5s} "
        f"{'gen ev/s/c':>11s} {'hand ev/s/c':>11s} {'build s':>8s} {'cli s':>6s}  check"
    )
    title = (
        f"{events:,} events, median of the timed rounds; ratio = generated / hand-written wall "
        "time; rounds = the lowest and highest ratio of one round; cpu = the ratio of CPU "
        "seconds (driver, JVM, Python workers)"
    )
    lines = [title, head]
    for name in [w.name for w in WORKLOADS if w.name in results or w.name in builds]:
        row, build = results.get(name), builds.get(name, {})
        cells = ["", "", "", "", "", "", ""]
        if row:
            gen, hand = row["generated"], row["handwritten"]
            cells = [f"{gen:7.2f}", f"{hand:7.2f}", f"{gen / hand:6.2f}", cpu_ratio(row)]
            cells += [f"{events / gen / CORES:11,.0f}", f"{events / hand / CORES:11,.0f}"]
            cells.append(spread(row))
        check = ("FAIL: " + row["mismatch"][:60] if row["mismatch"] else "equal") if row else ""
        lines.append(
            f"{name:30s} {cells[0]:>7s} {cells[1]:>7s} {cells[2]:>6s} {cells[6]:>9s} "
            f"{cells[3]:>5s} {cells[4]:>11s} {cells[5]:>11s} {build.get('in_process', 0):8.3f} "
            f"{build.get('cli', 0):6.2f}  {check}"
        )
    if "big" in builds:
        big = builds["big"]
        lines.append(
            f"{'program of ' + format(big['lines'], ',') + ' lines':30s} {'':>7s} {'':>7s} "
            f"{'':>6s} {'':>9s} {'':>5s} {'':>11s} {'':>11s} {big['in_process']:8.3f} "
            f"{big['cli']:6.2f}"
        )
    return "\n".join(lines)


def end_on_sigterm() -> None:
    """Let SIGTERM (``timeout``, ``kill``) end the run as an exception does, so the ``finally``
    blocks remove the run's folder (a million events' inputs and outputs: gigabytes)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--only", nargs="*", choices=list(BY_NAME), help="these workloads")
    parser.add_argument("--no-build", action="store_true", help="skip the build times")
    parser.add_argument("--no-run", action="store_true", help="only the build times")
    parser.add_argument("--build-runs", type=int, default=5)
    parser.add_argument("--big-lines", type=int, default=10_000)
    typed = parser.add_mutually_exclusive_group()
    typed.add_argument(
        "--typed", action="store_true", help="the stateless workloads built with --schema"
    )
    typed.add_argument(
        "--typed-source",
        action="store_true",
        help="the same, both jobs reading a typed source (no JSON text in)",
    )
    parser.add_argument(
        "--shape",
        default="",
        choices=list(shapes.EXTRA_FIELDS),
        help="the sample data in this shape (benchmarks/shapes.py)",
    )
    args = parser.parse_args(argv)
    if args.shape and (args.typed or args.typed_source):
        parser.error("--shape reads JSON text: not with --typed or --typed-source")
    some_typed = args.typed or args.typed_source
    names = args.only or [w.name for w in WORKLOADS if w.name in TYPED or not some_typed]
    load, speed = os.getloadavg(), machine_speed()
    builds: dict = {}
    if not args.no_build:
        builds = {n: build_times(BY_NAME[n].trickle, args.build_runs) for n in names}
        with tempfile.TemporaryDirectory() as tmp:
            big, lines = big_program(Path(tmp), args.big_lines)
            builds["big"] = {"lines": lines, **build_times(big, args.build_runs)}
    end_on_sigterm()
    results = (
        {}
        if args.no_run
        else run_workloads(names, args.events, args.runs, args.typed, args.typed_source, args.shape)
    )
    print(table(results, builds, args.events))
    print(f"load average at start {load[0]:.2f}, at end {os.getloadavg()[0]:.2f}")
    speed_end = machine_speed()
    print(
        f"machine speed: a 5M-step Python loop took {speed:.2f} s at start, "
        f"{speed_end:.2f} s at end"
    )
    if args.json:
        report = {
            "events": args.events,
            "runs": args.runs,
            "typed": args.typed,
            "typed_source": args.typed_source,
            "shape": args.shape,
            "cores": CORES,
            "load_start": load,
            "load_end": os.getloadavg(),
            "loop_seconds": [speed, speed_end],
            "host": platform.node(),
            "workloads": results,
            "build": builds,
            "adapted": {w.name: w.adapted for w in WORKLOADS if w.adapted},
        }
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if any(r["mismatch"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
