"""The command line of a flow job: a batch run (:mod:`runtime_support.flows.batch`) or, with
``--stream``, a streaming query (:mod:`runtime_support.flows.streaming`)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any

from runtime_support.flows.args import ENV_PREFIX, ArgError, bind_args, redacted, secret_masks
from runtime_support.flows.batch import FlowSpec, RunPipeline, flow_conf, run_flow
from runtime_support.flows.connectors import check_inputs
from runtime_support.flows.streaming import stream_flow_main
from runtime_support.io.connectors.base import RunContext
from runtime_support.spark.job_cli import (
    add_flush_option,
    add_ingest_ns_option,
    add_spark_options,
    add_verbose_option,
    input_error,
    job_session,
    show_conf,
)
from runtime_support.spark.job_io import InputPathError
from runtime_support.spark.session import under_spark_submit
from runtime_support.spark.stream_job import StreamError, add_stream_options, check_batch_args

__all__ = ["flow_main"]


def server_files(args: argparse.Namespace) -> bool:
    """File connectors' paths are read by Spark elsewhere (spark-submit or a Spark Connect
    server): they are not checked here."""
    return under_spark_submit() or bool(args.remote or os.environ.get("SPARK_REMOTE"))


def flow_main(
    flow: FlowSpec,
    run_pipeline: RunPipeline,
    *,
    description: str,
    argv: list[str] | None = None,
    graph: tuple[Any, Any] | None = None,
) -> int:
    """Entry point of a flow job: ``python job.py [-i IN] [-o OUT] [--ticks N] [--ingest-ns M]
    [--no-flush] [--verbose] [--arg NAME=VALUE]... [--master URL] [--conf K=V]... [--partitions
    N] [--show-conf]`` (``--arg``: :mod:`runtime_support.flows.args`, exit 2 on a bad one);
    ``--stream --checkpoint DIR …``: :mod:`runtime_support.flows.streaming` (``graph``: the job's
    ``(GRAPH, STAGES)``, what the checkpoint's state means)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-i", "--input", help="what stdio sources read (default: stdin)")
    parser.add_argument("-o", "--output", help="where stdio sinks write (default: stdout)")
    parser.add_argument(
        "--ticks",
        type=int,
        help="events each metronome emits, or each server source (udp, tcp, unix_socket, ws, http) "
        "receives in a batch run (default 10; a stream: metronome ticks per run)",
    )
    add_ingest_ns_option(parser)
    add_flush_option(parser)
    add_verbose_option(parser)
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"set a flow arg at start (repeatable; over ${ENV_PREFIX}<NAME>, over the built "
        "value); VALUE is read as JSON where it parses, else as a string",
    )
    add_spark_options(parser)
    add_stream_options(parser)
    args = parser.parse_args(argv)
    try:
        connectors = bind_args(flow.connectors, flow.args, args.arg, os.environ)
    except ArgError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    masks = secret_masks(flow.args, args.arg, os.environ)
    args.arg = []  # the values live only in the connector specs from here on
    flow = dataclasses.replace(flow, connectors=connectors)
    with redacted(sys, "stderr", masks):
        return _run(parser, args, flow, run_pipeline, graph, masks)


def _run(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    flow: FlowSpec,
    run_pipeline: RunPipeline,
    graph: tuple[Any, Any] | None,
    masks: dict[str, str],
) -> int:
    """The run of :func:`flow_main` once the args are bound (stderr already redacted)."""
    ctx = RunContext(
        ticks=10 if args.ticks is None else max(0, args.ticks),
        stdin_path=args.input,
        stdout_path=args.output,
        ingest_ns=args.ingest_ns,
        partitions=args.partitions,
    )
    if args.stream:
        return stream_flow_main(flow, run_pipeline, args, ctx, graph)
    try:
        check_batch_args(args)
    except StreamError as err:
        parser.error(str(err))
    try:
        for spec in flow.connectors:
            check_inputs(spec, ctx, files=not server_files(args))
        conf = flow_conf(args, flow)
        spark = job_session(args.verbose, args.master, conf, remote=args.remote)
        if args.show_conf:
            with redacted(sys, "stdout", masks):
                show_conf(spark, conf, args.remote)
            return 0
        return run_flow(spark, flow, run_pipeline, ctx, flush_at_end=not args.no_flush)
    except InputPathError as err:
        return input_error(err)
    except (ValueError, OSError) as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
