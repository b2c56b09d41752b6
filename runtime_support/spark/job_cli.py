"""Command line of a generated job:
``python job.py [-i PATH...] [-o DIR] [--ingest-ns MODE] [--no-flush] [--verbose]``
``[--master URL | --remote sc://HOST:PORT] [--conf KEY=VALUE]... [--partitions N] [--show-conf]``.

Reads JSON lines with Spark's reader from ``-i`` (:mod:`runtime_support.spark.job_io`; default
stdin, through the driver: for small runs), runs the job's ``run_pipeline`` on the embedded local
Spark (or the cluster ``spark-submit`` configured, or the Spark Connect server of ``--remote``,
whose file system then holds the ``-i`` and ``-o`` paths) and writes each output port's events with
Spark's writer to ``DIR/<port>/`` (``-o``), or every emitted event, all ports, in Tremor's
emission order as JSON lines to stdout (through the driver: for small runs) — what ``tremor run``
prints.

As a user runs it: an input that cannot be read is one line on stderr naming it, exit code 2;
Spark's own output stays off stderr unless ``--verbose``; on a terminal a status line shows the
progress (:mod:`runtime_support.spark.progress`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from runtime_support.spark.job_io import (
    InputPathError,
    absolute,
    check_paths,
    check_readable,
    read_files,
    write_ports,
)
from runtime_support.spark.plan import ordered_union
from runtime_support.spark.progress import Progress
from runtime_support.spark.session import (
    get_session,
    is_connect,
    keep_log,
    set_log_level,
    spark_log,
    under_spark_submit,
)
from runtime_support.spark.stream_job import (
    STREAM_CONF,
    StreamError,
    add_stream_options,
    check_args,
    check_batch_args,
    run_stream,
)

RunPipeline = Callable[..., dict[str, Any]]  # (spark, inputs, flush_at_end=True)


__all__ = [
    "add_flush_option",
    "add_ingest_ns_option",
    "add_spark_options",
    "add_verbose_option",
    "input_error",
    "job_session",
    "read_lines",
    "run_job_cli",
]

USAGE_ERROR = 2  # the exit code of an unreadable input, as argparse's for a bad argument


def read_lines(spark, path: str | None, ingest_ns: str):
    """Load JSON lines as a DataFrame ``seq, value, ingest_ns`` (blank lines are skipped);
    :class:`InputPathError` when ``path`` cannot be read."""
    if path is None or path == "-":
        lines = [line.rstrip("\r\n") for line in sys.stdin]
    else:
        check_readable(path)
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


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    """``--verbose``: let Spark's banner, warnings and log lines through to stderr."""
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show Spark's own output on stderr"
    )


def add_spark_options(parser: argparse.ArgumentParser) -> None:
    """``--master`` or ``--remote``, ``--conf KEY=VALUE`` (repeatable), ``--partitions N`` and
    ``--show-conf``."""
    group = parser.add_argument_group("Spark (under spark-submit, the launcher's options win)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--master", help="Spark master URL of the embedded session (local[2])")
    add_remote_option(where)
    group.add_argument(
        "--conf",
        action="append",
        default=[],
        type=_conf_pair,
        metavar="KEY=VALUE",
        help="a Spark configuration property (repeatable)",
    )
    group.add_argument(
        "--partitions",
        type=_positive,
        metavar="N",
        help="input partitions and spark.sql.shuffle.partitions (over --conf)",
    )
    group.add_argument(
        "--show-conf",
        action="store_true",
        help="print the session's master and the properties given, then exit",
    )


def add_remote_option(parser: Any) -> None:
    """``--remote sc://HOST:PORT``: run on a Spark Connect server (``SPARK_REMOTE`` when
    neither it nor ``--master`` is given)."""
    parser.add_argument(
        "--remote",
        metavar="sc://HOST:PORT",
        help="run on this Spark Connect server (default: $SPARK_REMOTE if set); -i/-o paths "
        "are then the server's",
    )


def spark_conf(args: argparse.Namespace) -> dict[str, str]:
    """The Spark properties the command line asks for (``--partitions`` over ``--conf``)."""
    conf = dict(args.conf)
    if args.partitions is not None:
        conf["spark.sql.shuffle.partitions"] = str(args.partitions)
    return conf


def show_conf(spark, conf: dict[str, str], remote: str | None = None) -> None:
    """``key=value`` lines on stdout: the master (and the Spark Connect server the session is a
    client of), then each property given, as the session has it."""
    print(f"spark.master={spark.conf.get('spark.master')}")
    if remote is not None and is_connect(spark):
        print(f"spark.remote={remote}")
    for key in sorted(conf):
        print(f"{key}={spark.conf.get(key, None)}")


def _conf_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return number


def job_session(
    verbose: bool,
    master: str | None = None,
    conf: dict[str, str] | None = None,
    remote: str | None = None,
):
    """The job's SparkSession (``master``/``conf``/``remote`` as :func:`get_session`): quiet
    (the JVM's stderr goes to a log file) unless ``verbose``."""
    spark = get_session(quiet=not verbose, master=master, conf=conf, remote=remote)
    if verbose:
        set_log_level(spark, "WARN")
    return spark


def remote_url(args: argparse.Namespace) -> str | None:
    """The Spark Connect server the job runs on: ``--remote``, else ``SPARK_REMOTE`` when no
    ``--master`` is given; None under spark-submit (its session wins)."""
    if under_spark_submit():
        return None
    if args.remote or args.master is not None:
        return args.remote
    return os.environ.get("SPARK_REMOTE") or None


def input_error(err: InputPathError) -> int:
    """Report an unreadable input in one line; the exit code."""
    print(f"Error: {err}", file=sys.stderr)
    return USAGE_ERROR


def add_flush_option(parser: argparse.ArgumentParser) -> None:
    """``--no-flush``: skip the final tick after the last event (Tremor's test harness)."""
    parser.add_argument(
        "--no-flush",
        action="store_true",
        help="do not send the final end-of-input tick (open time windows and timed batches "
        "then stay unflushed, as in Tremor's test harness)",
    )


def run_job_cli(
    run_pipeline: RunPipeline,
    *,
    description: str,
    argv: list[str] | None = None,
    graph: tuple[Any, Any] | None = None,
) -> int:
    """Entry point of ``python job.py``; returns the process exit code. ``graph``: the job's
    ``(GRAPH, STAGES)`` (what a streaming checkpoint's state means)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "-i",
        "--input",
        nargs="+",
        action="extend",
        metavar="PATH",
        help="JSON lines files, folders or globs read by Spark, .gz/.bz2 too (default: stdin, "
        "through the driver: for small runs)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="write each output port's events to DIR/<port>/ as JSON-lines part files, each in "
        "emission order (default: stdout, all ports in emission order, through the driver)",
    )
    add_ingest_ns_option(parser)
    add_flush_option(parser)
    add_verbose_option(parser)
    add_spark_options(parser)
    add_stream_options(parser)
    args = parser.parse_args(argv)
    conf = spark_conf(args)
    if args.stream:
        return _stream(run_pipeline, args, conf, graph)
    try:
        check_batch_args(args)
    except StreamError as err:
        parser.error(str(err))
    paths = [path for path in args.input or [] if path != "-"]
    if paths and len(paths) != len(args.input):
        parser.error("-i -: stdin can not be read together with files")
    remote = remote_url(args)
    if remote:  # the server resolves paths: a relative one means the client's folder
        paths, args.output = [absolute(p) for p in paths], args.output and absolute(args.output)
    try:
        check_paths(paths, local=remote is None)
        spark = job_session(args.verbose, args.master, conf, args.remote or remote)
        if args.show_conf:
            show_conf(spark, conf, remote)
            return 0
        if paths:
            events = read_files(spark, paths, args.ingest_ns)
        else:
            events = read_lines(spark, None, args.ingest_ns)
    except InputPathError as err:
        return input_error(err)
    if args.partitions is not None:
        events = events.repartition(args.partitions)
    inputs = {"in": events}
    try:
        with Progress(spark, to_stdout=not args.output) as progress:
            outputs = run_pipeline(spark, inputs, flush_at_end=not args.no_flush)
            if args.output:
                write_ports(outputs, args.output, progress)
            else:
                _write(ordered_union(outputs).select("value").toLocalIterator(), progress)
    except BaseException:
        _name_log()
        raise
    return 0


def _stream(
    run_pipeline: RunPipeline,
    args: argparse.Namespace,
    conf: dict[str, str],
    graph: tuple[Any, Any] | None,
) -> int:
    """``--stream``: the job as a checkpointed streaming query (see
    runtime_support.spark.stream_job)."""
    from runtime_support.spark.state_store import state_fingerprint

    try:
        check_args(args)
        spark = job_session(args.verbose, args.master, {**STREAM_CONF, **conf}, args.remote)
        fingerprint = state_fingerprint(*graph) if graph is not None else ""
        return run_stream(spark, run_pipeline, args, fingerprint)
    except StreamError as err:
        print(f"Error: {err}", file=sys.stderr)
        return USAGE_ERROR
    except BaseException:
        _name_log()
        raise


def _write(rows: Any, progress: Progress) -> None:
    """Every emitted value, one JSON line each, to stdout (through the driver: small runs);
    a reader that stops early (``| head``) ends the output quietly, as Unix tools do."""
    try:
        for row in rows:
            progress.add()
            sys.stdout.write(row.value + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's exit flush must not fail again


def _name_log() -> None:
    """A failed run keeps the quiet JVM's log and says where it is."""
    log = spark_log()
    if log is not None:
        keep_log()
        print(f"tremorc: Spark's log is in {log}", file=sys.stderr)
