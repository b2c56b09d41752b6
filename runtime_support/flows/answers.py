"""The second pass of a batch flow: a sink connector's responses (``elastic``'s ``out``/``err``)
as the input streams of the pipelines its response ports feed.

Pass one runs the graph on the sources and writes every sink not fed by responses; a sink that
answers and whose ports are connected (``FlowSpec.sources`` names them) yields its response
rows ``seq, sub, port, value, meta`` instead, computed once (``localCheckpoint``: the requests
are sent once, whatever reads them). Pass two runs the graph on those rows and writes the sinks
``FlowSpec.answered`` names. The compiler (compiler/passes/response_ports.py) guarantees no
pipeline is in both passes. Each response stream is numbered in the emission order of the
requests (``(seq, sub)``); its ``ingest_ns`` follows ``--ingest-ns`` as a source's does; its
``origin`` is null (Tremor's is ``elastic://<cluster name>``).

A sink fed by both passes (an ``err`` file that gets a source pipeline's errors and the
responses' pipeline's) gets the events of pass one first, then those of pass two: pass two's
``seq`` is shifted by :data:`PASS_TWO` (pass one's are below it) when the two are merged.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.base import RunContext, factory

__all__ = ["PASS_TWO", "answer_ports", "merge_passes", "response_inputs"]

#: Added to the ``seq`` of pass two's events where a sink also gets pass one's (whose ``seq``,
#: a source position times the number of sources, stays below it).
PASS_TWO = 1 << 62


def answer_ports(flow: Any) -> dict[int, list[tuple[str, str]]]:
    """Connector index → the ``(port, input stream)`` of its connected response ports (only
    connectors whose sink answers, see :data:`compiler.passes.response_ports.RESPONDERS`)."""
    found: dict[int, list[tuple[str, str]]] = {}
    for conn, port, stream in flow.sources:
        # The sink class, not a sink: a source-only connector's config (a postgres `query`)
        # may not make a sink at all.
        if hasattr(factory(flow.connectors[conn].sink), "responses"):
            found.setdefault(conn, []).append((port, stream))
    return found


def response_inputs(responses: Any, ports: list[tuple[str, str]], ctx: RunContext) -> dict:
    """The input DataFrames (``seq, value, ingest_ns, origin, meta``) of the response ports
    ``ports`` from the response rows (sent once: checkpointed here)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    done = responses.localCheckpoint(eager=True)
    order = Window.orderBy("seq", "sub")
    inputs = {}
    for port, stream in ports:
        rows = done.filter(F.col("port") == port)
        seq = F.row_number().over(order) - 1
        numbered = rows.withColumn("seq", seq)
        ingest = F.col("seq") if ctx.ingest_ns == "index" else F.col("seq") + F.lit(ctx.start_ns)
        inputs[stream] = numbered.select(
            "seq",
            "value",
            ingest.alias("ingest_ns"),
            F.lit(None).cast("string").alias("origin"),
            "meta",
        )
    return inputs


def merge_passes(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """The frames of the sinks ``second`` (pass two) and ``first`` (pass one, the sinks both
    passes feed): pass one's events, then pass two's (``seq`` shifted by :data:`PASS_TWO`)."""
    from pyspark.sql import functions as F

    merged = dict(first)
    for name, frame in second.items():
        later = frame.withColumn("seq", F.col("seq") + F.lit(PASS_TWO))
        merged[name] = (
            later if name not in first else first[name].unionByName(later, allowMissingColumns=True)
        )
    return merged


def check_stream(flow: Any) -> None:
    """A streaming flow rejects connected response ports (StreamError naming the connector):
    one streaming query can not run a micro-batch's responses through the pipelines they feed
    (their state is in the query's state store, and a query does not read its own output)."""
    from runtime_support.spark.stream_job import StreamError

    for conn, ports in sorted(answer_ports(flow).items()):
        spec = flow.connectors[conn]
        raise StreamError(
            f"the `{ports[0][0]}` port of the {spec.kind} connector `{spec.alias}` (its "
            "responses) can not feed a pipeline in a streaming flow: run the flow in batch, or "
            "leave its response ports unconnected (the sink then streams, at least once)"
        )
