"""``csv``: one RFC 4180 record ⇄ an array of strings, with the standard ``csv`` module (Tremor
uses the ``csv`` crate without headers).

Invariants: decoding reads the first non-empty record of the chunk (later ones are dropped; no
record: no event); every field is a string. Encoding takes an array, renders each element with
Rust's ``Display`` (strings raw, ``1.0`` as ``1``, as Tremor's ``Value::to_string``), quotes a
field only where needed, and writes no line terminator.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from runtime_support.io.codecs.common import CodecError, text
from runtime_support.tremor.stdlib.std_array import rust_display

__all__ = ["CsvCodec"]


class CsvCodec:
    """``csv``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        try:
            for record in csv.reader(io.StringIO(text(data), newline=""), strict=True):
                if record:
                    return True, list(record)
        except csv.Error as err:
            raise CodecError(f"CSV error: {err}") from None
        return False, None

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        if type(value) is not list:
            shown = {dict: "Object", str: "String", bytes: "Bytes"}.get(type(value), "Static")
            raise CodecError(f"The value {shown} cannot be serialized to CSV. Expected an array.")
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow([rust_display(v) for v in value])
        return out.getvalue().rstrip("\r\n")
