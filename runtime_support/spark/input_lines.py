"""Input lines to events, losing none: a line that is not an event becomes one ``err`` record.

A line reaches the source stage as its bytes (:func:`source_columns`: Spark's text reader keeps
the file's bytes, and reading them as text would fail the whole task on the first line that is
not UTF-8). :func:`decode_line` turns it into a value or raises :class:`BadLine`, whose
``record`` is the ``err`` event (Tremor's json codec rejects all of these lines too):

- not UTF-8: ``{"error": "Invalid UTF-8 input: …", "event": "<the line's bytes in base64>"}``
  (the line as a Tremor binary value, which JSON renders as base64, so no byte is lost);
- UTF-8 but not JSON Tremor reads (malformed, a number it can not hold, nesting beyond
  :data:`~runtime_support.tremor.jsonio.MAX_DEPTH`): ``{"error": "Invalid JSON input: …", "event":
  "<the line>"}``.

A source whose codec is not ``json`` decodes its chunks itself; a chunk its codec rejects
arrives as :data:`CODEC_ERROR` followed by its ``err`` record, which :func:`decode_line` passes
on as the :class:`BadLine`.
"""

from __future__ import annotations

import base64
from typing import Any

from runtime_support.spark.row_arrays import line_bytes
from runtime_support.tremor.jsonio import decode_json, encode_json

__all__ = [
    "BadLine",
    "CODEC_ERROR",
    "INVALID_JSON",
    "INVALID_UTF8",
    "SOURCE_ERROR",
    "decode_line",
    "source_columns",
]

#: The ``origin`` of a source row that is an ``err`` record (its ``value``), not an event: a
#: connector's processor or codec failed on it (no origin URI contains a NUL).
SOURCE_ERROR = "\x00err"
INVALID_JSON = "Invalid JSON input: {reason}"
INVALID_UTF8 = "Invalid UTF-8 input: {reason} (the event is the line's bytes in base64)"
CODEC_ERROR = "\0codec-error\0"
"""Marks a source row that is a chunk its codec rejected; the rest is its ``err`` event's JSON
(:meth:`runtime_support.io.codecs.Codec.decoded_text`)."""
_MARKS = {str: CODEC_ERROR, bytes: CODEC_ERROR.encode()}


class BadLine(ValueError):
    """A line that is no event; ``record`` is its ``err`` event as JSON text."""

    def __init__(self, record: str) -> None:
        super().__init__(record)
        self.record = record


def decode_line(raw: bytes | str) -> Any:
    """The event value of one input line; :class:`BadLine` when it is none (see the module)."""
    if type(raw) is bytes and raw[:1] != b"\0":  # the common case: no codec's error mark
        try:
            return decode_json(raw)
        except Exception:  # noqa: BLE001 - the general path below names the reason
            pass
    mark = _MARKS[type(raw)]
    if raw.startswith(mark):
        rest = raw[len(mark) :]
        raise BadLine(rest if isinstance(rest, str) else rest.decode())
    try:
        return decode_json(raw)
    except Exception as err:  # noqa: BLE001 - any decoder failure is bad input
        reason = err
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            shown = f"byte 0x{raw[bad.start]:02x} at offset {bad.start}: {bad.reason}"
            error = INVALID_UTF8.format(reason=shown)
            event = base64.b64encode(raw).decode()
            raise BadLine(encode_json({"error": error, "event": event})) from None
    else:
        text = raw
    raise BadLine(encode_json({"error": INVALID_JSON.format(reason=reason), "event": text}))


def source_columns(batch: Any) -> dict[str, list[Any]]:
    """An Arrow batch of input rows as Python columns, ``value`` as bytes (see the module)."""
    columns = {}
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        columns[name] = (line_bytes(column) if name == "value" else column).to_pylist()
    return columns
