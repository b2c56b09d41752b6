"""What building a job's plan costs the driver, per run: the generated job's DataFrame against
the hand-written job's, over the same input (never a unit test).

    python benchmarks/plan_cost.py [--workload real-workflow-throughput-json] [--events 2000]
        [--rounds 10] [--typed-source] [--calls]

Each DataFrame a job builds is a plan the JVM analyses (10-40 ms each on this machine), and each
Column or list a round trip over py4j; on a 1M-event run these are a fixed cost of the job, paid
on every run. Prints, for both jobs built again in one session (the first build warms the JVM's
caches, as a job's second run would): the round trips of one build and the plans it made (with
``--calls`` every command and its time, in order), then medians over ``--rounds`` of building
the output frame and of writing it. ``--typed-source``: the generated job built with the data
set's schema, both jobs reading the suite's typed source (``suite.typed_source_frame``).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import suite  # noqa: E402
from suite_data import BY_NAME, input_frame, write_events  # noqa: E402

#: py4j commands that make a new Dataset (a plan the JVM analyses) or plan one.
PLANS = ("select", "filter", "withColumn", "coalesce", "mapInArrow", "unionByName")
PLANS += ("optimizedPlan", "repartition")


class Calls:
    """Counts the builder thread's py4j commands (not the finalizer's ``m`` frees) and times
    each, while ``on``."""

    def __init__(self) -> None:
        import py4j.clientserver
        import py4j.protocol

        self.log: list[tuple[str, float]] = []
        self.on = False
        connection = py4j.clientserver.ClientServerConnection
        send, thread = connection.send_command, threading.get_ident()
        memory = py4j.protocol.MEMORY_COMMAND_NAME

        def counted(conn, command):
            if not self.on or threading.get_ident() != thread or command.startswith(memory):
                return send(conn, command)
            started = time.perf_counter()
            try:
                return send(conn, command)
            finally:
                lines = command.split("\n")
                name = lines[2] if len(lines) > 2 else lines[0]
                self.log.append((name, time.perf_counter() - started))

        connection.send_command = counted

    def of(self, build) -> list[tuple[str, float]]:
        self.log, self.on = [], True
        try:
            build()
        finally:
            self.on = False
        return self.log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="real-workflow-throughput-json")
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--typed-source", action="store_true")
    parser.add_argument("--calls", action="store_true", help="print every command, in order")
    args = parser.parse_args()

    from compiler.lowering.schema import parse_schema
    from compiler.pipeline import compile_path
    from compiler.testing.loader import load_job
    from runtime_support.spark.session import get_session

    spark = get_session("tremorc-plan-cost")
    workload = BY_NAME[args.workload]
    folder = tempfile.mkdtemp(prefix="tremorc-plan-")
    frame = input_frame(spark, write_events(workload.data, args.events, Path(folder)))
    schema = None
    if args.typed_source:
        frame = suite.typed_source_frame(frame, workload.data)
        schema = parse_schema(suite.SCHEMAS[workload.data])
    module = load_job(compile_path(workload.trickle, schema=schema).job, workload.name)
    hand = importlib.import_module(f"handwritten.{workload.module}")
    jobs = {
        "generated": lambda: module.run_pipeline(spark, {"in": frame})["out"].select("value"),
        "hand-written": lambda: hand.run(frame),
    }
    calls = Calls()
    for name, build in jobs.items():
        build()  # the first build warms the JVM's caches
        log = calls.of(build)
        plans = [(c, t) for c, t in log if c in PLANS]
        spent = sum(t for _, t in log)
        print(f"{name}: {len(log)} round trips ({1000 * spent:.1f} ms), {len(plans)} plans:")
        print("   ", ", ".join(f"{c} {1000 * t:.1f}" for c, t in (log if args.calls else plans)))
    times: dict[str, list[float]] = collections.defaultdict(list)
    for round_ in range(args.rounds):
        for name, build in jobs.items():
            started = time.perf_counter()
            out = build()
            built = time.perf_counter()
            out.write.mode("overwrite").text(f"{folder}/{name}-{round_}")
            times[f"{name} build"].append(built - started)
            times[f"{name} write"].append(time.perf_counter() - built)
    print(f"{args.workload}, {args.events:,} events, medians of {args.rounds} rounds, ms:")
    for name, values in times.items():
        print(f"  {name:22} {1000 * statistics.median(values):7.1f}")


if __name__ == "__main__":
    main()
