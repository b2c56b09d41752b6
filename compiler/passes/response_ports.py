"""Connections from a sink connector's response ports (``elastic``'s ``out``/``err``): what a
batch job runs exactly, or a CompileError at the connect naming why not.

A batch job runs the flow in two passes (runtime_support/flows/answers.py): the pipelines fed by
the real sources, then, from the bulk responses, the pipelines fed by the response ports. That
is Tremor's result when no pipeline downstream of a response port also gets events from a
source (its state would be split between the passes) and none of them feeds a connector that
answers (responses to responses would need a third pass, and a cycle no end). Pipelines are the
unit: a pipeline is downstream when any of its ports is.
"""

from __future__ import annotations

from ..diagnostics import CompileError
from ..ir import flow as F
from ..source import Source

#: Sink kinds whose ``out``/``err`` ports carry responses (the runtime's ``responses`` sinks).
RESPONDERS = frozenset({"dns_client", "elastic", "kv"})
#: Source kinds whose events come in the second pass too: ``metrics`` emits the first pass's
#: final event counts (runtime_support/io/connectors/metrics.py).
SECOND_PASS = RESPONDERS | {"metrics"}


def _downstream(flow: F.Flow, starts: list[F.Connection]) -> set[str]:
    """The pipelines reachable from the connections ``starts`` (through pipelines only)."""
    seen: set[str] = set()
    todo = [c.target.pipeline for c in starts if isinstance(c.target, F.PipelineEnd)]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for conn in flow.connections:
            src, dst = conn.source, conn.target
            if isinstance(src, F.PipelineEnd) and src.pipeline == name:
                if isinstance(dst, F.PipelineEnd):
                    todo.append(dst.pipeline)
    return seen


def check_response_ports(flow: F.Flow, source: Source) -> None:
    """Raise a CompileError at the first response connect a two-pass batch job can not run
    exactly (see the module doc)."""
    kinds = {c.alias: c.kind for c in flow.connectors}

    def answers(conn: F.Connection) -> bool:
        end = conn.source
        return isinstance(end, F.ConnectorEnd) and kinds.get(end.connector) in SECOND_PASS

    replies = [c for c in flow.connections if answers(c)]
    if not replies:
        return
    fed = [c for c in flow.connections if isinstance(c.source, F.ConnectorEnd) and not answers(c)]
    first = _downstream(flow, fed)
    for conn in replies:
        second = _downstream(flow, [conn])
        both = sorted(second & first)
        if both:
            what = "responses" if kinds[conn.source.connector] in RESPONDERS else "metrics events"
            message = (
                f"The pipeline `{both[0]}` gets the {what} of `{conn.source.connector}` and "
                f"events of a source: tremorc runs the {what} in a second pass over the "
                "pipelines they feed, so those pipelines can not also read a source"
            )
            raise CompileError(message, conn.span, source=source)
        if kinds[conn.source.connector] == "metrics":
            _check_sinks(flow, first, second, conn, source)
        for other in flow.connections:
            dst, src = other.target, other.source
            feeds = isinstance(src, F.PipelineEnd) and src.pipeline in second
            if feeds and isinstance(dst, F.ConnectorEnd) and kinds.get(dst.connector) in RESPONDERS:
                message = (
                    f"The responses of `{conn.source.connector}` reach the `{kinds[dst.connector]}`"
                    f" connector `{dst.connector}`, which answers too: tremorc runs one pass of "
                    "responses (no responses to responses)"
                )
                raise CompileError(message, conn.span, source=source)


def _check_sinks(
    flow: F.Flow, first: set[str], second: set[str], conn: F.Connection, source: Source
) -> None:
    """A connector written by the metrics pipelines (``second``) is not also written by the
    pipelines of the first pass: its first-pass events would not be written."""

    def fed(pipes: set[str]) -> set[str]:
        return {
            c.target.connector
            for c in flow.connections
            if isinstance(c.source, F.PipelineEnd)
            and c.source.pipeline in pipes
            and isinstance(c.target, F.ConnectorEnd)
        }

    both = sorted(fed(second) & fed(first))
    if both:
        message = (
            f"The connector `{both[0]}` gets the metrics events of `{conn.source.connector}` "
            "and events of the other pipelines: tremorc writes the metrics in a second pass "
            "after the flow's other sinks, so give the metrics a connector of their own"
        )
        raise CompileError(message, conn.span, source=source)
