"""Spark glue of a job's plan: the input columns, the per-partition ``mapInArrow`` mapper that
runs a pipeline graph over Arrow batches, and the emission-order union of the outputs. The plan
itself (partitioning, ordering, the stage, the per-port outputs) is rendered in each job.

Input contract: each input DataFrame has a JSON-text column ``value`` and optionally ``ingest_ns``
(long), ``seq`` (long, input order) and ``origin`` (the event's origin URI). The mapper's rows
are :data:`OUTPUT_SCHEMA`; ordering by ``(seq, sub)`` gives Tremor's emission order.

End of input: with ``flush_at_end`` the mapper sends one final tick (``now`` = u64::MAX) after
the last event of its partition; its outputs get ``seq`` = last input seq + 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .graph import END_OF_INPUT, Graph, GraphSpec, run_events
from .jsonio import decode_json, encode_json

__all__ = [
    "OUTPUT_SCHEMA",
    "event_columns",
    "make_mapper",
    "ordered_union",
]

OUTPUT_SCHEMA = "seq long, sub int, port string, value string"
INVALID_JSON = "Invalid JSON input: {reason}"


def make_mapper(spec: GraphSpec, flush_at_end: bool = False):
    """The ``mapInArrow`` function for ``spec``: one fresh graph per partition, events in order;
    with ``flush_at_end`` a final tick at u64::MAX follows the partition's last event."""

    def mapper(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        last_seq: list[int] = []

        def events() -> Iterator[tuple[str, int, Any, int, str | None]]:
            for batch in batches:
                cols = batch.to_pydict()
                origins = cols.get("origin") or [None] * batch.num_rows
                for name, seq, text, ns, origin in zip(
                    cols["stream"],
                    cols["seq"],
                    cols["value"],
                    cols["ingest_ns"],
                    origins,
                    strict=True,
                ):
                    last_seq[:] = [seq]
                    try:
                        value = decode_json(text)
                    except Exception as err:  # noqa: BLE001 - any decoder failure is bad input
                        bad.append((seq, INVALID_JSON.format(reason=err), text))
                        continue
                    yield name, seq, value, ns if ns is not None else seq, origin

        bad: list[tuple[int, str, str]] = []
        rows: dict[str, list[Any]] = {"seq": [], "sub": [], "port": [], "value": []}
        graph = Graph(spec)
        for seq, sub, port, value in _with_final_tick(
            run_events(spec, events(), graph), graph, last_seq, flush_at_end
        ):
            _flush_bad(bad, rows)
            rows["seq"].append(seq)
            rows["sub"].append(sub)
            rows["port"].append(port)
            rows["value"].append(_encoded(value))
            if len(rows["seq"]) >= 4096:
                yield pa.RecordBatch.from_pydict(rows, schema=_arrow_schema())
                rows = {"seq": [], "sub": [], "port": [], "value": []}
        _flush_bad(bad, rows)
        if rows["seq"]:
            yield pa.RecordBatch.from_pydict(rows, schema=_arrow_schema())

    return mapper


def _with_final_tick(
    outputs: Iterator[tuple[int, int, str, Any]],
    graph: Graph,
    last_seq: list[int],
    flush_at_end: bool,
) -> Iterator[tuple[int, int, str, Any]]:
    """``outputs``, then (if asked and the partition had events) the outputs of the final tick,
    numbered after the last input line (``seq`` = last seq + 1)."""
    yield from outputs
    if flush_at_end and last_seq:
        for sub, (port, value) in enumerate(graph.tick(END_OF_INPUT)):
            yield last_seq[0] + 1, sub, port, value


def _encoded(value: Any) -> str:
    """JSON text of an emitted value; a value that cannot be encoded becomes an error record
    (the event is reported, never silently lost)."""
    try:
        return encode_json(value)
    except Exception as err:  # noqa: BLE001 - see docstring
        return encode_json(
            {"error": f"Can not encode the emitted value: {err}", "event": repr(value)}
        )


def _flush_bad(bad: list[tuple[int, str, str]], rows: dict[str, list[Any]]) -> None:
    """Undecodable input lines go to ``err`` with the reason and the raw text."""
    for seq, reason, text in bad:
        rows["seq"].append(seq)
        rows["sub"].append(0)
        rows["port"].append("err")
        rows["value"].append(encode_json({"error": reason, "event": text}))
    bad.clear()


def _arrow_schema():
    import pyarrow as pa

    return pa.schema(
        [("seq", pa.int64()), ("sub", pa.int32()), ("port", pa.string()), ("value", pa.string())]
    )


EVENT_SCHEMA = "seq long, value string, ingest_ns long, origin string"


def event_columns(spark: Any, df: Any):
    """``df`` as the columns a job's plan reads: ``seq, value, ingest_ns, origin`` (missing ones
    derived: ``seq`` from the DataFrame's own order, ``ingest_ns`` and ``origin`` null); an
    absent stream (``None``) is an empty DataFrame."""
    from pyspark.sql import functions as F

    if df is None:
        return spark.createDataFrame([], EVENT_SCHEMA)
    if "seq" not in df.columns:
        df = df.withColumn("seq", F.monotonically_increasing_id())
    if "ingest_ns" not in df.columns:
        df = df.withColumn("ingest_ns", F.lit(None).cast("long"))
    if "origin" not in df.columns:
        df = df.withColumn("origin", F.lit(None).cast("string"))
    return df.select(
        F.col("seq").cast("long").alias("seq"),
        F.col("value").cast("string").alias("value"),
        F.col("ingest_ns").cast("long").alias("ingest_ns"),
        F.col("origin").cast("string").alias("origin"),
    )


def ordered_union(outputs: dict[str, Any]):
    """All output DataFrames as one, in emission order (``seq``, ``sub``)."""
    frames = list(outputs.values())
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result.orderBy("seq", "sub")
