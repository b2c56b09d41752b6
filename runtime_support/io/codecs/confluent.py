"""``confluent-schema-registry``: Confluent's wire format ⇄ value, with the Avro schemas of a
Confluent-compatible schema registry (config ``url``, its root).

A message is the magic byte ``0``, the schema id (4 bytes, big-endian) and one Avro datum in
binary encoding (no container). Invariants:

- decoding fetches the writer schema by id (``GET <url>/schemas/ids/<id>``) and reads the datum
  as the ``avro`` codec does (logical types as their underlying values);
- encoding writes with the latest schema of the subject ``<topic>-value`` (Confluent's default
  topic-name strategy; ``GET <url>/subjects/<subject>/versions/latest``); the codec never
  registers a schema (Tremor's neither). The topic is the ``kafka_producer``'s (:func:`for_topic`);
- schemas are cached per process: by id forever (an id never changes its schema), by subject
  for the life of the process (as Tremor's encoder caches them);
- a registry that can not be reached, an unknown id or subject, and a value the schema does not
  accept raise :class:`~.common.CodecError` (the event goes to ``err`` / is reported).
"""

from __future__ import annotations

import functools
import io
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import fastavro
import fastavro.validation

from runtime_support.io.codecs.avro_codec import _plain_schema, _to_value
from runtime_support.io.codecs.common import CodecError, raw

__all__ = ["ConfluentCodec", "check_url", "for_topic", "frame", "unframe"]

MAGIC = 0
TOPIC_KEY = "__topic"  # set by the kafka_producer, never by the user (not a declared key)
_URL = re.compile(r"^https?://[^\s/?#]+(/[^\s?#]*)?$")
TIMEOUT_S = 30


def check_url(config: Any) -> str:
    """The registry root of ``config`` (without a trailing ``/``); Tremor's errors otherwise."""
    url = config.get("url") if isinstance(config, dict) else None
    if not isinstance(url, str):
        raise CodecError("Missing URL config for schema registry codec")
    if not _URL.match(url):
        raise CodecError(f"Invalid URL `{url}`: expected http(s)://host[:port][/path]")
    return url.rstrip("/")


def for_topic(codec: Any, topic: str) -> Any:
    """``codec`` bound to the Kafka ``topic`` it encodes for (other codecs unchanged)."""
    if codec.name != "confluent-schema-registry":
        return codec
    return type(codec)(codec.name, {**(codec.config or {}), TOPIC_KEY: topic})


def frame(schema_id: int, body: bytes) -> bytes:
    """Confluent's wire format: magic byte, big-endian schema id, Avro datum."""
    return bytes([MAGIC]) + schema_id.to_bytes(4, "big") + body


def unframe(data: bytes) -> tuple[int, bytes]:
    """``(schema id, Avro datum)`` of a message in Confluent's wire format."""
    if len(data) < 5:
        raise CodecError(f"Invalid confluent message: {len(data)} bytes, at least 5 needed")
    if data[0] != MAGIC:
        raise CodecError(f"Invalid confluent message: magic byte {data[0]}, expected 0")
    return int.from_bytes(data[1:5], "big"), data[5:]


def _get(url: str) -> dict[str, Any]:
    """The JSON answer of the registry to ``GET url``."""
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked by check_url
        url, headers={"Accept": "application/vnd.schemaregistry.v1+json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310
            return json.loads(answer.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as err:
        detail = err.read().decode("utf-8", "replace")[:200]
        raise CodecError(f"Schema registry answered {err.code} for {url}: {detail}") from None
    except (urllib.error.URLError, OSError) as err:
        raise CodecError(f"Schema registry at {url} can not be reached: {err}") from None


def _parsed(answer: dict[str, Any], what: str) -> tuple[Any, Any]:
    """``(writer, plain reader)`` schemas of a registry answer holding an Avro schema."""
    kind = answer.get("schemaType", "AVRO")
    if kind != "AVRO":
        raise CodecError(f"Schema {what} is a {kind} schema, not Avro")
    try:
        schema = json.loads(answer["schema"])
        return fastavro.parse_schema(schema), fastavro.parse_schema(_plain_schema(schema))
    except Exception as err:  # noqa: BLE001 - fastavro raises several kinds
        raise CodecError(f"Invalid avro schema {what}: {err}") from None


@functools.lru_cache(maxsize=1024)
def schema_by_id(url: str, schema_id: int) -> tuple[Any, Any]:
    """The schemas registered under ``schema_id`` (cached: ids are immutable)."""
    return _parsed(_get(f"{url}/schemas/ids/{schema_id}"), f"id {schema_id}")


@functools.lru_cache(maxsize=256)
def latest_of(url: str, subject: str) -> tuple[int, Any]:
    """``(id, writer schema)`` of the latest version of ``subject``."""
    quoted = urllib.parse.quote(subject, safe="")
    answer = _get(f"{url}/subjects/{quoted}/versions/latest")
    return int(answer["id"]), _parsed(answer, f"of subject {subject}")[0]


class ConfluentCodec:
    """``confluent-schema-registry``: see the module doc."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        schema_id, body = unframe(raw(data))
        _, reader = schema_by_id(check_url(config), schema_id)
        try:
            value = fastavro.schemaless_reader(io.BytesIO(body), reader, None)
        except Exception as err:  # noqa: BLE001 - any reader failure is bad input
            raise CodecError(f"Invalid avro data (schema id {schema_id}): {err}") from None
        return True, _to_value(value)

    @staticmethod
    def encode(value: Any, config: Any) -> bytes:
        topic = config.get(TOPIC_KEY) if isinstance(config, dict) else None
        if not isinstance(topic, str):
            raise CodecError("Missing topic: the codec encodes only at a kafka_producer")
        schema_id, writer = latest_of(check_url(config), f"{topic}-value")
        out = io.BytesIO()
        try:
            fastavro.validation.validate(value, writer, raise_errors=True)
            fastavro.schemaless_writer(out, writer, value)
        except Exception as err:  # noqa: BLE001 - validation and writer errors alike
            raise CodecError(f"Invalid avro value: {err}".replace("\n", " ")) from None
        return frame(schema_id, out.getvalue())
