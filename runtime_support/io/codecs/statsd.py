"""``statsd``: ``name:value|type[|@rate]`` ⇄ ``{metric, type, value, [action], [sample_rate]}``,
written here (no Python statsd package parses metrics, they only send them).

Invariants (Tremor's codec): a value with a ``.`` is a float, one starting with ``-`` an i64,
else a u64; types ``c h s ms g``; a gauge ``+v`` is ``action: "add"``, ``-v`` is
``action: "sub"`` with the value negated back to positive; ``@rate`` is a float. Encoding
writes the value as Tremor's JSON does (``42.23``, ``7``) and a gauge's action as its sign.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.codecs.common import (
    CodecError,
    is_number,
    number_text,
    parse_float,
    parse_number,
    text,
)

__all__ = ["StatsDCodec"]

INVALID = "Invalid statsd metric"


def decode_metric(line: str) -> dict[str, Any]:
    """One statsd line (see the module doc)."""
    metric, sep, rest = line.partition(":")
    if not sep:
        raise CodecError(INVALID)
    out: dict[str, Any] = {"metric": metric}
    sign = rest[:1] if rest[:1] in ("+", "-") else ""
    if sign == "+":
        rest = rest[1:]
    token, sep, rest = rest.partition("|")
    if not sep:
        raise CodecError(INVALID)
    value = parse_number(token, INVALID)
    if rest.startswith("ms"):
        out["type"], rest = "ms", rest[2:]
    elif rest[:1] in ("c", "h", "s", "g") and rest:
        out["type"], rest = rest[0], rest[1:]
        if out["type"] == "g" and sign:
            out["action"] = "add" if sign == "+" else "sub"
            value = -value if sign == "-" else value
    if rest.startswith("|@"):
        out["sample_rate"] = parse_float(rest[2:], INVALID)
    elif rest:
        raise CodecError(INVALID)
    out["value"] = value
    return out


def encode_metric(value: Any) -> str:
    """The statsd line of ``value``."""
    if type(value) is not dict:
        raise CodecError(INVALID)
    metric, kind, number = value.get("metric"), value.get("type"), value.get("value")
    if type(metric) is not str or type(kind) is not str or not is_number(number):
        raise CodecError(INVALID)
    sign = ""
    if kind == "g":
        sign = {"add": "+", "sub": "-"}.get(value.get("action"), "")  # type: ignore[arg-type]
    out = f"{metric}:{sign}{number_text(number)}|{kind}"
    rate = value.get("sample_rate")
    if type(rate) is int and rate >= 0 or type(rate) is float:
        out += f"|@{number_text(rate)}"
    return out


class StatsDCodec:
    """``statsd``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return True, decode_metric(text(data))

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        return encode_metric(value)
