"""Connector metadata (``$``) carried into the pipeline as the optional ``meta`` input column.

A source that has metadata (``$kafka_consumer``, …) adds a ``meta`` column: the JSON text of the
whole ``$`` record (``{"kafka_consumer": {…}}``), or null for none. JSON has no binary type, so
a binary value (a Kafka key or header) is written as ``{"$bytes": "<base64>"}`` and read back
as ``bytes``. Invariant: ``decode_meta(encode_meta(m)) == m`` for every Tremor value ``m``
whose records have no key ``$bytes``.
"""

from __future__ import annotations

import base64
from typing import Any

from runtime_support.tremor.jsonio import decode_json, encode_json

__all__ = ["decode_meta", "encode_meta"]

_TAG = "$bytes"


def _tagged(value: Any) -> Any:
    if type(value) is bytes:
        return {_TAG: base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {k: _tagged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tagged(v) for v in value]
    return value


def _untagged(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(_TAG), str):
            return base64.b64decode(value[_TAG])
        return {k: _untagged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_untagged(v) for v in value]
    return value


def encode_meta(meta: dict[str, Any]) -> str:
    """The ``meta`` column text of a ``$`` record."""
    return encode_json(_tagged(meta))


def decode_meta(text: str | bytes | None) -> dict[str, Any]:
    """The ``$`` record of a ``meta`` column value (null: an empty record)."""
    if text is None:
        return {}
    meta = _untagged(decode_json(text))
    return meta if isinstance(meta, dict) else {}
