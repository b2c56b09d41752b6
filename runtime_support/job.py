"""Command line of a generated job:
``python job.py [-i FILE] [-o FILE] [--ingest-ns MODE] [--no-flush]``.

Reads JSON lines (default stdin), runs the job's ``run_pipeline`` on the embedded local Spark (or
the cluster ``spark-submit`` configured) and writes every emitted event, from every output port, in
Tremor's emission order as JSON lines (default stdout) — what ``tremor run`` prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from .session import get_session
from .spark_exec import ordered_union

RunPipeline = Callable[..., dict[str, Any]]  # (spark, inputs, flush_at_end=True)


__all__ = [
    "add_flush_option",
    "add_ingest_ns_option",
    "read_lines",
    "run_job_cli",
]


def read_lines(spark, path: str | None, ingest_ns: str):
    """Load JSON lines as a DataFrame ``seq, value, ingest_ns`` (blank lines are skipped)."""
    if path is None or path == "-":
        lines = [line.rstrip("\r\n") for line in sys.stdin]
    else:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            lines = [line.rstrip("\r\n") for line in handle]
    now = time.time_ns()
    rows = [
        (seq, text, seq if ingest_ns == "index" else now + seq)
        for seq, text in enumerate(line for line in lines if line.strip())
    ]
    return spark.createDataFrame(rows, "seq long, value string, ingest_ns long")


def add_ingest_ns_option(parser: argparse.ArgumentParser) -> None:
    """``--ingest-ns index|wallclock``, shared by every kind of job."""
    parser.add_argument(
        "--ingest-ns",
        choices=("index", "wallclock"),
        default="wallclock",
        help="event i gets ingest_ns = i (Tremor's test harness) or the wall clock",
    )


def add_flush_option(parser: argparse.ArgumentParser) -> None:
    """``--no-flush``: skip the final tick after the last event (Tremor's test harness)."""
    parser.add_argument(
        "--no-flush",
        action="store_true",
        help="do not send the final end-of-input tick (open time windows and timed batches "
        "then stay unflushed, as in Tremor's test harness)",
    )


def run_job_cli(
    run_pipeline: RunPipeline, *, description: str, argv: list[str] | None = None
) -> int:
    """Entry point of ``python job.py``; returns the process exit code."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-i", "--input", help="JSON lines to read (default: stdin)")
    parser.add_argument("-o", "--output", help="where to write emitted events (default: stdout)")
    add_ingest_ns_option(parser)
    add_flush_option(parser)
    args = parser.parse_args(argv)
    spark = get_session()
    inputs = {"in": read_lines(spark, args.input, args.ingest_ns)}
    outputs = run_pipeline(spark, inputs, flush_at_end=not args.no_flush)
    rows = ordered_union(outputs).select("value").toLocalIterator()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for row in rows:
            out.write(row.value + "\n")
    finally:
        if args.output:
            out.close()
    return 0
