"""``influx`` (line protocol) and ``binflux`` (Tremor's binary form of it), written here: no
Python library parses line protocol with Tremor's escaping rules or writes binflux.

Both map one point to ``{"measurement", "tags", "fields", "timestamp"}``.

Invariants (Tremor's ``tremor-influx`` crate): a blank or ``#`` line is no event; a backslash
escapes only the characters that end the token being read (and itself), elsewhere it is kept;
``82`` is the float ``82.0``, ``82i`` the integer; a missing timestamp is the event's
``ingest_ns``. Encoding sorts tags and fields by key, drops non-string tags, escapes keys and
tag values (``" \\ , space =``) and string fields (``" \\``), and needs a non-negative integer
timestamp.
"""

from __future__ import annotations

import re
import struct
from typing import Any

from runtime_support.io.codecs.common import U64_MAX, CodecError, number_text, raw, text

__all__ = ["BinfluxCodec", "InfluxCodec"]

_TRUE = ("t", "T", "true", "True", "TRUE")
_FALSE = ("f", "F", "false", "False", "FALSE")
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)"
)


class _Line:
    """A cursor over one line."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.pos = 0

    def next(self) -> str | None:
        if self.pos >= len(self.line):
            return None
        self.pos += 1
        return self.line[self.pos - 1]

    def until(self, ends: str) -> tuple[str, str]:
        """The token up to the first unescaped char of ``ends`` and that char."""
        out = []
        while (c := self.next()) is not None:
            if c in ends:
                return "".join(out), c
            if c == "\\":
                escaped = self.next()
                if escaped is None:
                    raise CodecError(f"invalid escape at {self.pos - 1}")
                out.append(escaped if escaped == "\\" or escaped in ends else "\\" + escaped)
            else:
                out.append(c)
        shown = " or ".join(repr(e) for e in ends)
        raise CodecError(f"expected {shown} at {max(self.pos - 1, 0)}")


def decode_line(line: str, ingest_ns: int) -> dict[str, Any] | None:
    """One line-protocol point (None for a blank or comment line)."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    cur = _Line(line)
    measurement, end = cur.until(", ")
    tags: dict[str, Any] = {}
    while end == ",":
        key, sep = cur.until("= ,")
        if sep != "=":
            raise CodecError(f"tag without value at {cur.pos - 1}")
        tags[key], end = cur.until("= ,")
        if end == "=":
            raise CodecError(f"= found in tag value at {cur.pos - 1}")
    fields: dict[str, Any] = {}
    end = ","
    while end == ",":
        key, _ = cur.until("=")
        fields[key], end = _field_value(cur)
    rest = line[cur.pos :] if end == " " else ""
    if not rest:
        timestamp = ingest_ns
    elif _INT.fullmatch(rest) and 0 <= int(rest) <= U64_MAX:
        timestamp = int(rest)
    else:
        raise CodecError(f"invalid timestamp at {cur.pos}: {rest!r}")
    return {"measurement": measurement, "tags": tags, "fields": fields, "timestamp": timestamp}


def _field_value(cur: _Line) -> tuple[Any, str | None]:
    """A field value and the char after it (``,``, space or None at the end)."""
    start = cur.pos
    first = cur.next()
    if first is None or first in " ,":
        raise CodecError(f"unexpected end at {start}")
    if first == '"':
        value, _ = cur.until('"')
        after = cur.next()
        if after not in (None, " ", ","):
            raise CodecError(f"trailing character at {cur.pos - 1}")
        return value, after
    token = [first]
    while True:
        c = cur.next()
        if c is None or c in " ,":
            return _float_or_bool("".join(token), start), c
        if c == "i":
            after = cur.next()
            if after not in (None, " ", ","):
                raise CodecError(f"expected ' ' or ',' at {cur.pos - 1}")
            digits = "".join(token)
            if not _INT.fullmatch(digits) or not -(2**63) <= int(digits) < 2**63:
                raise CodecError(f"invalid integer at {start}: {digits!r}")
            return int(digits), after
        if c == "\\":
            c = cur.next()
            if c is None:
                raise CodecError(f"invalid escape at {cur.pos - 1}")
        token.append(c)


def _float_or_bool(token: str, at: int) -> Any:
    if token in _TRUE:
        return True
    if token in _FALSE:
        return False
    if not _FLOAT.fullmatch(token):
        raise CodecError(f"invalid float literal at {at}: {token!r}")
    return float(token)


def _escaped(s: str, chars: str) -> str:
    return "".join("\\" + c if c in chars else c for c in s)


def encode_point(value: Any) -> str:
    """The line of one point (see the module doc); :class:`CodecError` when it is none."""
    if type(value) is not dict or type(value.get("measurement")) is not str:
        raise CodecError("Missing field: measurement")
    key_chars = '"\\, ='
    parts = [_escaped(value["measurement"], key_chars)]
    tags, fields = value.get("tags"), value.get("fields")
    if tags is None or fields is None:
        raise CodecError(f"Missing field: {'tags' if tags is None else 'fields'}")
    if type(tags) is not dict or type(fields) is not dict:
        raise CodecError(f"Invalid field: {'tags' if type(tags) is not dict else 'fields'}")
    for key, tag in sorted(tags.items()):
        if type(tag) is str:
            parts.append(f",{_escaped(key, key_chars)}={_escaped(tag, key_chars)}")
    rendered = []
    for key, field in sorted(fields.items()):
        rendered.append(f"{_escaped(key, key_chars)}={_field_text(key, field)}")
    timestamp = value.get("timestamp", ...)
    if timestamp is ...:
        raise CodecError("Missing field: timestamp")
    if type(timestamp) is not int or timestamp < 0:
        raise CodecError("Invalid timestamp: must be a non-negative integer")
    return "".join(parts) + " " + ",".join(rendered) + f" {timestamp}"


def _field_text(key: str, field: Any) -> str:
    kind = type(field)
    if kind is str:
        return '"' + _escaped(field, '"\\') + '"'
    if kind is bool:
        return "true" if field else "false"
    if kind is int:
        return f"{field}i"
    if kind is float:
        return number_text(field)
    raise CodecError(f"Invalid value for field {key}: {_type_name(field)}")


def _type_name(v: Any) -> str:
    return {dict: "Object", list: "Array", bytes: "Bytes", type(None): "Null"}.get(
        type(v), type(v).__name__
    )


class InfluxCodec:
    """``influx``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        line = text(data)
        try:
            point = decode_line(line, ingest_ns)
        except CodecError as err:
            raise CodecError(f"Invalid Influx Line Protocol data: {err}\n{line}") from None
        return point is not None, point

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        return encode_point(value)


_BIN_INT, _BIN_FLOAT, _BIN_STR, _BIN_TRUE, _BIN_FALSE = range(5)


class BinfluxCodec:
    """``binflux``: version ``u16`` 0, measurement, ``u64`` timestamp, tags, typed fields; all
    big-endian, strings ``u16``-length-prefixed (Tremor's layout, quirk included: the tag count
    counts non-string tags, which are not written)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        try:
            return True, _bin_decode(_Reader(raw(data)))
        except (struct.error, IndexError):
            raise CodecError("Invalid BInflux Line Protocol data: unexpected end of data") from None

    @staticmethod
    def encode(value: Any, config: Any) -> bytes:
        out = bytearray(b"\0\0")
        if type(value) is not dict or type(value.get("measurement")) is not str:
            raise CodecError("Invalid BInflux Line Protocol data: measurement missing")
        _bin_str(out, value["measurement"])
        timestamp = value.get("timestamp")
        if type(timestamp) is not int or not 0 <= timestamp <= U64_MAX:
            raise CodecError("Invalid BInflux Line Protocol data: timestamp missing")
        out += struct.pack(">Q", timestamp)
        tags = value.get("tags")
        tags = tags if type(tags) is dict else {}
        out += _bin_count(len(tags), "tags")
        for key, tag in tags.items():
            if type(tag) is str:
                _bin_str(out, key)
                _bin_str(out, tag)
        fields = value.get("fields")
        fields = fields if type(fields) is dict else {}
        out += _bin_count(len(fields), "fields")
        for key, field in fields.items():
            _bin_str(out, key)
            _bin_field(out, field)
        return bytes(out)


def _bin_count(n: int, what: str) -> bytes:
    if n > 0xFFFF:
        raise CodecError(f"Invalid BInflux Line Protocol data: too many {what}")
    return struct.pack(">H", n)


def _bin_str(out: bytearray, s: str) -> None:
    data = s.encode("utf-8", "surrogateescape")
    if len(data) > 0xFFFF:
        raise CodecError("Invalid BInflux Line Protocol data: string too long")
    out += struct.pack(">H", len(data)) + data


def _bin_field(out: bytearray, field: Any) -> None:
    kind = type(field)
    if kind is int and -(2**63) <= field < 2**63:
        out += struct.pack(">Bq", _BIN_INT, field)
    elif kind in (int, float):
        out += struct.pack(">Bd", _BIN_FLOAT, float(field))
    elif kind is bool:
        out.append(_BIN_TRUE if field else _BIN_FALSE)
    elif kind is str:
        out.append(_BIN_STR)
        _bin_str(out, field)
    else:
        name = {dict: "Object", list: "Array", bytes: "Bytes", type(None): "Null"}[kind]
        raise CodecError(
            f"Invalid BInflux Line Protocol data: Unknown type as influx line value: {name}"
        )


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        n = self.take(">H")
        if self.pos + n > len(self.data):
            raise IndexError(n)
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk.decode("utf-8", "surrogateescape")


def _bin_decode(r: _Reader) -> dict[str, Any]:
    if r.take(">H") != 0:
        raise CodecError("Invalid BInflux Line Protocol data: invalid version")
    measurement = r.string()
    timestamp = r.take(">Q")
    tags = {}
    for _ in range(r.take(">H")):
        key = r.string()
        tags[key] = r.string()
    fields: dict[str, Any] = {}
    for _ in range(r.take(">H")):
        key = r.string()
        kind = r.take(">B")
        if kind == _BIN_INT:
            fields[key] = r.take(">q")
        elif kind == _BIN_FLOAT:
            fields[key] = r.take(">d")
        elif kind == _BIN_STR:
            fields[key] = r.string()
        elif kind in (_BIN_TRUE, _BIN_FALSE):
            fields[key] = kind == _BIN_TRUE
        else:
            raise CodecError(f"bad field type: {kind}")
    return {"measurement": measurement, "tags": tags, "fields": fields, "timestamp": timestamp}
