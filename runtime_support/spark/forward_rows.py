"""A whole Arrow batch of a forwarded stream, as a stage's rows in one step.

A forwarded stream is an input stream linked, through passthroughs only, straight to a job
output (a chain of one :class:`~runtime_support.spark.fused.ForwardStep`): each event leaves as it
came, re-encoded as Tremor writes JSON. Its rows are ``(seq, [0], -1, output, None, None, text)``,
as ``_Runner._feed_chain`` appends them one by one; here they are built column by column: ``seq`` is
the batch's own column, the constant columns are repeated, only the texts are made per row.

Invariant: :func:`forward_rows` returns exactly the rows ``_feed_chain`` would append for the
batch, or None when the batch holds anything but plain events that decode (a line that is no
JSON, a null end-of-input signal, a connector's record, metadata): the caller then runs the
general path, which names each such row.
"""

from __future__ import annotations

from typing import Any

import orjson

from runtime_support.spark.row_arrays import line_bytes, path_array, text_array
from runtime_support.tremor.jsonio import _PLUS, encode_json_utf8, row_decoders

__all__ = ["forward_rows"]


def forward_rows(batch: Any, streams: dict[str, str], schema: Any) -> Any:
    """The stage rows (Arrow ``schema``) of an input ``batch`` (``stream, seq, value, …``)
    whose stream is one of ``streams`` (stream -> job output it is forwarded to), or None (see
    the module)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = batch.num_rows
    names = batch.schema.names
    if not rows or "stream" not in names or "seq" not in names:
        return None
    for plain in ("origin", "meta"):  # every row without a connector's origin or metadata
        if plain in names and batch.column(plain).null_count != rows:
            return None
    stream_column = batch.column("stream")
    stream = stream_column[0].as_py()
    output = streams.get(stream)
    if output is None or stream_column.null_count:
        return None
    if not pc.all(pc.equal(stream_column, stream)).as_py():
        return None
    seqs = batch.column("seq")
    column = batch.column("value")
    if seqs.null_count or column.null_count or seqs.type != pa.int64():
        return None
    encoded = _encoded_texts(row_decoders(column, nesting=False), line_bytes(column).to_pylist())
    if encoded is None:
        return None
    arrays = {
        "seq": seqs,
        "path": path_array([[0]] * rows),
        "stage": pa.repeat(pa.scalar(-1, pa.int32()), rows),
        "target": pa.repeat(pa.scalar(output, pa.string()), rows),
        "key": pa.nulls(rows, pa.string()),
        "event": pa.nulls(rows, pa.binary()),
        "value": text_array(encoded),
    }
    return pa.RecordBatch.from_arrays([arrays[name] for name in schema.names], schema=schema)


def _encoded_texts(decoders: list[Any], texts: list[Any]) -> list[bytes] | None:
    """Each text decoded by its decoder and written as Tremor writes JSON, or None when a text
    does not decode or its value is nested deeper than tremorc reads: ``orjson.dumps`` refuses
    exactly those (more than :data:`~.jsonio.MAX_DEPTH` levels), which is why the decoders
    need no screen for nesting. A float orjson writes its own way (``e+``) takes
    :func:`~.jsonio.encode_json_utf8`."""
    dumps = orjson.dumps
    encoded = []
    append = encoded.append
    try:
        for decode, text in zip(decoders, texts, strict=True):
            value = decode(text)
            out = dumps(value)
            if _PLUS in out and b"e+" in out:
                out = encode_json_utf8(value)
            append(out)
    except Exception:  # noqa: BLE001 - the general path reports the row that failed
        return None
    return encoded
