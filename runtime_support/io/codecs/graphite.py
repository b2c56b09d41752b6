"""``graphite-plaintext``: ``path value timestamp`` ⇄ ``{metric, value, timestamp}``, written
here (a three-token line; no library needed).

Invariants (Tremor's codec): the value reads as statsd's does (``.``: float, ``-``: i64, else
u64); the timestamp is in seconds on the wire and nanoseconds in the event, ``-1`` meaning the
event's ``ingest_ns``; encoding truncates nanoseconds to seconds and needs all three keys.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.codecs.common import (
    U64_MAX,
    CodecError,
    is_number,
    number_text,
    parse_number,
    text,
)

__all__ = ["GraphiteCodec"]

INVALID = "Invalid graphite plaintext protocol metric"


class GraphiteCodec:
    """``graphite-plaintext``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        metric, sep, rest = text(data).partition(" ")
        token, sep2, stamp = rest.partition(" ")
        if not sep or not sep2:
            raise CodecError(INVALID)
        value = parse_number(token, INVALID)
        if stamp == "-1":
            timestamp = ingest_ns
        else:
            seconds = parse_number(stamp, INVALID)
            if type(seconds) is not int or seconds < 0 or seconds * 10**9 > U64_MAX:
                raise CodecError(INVALID)
            timestamp = seconds * 1_000_000_000
        return True, {"metric": metric, "timestamp": timestamp, "value": value}

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        if type(value) is not dict:
            raise CodecError(INVALID)
        metric, number, stamp = value.get("metric"), value.get("value"), value.get("timestamp")
        if type(metric) is not str or not is_number(number):
            raise CodecError(INVALID)
        if type(stamp) is not int or not 0 <= stamp <= U64_MAX:
            raise CodecError(INVALID)
        return f"{metric} {number_text(number)} {stamp // 1_000_000_000}"
