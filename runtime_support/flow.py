"""Run a deployed troy flow as one batch Spark job: sources → pipeline graph → sinks.

Every connector source becomes an input stream of one combined pipeline graph (all pipelines of
all deployed flows, see ``compiler/codegen/deploy.py``); every connected sink port an output.
Sources are bounded (see :mod:`runtime_support.connectors`); their events are interleaved
round-robin (``seq = index * n_sources + source``) so the run is deterministic. The outputs are
streamed to the driver in Tremor's emission order and handed to the sinks; the run ends when the
sources are exhausted or, as in Tremor, when the first event reaches an ``exit`` connector (later
events are not delivered).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .connectors import (
    ConnectorSpec,
    InputPathError,
    RunContext,
    build_sink,
    build_source,
    check_readable,
    input_paths,
)
from .job import (
    add_flush_option,
    add_ingest_ns_option,
    add_remote_option,
    add_verbose_option,
    input_error,
    job_session,
)
from .jsonio import decode_json
from .progress import Progress
from .session import under_spark_submit

__all__ = ["ConnectorSpec", "FlowSpec", "flow_main", "main", "run_flow"]

RunPipeline = Callable[..., dict[str, Any]]  # (spark, inputs, flush_at_end=True)


@dataclass(frozen=True)
class FlowSpec:
    """The connectors of the deployed flows and how they meet the graph.

    ``sources``: ``(connector index, port, graph input stream)``; ``sinks``: ``(graph output
    name, connector index, port)``.
    """

    connectors: tuple[ConnectorSpec, ...]
    sources: tuple[tuple[int, str, str], ...]
    sinks: tuple[tuple[str, int, str], ...]


def _inputs(spark: Any, flow: FlowSpec, ctx: RunContext) -> dict[str, Any]:
    """One DataFrame per graph input stream, ``seq`` interleaved across sources."""
    from pyspark.sql import functions as F

    count = max(1, len(flow.sources))
    inputs: dict[str, Any] = {}
    for index, (conn, _port, stream) in enumerate(flow.sources):
        source = build_source(flow.connectors[conn])
        if source is None:
            continue
        df = source.read(spark, ctx)
        inputs[stream] = df.withColumn("seq", F.col("seq") * count + index)
    return inputs


def _ordered_outputs(outputs: dict[str, Any], names: list[str]) -> Any:
    """All sink outputs as one DataFrame ``sink, value`` in emission order (None if none)."""
    from pyspark.sql import functions as F

    frames = [outputs[n].withColumn("sink", F.lit(n)) for n in names if n in outputs]
    if not frames:
        return None
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result.orderBy("seq", "sub").select("sink", "value")


def run_flow(
    spark: Any,
    flow: FlowSpec,
    run_pipeline: RunPipeline,
    ctx: RunContext,
    flush_at_end: bool = True,
) -> int:
    """Run ``flow`` to completion; returns the exit code (0)."""
    inputs = _inputs(spark, flow, ctx)
    if not inputs:
        return 0
    sinks = {name: (build_sink(flow.connectors[c]), port) for name, c, port in flow.sinks}
    live = {name: sink for name, (sink, _) in sinks.items() if sink is not None}
    with Progress(spark, to_stdout=not ctx.stdout_path) as progress:
        outputs = run_pipeline(spark, inputs, flush_at_end=flush_at_end)
        ordered = _ordered_outputs(outputs, sorted(live))
        if ordered is None:
            return 0
        for sink in live.values():
            sink.open(ctx)
        try:
            for row in ordered.toLocalIterator():
                sink = live[row.sink]
                progress.add()
                sink.write(sinks[row.sink][1], decode_json(row.value))
                if sink.stops:
                    ctx.exited = True
                    break
        finally:
            for sink in live.values():
                sink.close()
    return 0


def server_files(args: argparse.Namespace) -> bool:
    """File connectors' paths are read by Spark elsewhere (spark-submit or a Spark Connect
    server): they are not checked here."""
    return under_spark_submit() or bool(args.remote or os.environ.get("SPARK_REMOTE"))


def flow_main(
    flow: FlowSpec, run_pipeline: RunPipeline, *, description: str, argv: list[str] | None = None
) -> int:
    """Entry point of a flow job:
    ``python job.py [-i IN] [-o OUT] [--ticks N] [--ingest-ns M] [--no-flush]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-i", "--input", help="what stdio sources read (default: stdin)")
    parser.add_argument("-o", "--output", help="where stdio sinks write (default: stdout)")
    parser.add_argument(
        "--ticks", type=int, default=10, help="events each metronome emits (default 10)"
    )
    add_ingest_ns_option(parser)
    add_flush_option(parser)
    add_verbose_option(parser)
    add_remote_option(parser)
    args = parser.parse_args(argv)
    ctx = RunContext(
        ticks=max(0, args.ticks),
        stdin_path=args.input,
        stdout_path=args.output,
        ingest_ns=args.ingest_ns,
    )
    try:
        for spec in flow.connectors:
            for path in input_paths(spec, ctx, files=not server_files(args)):
                check_readable(path)
        spark = job_session(args.verbose, remote=args.remote)
        return run_flow(spark, flow, run_pipeline, ctx, flush_at_end=not args.no_flush)
    except InputPathError as err:
        return input_error(err)
    except (ValueError, OSError) as err:
        import sys

        print(f"Error: {err}", file=sys.stderr)
        return 1


main = flow_main
