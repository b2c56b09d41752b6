"""``avro``: an Avro object container (header with the schema, one block) ⇄ value, with
``fastavro``; config ``schema`` (required, the Avro schema as a record or a type name) and
``compression`` (``none deflate snappy zstd bzip2 xz``).

Invariants (Tremor's codec, ``apache_avro``): decoding reads the container with the configured
schema as reader schema and yields its first record; logical types decode as their underlying
values (dates, times and timestamps as integers, uuids as strings, decimals, fixed and
durations as binary). Encoding writes one container holding the value (missing record fields
take their default, or ``null`` when nullable); its sync marker is derived from the schema, so
the same value always encodes to the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
from typing import Any

import fastavro
from fastavro.read import HEADER_SCHEMA

from runtime_support.io.codecs.common import CodecError, raw

__all__ = ["AvroCodec"]

COMPRESSION = {
    "none": "null",
    "deflate": "deflate",
    "snappy": "snappy",
    "zstd": "zstandard",
    "bzip2": "bzip2",
    "xz": "xz",
}


def _plain_schema(schema: Any) -> Any:
    """``schema`` without ``logicalType`` annotations (the values stay the wire values)."""
    if isinstance(schema, dict):
        return {k: _plain_schema(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [_plain_schema(v) for v in schema]
    return schema


@functools.lru_cache(maxsize=64)
def _schemas(schema_json: str) -> tuple[Any, Any, bytes]:
    """The parsed schema for writing, the plain one for reading, and the sync marker."""
    schema = json.loads(schema_json)
    try:
        writer = fastavro.parse_schema(schema)
        reader = fastavro.parse_schema(_plain_schema(schema))
    except Exception as err:  # noqa: BLE001 - fastavro raises several kinds
        raise CodecError(f"Invalid avro schema: {err}") from None
    return writer, reader, hashlib.md5(schema_json.encode()).digest()  # noqa: S324


def _config(config: Any) -> tuple[Any, Any, bytes, str]:
    if not isinstance(config, dict) or "schema" not in config:
        raise CodecError("Missing avro schema")
    name = config.get("compression", "none")
    if name not in COMPRESSION:
        raise CodecError(f"Unknown compression codec: {name}")
    return (*_schemas(json.dumps(config["schema"], sort_keys=True)), COMPRESSION[name])


def _to_value(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _to_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_value(x) for x in v]
    return v


def _plain_container(data: bytes) -> bytes:
    """The container ``data`` with the writer schema in its header stripped of logical types
    (fastavro would otherwise turn them into dates, uuids and decimals)."""
    if not data.startswith(b"Obj\x01"):
        raise ValueError("not an avro object container (no `Obj\\x01` magic)")
    if b"logicalType" not in data:
        return data
    stream = io.BytesIO(data)
    header = fastavro.schemaless_reader(stream, HEADER_SCHEMA)
    meta = header["meta"]
    if "avro.schema" in meta:
        plain = _plain_schema(json.loads(meta["avro.schema"]))
        meta["avro.schema"] = json.dumps(plain).encode()
    out = io.BytesIO()
    fastavro.schemaless_writer(out, HEADER_SCHEMA, header)
    return out.getvalue() + data[stream.tell() :]


class AvroCodec:
    """``avro``: see the module doc."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        _, reader_schema, _, _ = _config(config)
        try:
            for record in fastavro.reader(
                io.BytesIO(_plain_container(raw(data))), reader_schema=reader_schema
            ):
                return True, _to_value(record)
        except Exception as err:  # noqa: BLE001 - any reader failure is bad input
            raise CodecError(f"Invalid avro data: {err}") from None
        return False, None

    @staticmethod
    def encode(value: Any, config: Any) -> bytes:
        writer_schema, _, marker, codec = _config(config)
        out = io.BytesIO()
        try:
            fastavro.writer(
                out, writer_schema, [value], codec=codec, validator=True, sync_marker=marker
            )
        except Exception as err:  # noqa: BLE001 - validation and codec errors alike
            raise CodecError(f"Invalid avro value: {err}".replace("\n", " ")) from None
        return out.getvalue()
