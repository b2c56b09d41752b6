"""Where a typed job's time goes: the typed plan of a stateless workload against its hand-written
job, the Python path and three variants of the plan that each leave one part out (never a unit
test; the variants are not exact, they only time the parts).

    python benchmarks/typed_breakdown.py [--workload patch] [--events 1000000] [--runs 2]
    python benchmarks/typed_breakdown.py --typed-source [--workload real-workflow-throughput-json]

Variants: ``no-udf`` (the Python UDF replaced by NULL: only right when every line fits),
``no-fit`` (no fit check: a plan that reads no field then parses nothing), ``split`` (a native
and a Python branch, each parsing the input). One SparkSession, local[2], interleaved rounds as
in ``suite.py``; medians and their ratio to the hand-written job.

``--typed-source``: both jobs read the suite's typed source (``suite.typed_source_frame``), and
the parts are the generated job, its native branch alone, its Python branch alone (the rows
the plan cannot decide), the hand-written job, and the hand-written job with the rewrite of
Jackson's upper-case escapes to Tremor's (``native_typed.jackson_escapes_as_tremor``): the
work the generated job does beyond the hand-written one for byte-exact output; then the floor
(the source read, a constant text written per row), ``to_json`` of all the source's columns
alone, whose difference is Spark's JSON writer's share of a typed job, and ``tremor_json`` of
them alone (``runtime_support/spark/jvm_json``; the generated job writes with it when the session
has it, with ``to_json`` and the rewrite otherwise: ``TREMORC_JVM_JSON=off``). Medians of wall and
CPU seconds (driver, JVM and Python workers, ``cpu_clock``).
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import suite  # noqa: E402
from suite_data import BY_NAME, input_frame, write_events  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="patch", choices=suite.TYPED)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--typed-source", action="store_true", help="the typed source's parts")
    args = parser.parse_args()
    if args.typed_source:
        typed_source_parts(args.workload, args.events, args.runs)
        return

    from pyspark.sql import functions as F

    import runtime_support.spark.typed_plan as typed
    from compiler.lowering.schema import parse_schema
    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job
    from runtime_support.spark.session import get_session

    spark = get_session("tremorc-typed-breakdown")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 << 20))
    workload = BY_NAME[args.workload]
    folder = tempfile.mkdtemp(prefix="tremorc-typed-")
    frame = input_frame(spark, write_events(workload.data, args.events, Path(folder)))
    schema = parse_schema(suite.SCHEMAS[workload.data])
    module = load_job(compile_path(workload.trickle, schema=schema).job, workload.name)
    plain = {"python_rows": typed.python_rows, "typed_columns": typed.typed_columns}
    apply_native = typed.apply_native

    def no_udf(spec, event):
        return F.lit(None).cast(typed.ROWS_TYPE)

    def no_fit(tree, ev, text):
        return typed._Build(ev, text).tree(tree)

    def split(spec, events, streaming=None, inputs=None):
        stream, ddl, tree = spec.typed
        parsed = events.select(*typed.EVENT_COLUMNS, F.from_json("value", ddl).alias("_ev"))
        to_python, port, out = typed.typed_columns(tree, F.col("_ev"), F.col("value"))
        to_python = to_python | (F.col("stream") != F.lit(stream))
        decided = parsed.select(
            *typed.EVENT_COLUMNS, to_python.alias("_py"), port.alias("_port"), out.alias("_out")
        )
        native = decided.filter(~F.col("_py") & F.col("_port").isNotNull()).select(
            "seq", *typed.native_row_columns()
        )
        return decided.filter(F.col("_py")).select(*typed.EVENT_COLUMNS), native

    def typed_run(**patched):
        def run(out: str) -> None:
            for name, fn in {**plain, **patched}.items():
                setattr(typed, name, fn)
            typed.apply_native = patched.get("apply_native", apply_native)  # read_native's call
            outputs = module.run_pipeline(spark, {"in": frame})
            outputs["out"].select("value").write.mode("overwrite").text(out)

        return run

    fns = {
        "hand-written": suite.handwritten_runner(workload, frame),
        "typed plan": typed_run(),
        "no-udf": typed_run(python_rows=no_udf),
        "no-fit": typed_run(typed_columns=no_fit),
        "split": typed_run(apply_native=split),
        "python path": suite.generated_runner(spark, workload, frame, typed=False),
    }
    times: dict[str, list[float]] = {name: [] for name in fns}
    suite.end_on_sigterm()
    try:
        for round_ in range(args.runs + 1):  # round 0 warms up
            for name, fn in fns.items():
                started = time.perf_counter()
                fn(f"{folder}/{name}-{round_}")
                if round_:
                    times[name].append(time.perf_counter() - started)
                suite.fresh_cache(spark, frame)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # its inputs and outputs: gigabytes
    hand = statistics.median(times["hand-written"])
    print(f"{args.workload}, {args.events:,} events, median of {args.runs}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:14} {median:7.2f} s  ratio {median / hand:.2f}")


def typed_source_parts(name: str, events: int, runs: int) -> None:
    """The typed-source job's parts (see the module docstring), timed and printed."""
    from cpu_clock import spark_cpu_seconds
    from pyspark.sql import functions as F

    from compiler.lowering.schema import parse_schema
    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job
    from runtime_support.spark.jvm_json import FUNCTION, has_tremor_json
    from runtime_support.spark.session import get_session
    from runtime_support.spark.typed_plan import apply_native, jackson_escapes_as_tremor

    spark = get_session("tremorc-typed-source-breakdown")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(16 << 20))
    workload = BY_NAME[name]
    folder = tempfile.mkdtemp(prefix="tremorc-typed-")
    text = input_frame(spark, write_events(workload.data, events, Path(folder)))
    source = suite.typed_source_frame(text, workload.data)
    schema = parse_schema(suite.SCHEMAS[workload.data])
    module = load_job(compile_path(workload.trickle, schema=schema).job, workload.name)
    hand = importlib.import_module(f"handwritten.{workload.module}")

    def branch(index: int):
        return lambda: apply_native(module.GRAPH, None, None, {"in": source})[index].select("value")

    def escaped():
        value = jackson_escapes_as_tremor(F.col("value")).alias("value")
        return hand.run(source).select(value)

    parts = {
        "generated": lambda: module.run_pipeline(spark, {"in": source})["out"].select("value"),
        "native branch": branch(1),
        "python branch": branch(0),
        "hand-written": lambda: hand.run(source),
        "hand+escapes": escaped,
        # The floor and Spark's JSON writer alone: the typed source read and one text per row
        # written, without and with ``to_json`` of all its columns (no program logic).
        "read+write": lambda: source.select(F.lit("{}").alias("value")),
        "to_json only": lambda: source.select(F.to_json(F.struct(*source.columns)).alias("value")),
    }
    if has_tremor_json(spark):
        parts["tremor_json only"] = lambda: source.select(
            F.call_function(FUNCTION, F.struct(*source.columns)).alias("value")
        )
    wall: dict[str, list[float]] = {part: [] for part in parts}
    cpu: dict[str, list[float]] = {part: [] for part in parts}
    suite.end_on_sigterm()
    try:
        for round_ in range(runs + 1):  # round 0 warms up
            for part, frame in parts.items():
                cpu_started, started = spark_cpu_seconds(spark), time.perf_counter()
                frame().write.mode("overwrite").text(f"{folder}/{part}-{round_}")
                if round_:
                    wall[part].append(time.perf_counter() - started)
                    if cpu_started is not None:
                        cpu[part].append(spark_cpu_seconds(spark) - cpu_started)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    hand_wall = statistics.median(wall["hand-written"])
    hand_cpu = statistics.median(cpu["hand-written"]) if cpu["hand-written"] else None
    print(f"{name}, typed source, {events:,} events, median of {runs}")
    for part in parts:
        median_wall = statistics.median(wall[part])
        line = f"{part:16} {median_wall:7.2f} s  ratio {median_wall / hand_wall:.2f}"
        if hand_cpu:
            median_cpu = statistics.median(cpu[part])
            line += f"  CPU {median_cpu:6.2f} s  ratio {median_cpu / hand_cpu:.2f}"
        print(line)


if __name__ == "__main__":
    main()
