"""Run a pipeline graph over Spark DataFrames with Arrow-batched Python (``mapInArrow``).

Input contract: each input DataFrame has a JSON-text column ``value`` and optionally ``ingest_ns``
(long), ``seq`` (long, input order) and ``origin`` (the event's origin URI). Output: one
DataFrame per output name with columns ``value`` (JSON text), ``seq`` and ``sub``; ordering by
``(seq, sub)`` gives Tremor's emission order for a single input stream.

End of input: a stateful graph gets one final tick (``now`` = u64::MAX) after the last event of
its partition, unless ``flush_at_end`` is off; its outputs get ``seq`` = last input seq + 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .graph import END_OF_INPUT, Graph, GraphSpec, run_events
from .jsonio import decode_json, encode_json
from .native import apply_native_prefilter

__all__ = [
    "OUTPUT_SCHEMA",
    "make_mapper",
    "ordered_union",
    "prepare_inputs",
    "run_graph",
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


def prepare_inputs(inputs: dict[str, Any], streams: tuple[str, ...]):
    """Union the input DataFrames into ``stream, seq, value, ingest_ns`` (missing columns are
    derived: ``seq`` from the DataFrame's own order, ``ingest_ns`` null)."""
    from pyspark.sql import functions as F

    frames = []
    for stream in streams:
        if stream not in inputs:
            continue
        df = inputs[stream]
        if "seq" not in df.columns:
            df = df.withColumn("seq", F.monotonically_increasing_id())
        if "ingest_ns" not in df.columns:
            df = df.withColumn("ingest_ns", F.lit(None).cast("long"))
        if "origin" not in df.columns:
            df = df.withColumn("origin", F.lit(None).cast("string"))
        frames.append(
            df.select(
                F.lit(stream).alias("stream"),
                F.col("seq").cast("long").alias("seq"),
                F.col("value").cast("string").alias("value"),
                F.col("ingest_ns").cast("long").alias("ingest_ns"),
                F.col("origin").cast("string").alias("origin"),
            )
        )
    if not frames:
        raise ValueError(f"no input DataFrame for any of the streams {', '.join(streams)}")
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


def run_graph(spec: GraphSpec, inputs: dict[str, Any], flush_at_end: bool = True) -> dict[str, Any]:
    """Run ``spec`` over ``inputs``; return one DataFrame per output name.

    A stateful graph runs in one ordered partition (Tremor's single-threaded semantics) and, with
    ``flush_at_end``, gets a final tick at u64::MAX after its last event (open interval windows,
    ``script from tick`` windows and timed batches flush); a stateless one keeps the input
    partitioning and has nothing to flush.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    df = prepare_inputs(inputs, spec.inputs)
    # Native lowering (runtime_support/native.py): no-op unless the job attached a pre-filter.
    df = apply_native_prefilter(spec, df)
    if spec.stateful:
        df = df.repartition(1)
    df = df.sortWithinPartitions("seq", "stream")
    result = df.mapInArrow(
        make_mapper(spec, flush_at_end and spec.stateful), OUTPUT_SCHEMA
    ).persist(StorageLevel.MEMORY_AND_DISK)
    names = sorted({spec.output_ports.get(o, o) for o in spec.outputs} | {"err"})
    return {
        name: result.filter(F.col("port") == name).select("value", "seq", "sub") for name in names
    }


def ordered_union(outputs: dict[str, Any]):
    """All output DataFrames as one, in emission order (``seq``, ``sub``)."""
    frames = list(outputs.values())
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result.orderBy("seq", "sub")
