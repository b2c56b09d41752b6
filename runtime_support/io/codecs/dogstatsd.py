"""``dogstatsd``: DogStatsD v1.2 datagrams ⇄ ``{"metric": {…}}`` / ``{"event": {…}}`` /
``{"service_check": {…}}``, written here (the ``datadog`` package only sends).

Invariants (Tremor's codec): metric values are floats (``111`` reads as ``111.0``; written
back without a fraction when it is zero, and only float values are written); optional
sections ``@rate``, ``#tags`` (split at ``,``), ``c:container`` (metrics), ``d: h: k: p: s: t:``
(events), ``d: h: m:`` (service checks) are read in any order and written in a fixed one;
unknown sections are ignored; event title/text lengths are byte counts; a service check's
status is 0-3.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.codecs.common import CodecError, number_text, parse_float, text

__all__ = ["DogStatsDCodec"]

INVALID = "Invalid dogstatsd metric"
_EVENT_KEYS = (
    ("d:", "timestamp"),
    ("h:", "hostname"),
    ("p:", "priority"),
    ("s:", "source"),
    ("t:", "type"),
    ("k:", "aggregation_key"),
    ("#", "tags"),
    ("c:", "container_id"),
)
_CHECK_KEYS = (
    ("d:", "timestamp"),
    ("h:", "hostname"),
    ("#", "tags"),
    ("c:", "container_id"),
    ("m:", "message"),
)


def _u32(token: str) -> int:
    if not token.isdigit() or not token.isascii() or int(token) > 0xFFFFFFFF:
        raise CodecError(INVALID)
    return int(token)


def _sections(rest: str, keys: tuple[tuple[str, str], ...], out: dict[str, Any]) -> None:
    for section in rest.split("|"):
        for prefix, key in keys:
            if section.startswith(prefix):
                item = section[len(prefix) :]
                if key == "timestamp":
                    out[key] = _u32(item)
                elif key == "tags":
                    out[key] = item.split(",")
                else:
                    out[key] = item
                break


def _decode_metric(line: str) -> dict[str, Any]:
    metric, sep, rest = line.partition(":")
    values, sep2, rest = rest.partition("|")
    if not sep or not sep2:
        raise CodecError(INVALID)
    out: dict[str, Any] = {"metric": metric}
    out["values"] = [parse_float(v, INVALID) for v in values.split(":")]
    if rest.startswith("ms"):
        out["type"], rest = "ms", rest[2:]
    elif rest[:1] in ("c", "d", "g", "h", "s") and rest:
        out["type"], rest = rest[0], rest[1:]
    for section in rest.split("|"):
        if section.startswith("@"):
            out["sample_rate"] = parse_float(section[1:], INVALID)
        elif section.startswith("#"):
            out["tags"] = section[1:].split(",")
        elif section.startswith("c:"):
            out["container_id"] = section[2:]
    return {"metric": out}


def _decode_event(body: str) -> dict[str, Any]:
    title_len, sep, rest = body.partition(",")
    text_len, sep2, rest = rest.partition("}:")
    if not sep or not sep2 or not title_len.isdigit() or not text_len.isdigit():
        raise CodecError(INVALID)
    data = rest.encode()
    n_title, n_text = int(title_len), int(text_len)
    if len(data) < n_title + n_text + 1 or data[n_title : n_title + 1] != b"|":
        raise CodecError(INVALID)
    try:
        title = data[:n_title].decode()
        body_text = data[n_title + 1 : n_title + 1 + n_text].decode()
        rest = data[n_title + 1 + n_text :].decode()
    except UnicodeDecodeError:
        raise CodecError(INVALID) from None
    out: dict[str, Any] = {"title": title, "text": body_text}
    _sections(rest, _EVENT_KEYS, out)
    return {"event": out}


def _decode_check(body: str) -> dict[str, Any]:
    name, sep, rest = body.partition("|")
    if not sep:
        raise CodecError(INVALID)
    status, _, rest = rest.partition("|")
    if not status.isdigit() or not status.isascii() or int(status) > 3:
        raise CodecError(INVALID)
    out: dict[str, Any] = {"name": name, "status": int(status)}
    _sections(rest, _CHECK_KEYS, out)
    return {"service_check": out}


def _value(x: float) -> str:
    return str(int(x)) if x == int(x) else number_text(x)


def _tags(value: dict[str, Any]) -> str:
    tags = value.get("tags")
    if type(tags) is not list:
        return ""
    return "|#" + ",".join(t for t in tags if type(t) is str)


def _opt(value: dict[str, Any], key: str, prefix: str) -> str:
    item = value.get(key)
    if key == "timestamp":
        return f"|{prefix}{item}" if type(item) is int and 0 <= item <= 0xFFFFFFFF else ""
    return f"|{prefix}{item}" if type(item) is str else ""


def _encode_metric(m: Any) -> str:
    if type(m) is not dict or type(m.get("metric")) is not str or type(m.get("type")) is not str:
        raise CodecError(INVALID)
    values = m.get("values")
    if type(values) is not list:
        raise CodecError(INVALID)
    out = m["metric"] + ":" + ":".join(_value(v) for v in values if type(v) is float)
    out += "|" + m["type"]
    if "sample_rate" in m:
        if type(m["sample_rate"]) not in (int, float):
            raise CodecError(INVALID)
        out += "|@" + number_text(m["sample_rate"])
    return out + _tags(m) + _opt(m, "container_id", "c:")


def _encode_event(e: Any) -> str:
    if type(e) is not dict or type(e.get("title")) is not str or type(e.get("text")) is not str:
        raise CodecError(INVALID)
    title, body = e["title"], e["text"]
    out = f"_e{{{len(title.encode())},{len(body.encode())}}}:{title}|{body}"
    for prefix, key in _EVENT_KEYS[:2] + (_EVENT_KEYS[5],) + _EVENT_KEYS[2:5]:
        out += _opt(e, key, prefix)
    return out + _tags(e) + _opt(e, "container_id", "c:")


def _encode_check(c: Any) -> str:
    status = c.get("status") if type(c) is dict else None
    if type(c) is not dict or type(c.get("name")) is not str or type(status) is not int:
        raise CodecError(INVALID)
    if not -(2**31) <= status < 2**31:
        raise CodecError(INVALID)
    out = f"_sc|{c['name']}|{status}" + _opt(c, "timestamp", "d:") + _opt(c, "hostname", "h:")
    return out + _tags(c) + _opt(c, "message", "m:") + _opt(c, "container_id", "c:")


class DogStatsDCodec:
    """``dogstatsd``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        line = text(data)
        if line.startswith("_e{"):
            return True, _decode_event(line[3:])
        if line.startswith("_sc|"):
            return True, _decode_check(line[4:])
        return True, _decode_metric(line)

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        if type(value) is dict and "metric" in value:
            return _encode_metric(value["metric"])
        if type(value) is dict and "event" in value:
            return _encode_event(value["event"])
        if type(value) is dict and "service_check" in value:
            return _encode_check(value["service_check"])
        raise CodecError(INVALID)
