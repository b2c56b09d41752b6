"""``syslog``: RFC 5424 and RFC 3164 messages ⇄ ``{severity, facility, hostname, appname, procid,
msgid, structured_data, msg, protocol, protocol_version, timestamp}``, written here: Tremor
parses with the lenient ``syslog_loose`` crate, whose fallbacks no Python package shares.

Invariants (decoding, as ``syslog_loose`` with ``Variant::Either`` and UTC): RFC 5424 is tried
first (``<pri>version timestamp host app procid msgid sd [msg]``, ``-`` for absent fields,
malformed structured-data elements skipped), then RFC 3164 (``<pri>Mmm dd hh:mm:ss host
tag[pid]: msg``, the year being the current one, or last year for a December message read
in January); a line that is neither is ``{"msg": line, "protocol": "RFC3164"}``. Timestamps are
UTC nanoseconds. Encoding: ``protocol`` (default RFC 5424 version 1) picks the layout; RFC 5424
needs ``facility`` and ``severity``; RFC 3164 defaults to priority 13 and the current time.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from runtime_support.io.codecs.common import CodecError, text

__all__ = ["SyslogCodec"]

SEVERITIES = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")
FACILITIES = (
    "kern user mail daemon auth syslog lpr news uucp cron authpriv ftp ntp audit alert clockd "
    "local0 local1 local2 local3 local4 local5 local6 local7"
).split()
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
_PRI = re.compile(r"<([0-9]{1,3})>")
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(Z|z|[+-][0-9]{2}:[0-9]{2})"
)
_BSD_TIME = re.compile(
    r"(" + "|".join(MONTHS) + r") {1,2}([0-9]{1,2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})"
)
_SD_PARAM = re.compile(r' *([^= \]"]+) *= *"((?:[^"\\]|\\.)*)"')
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _nanos(when: dt.datetime, fraction: str = "") -> int:
    delta = when - EPOCH
    seconds = delta.days * 86400 + delta.seconds
    return seconds * 10**9 + int((fraction or "0").ljust(9, "0")[:9])


def _rfc3339(token: str) -> int | None:
    m = _RFC3339.fullmatch(token)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    zone = m.group(8)
    offset = (
        0
        if zone in ("Z", "z")
        else (int(zone[1:3]) * 60 + int(zone[4:6])) * (-1 if zone[0] == "-" else 1)
    )
    try:
        local = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone.utc)
    except ValueError:
        return None
    return _nanos(local - dt.timedelta(minutes=offset), m.group(7) or "")


def _pri(line: str) -> tuple[dict[str, Any], str] | None:
    m = _PRI.match(line)
    if m is None or int(m.group(1)) > 191:
        return None
    pri = int(m.group(1))
    return {"severity": SEVERITIES[pri & 7], "facility": FACILITIES[pri >> 3]}, line[m.end() :]


def _word(rest: str) -> tuple[str, str]:
    word, _, tail = rest.partition(" ")
    return word, tail


def _structured_data(rest: str) -> tuple[dict[str, Any] | None, str]:
    """The structured-data elements at the start of ``rest`` (malformed ones skipped)."""
    if rest.startswith("-"):
        return None, rest[1:]
    elements: dict[str, Any] = {}
    while rest.startswith("["):
        end = _element_end(rest)
        body, rest = rest[1:end], rest[end + 1 :]
        ident, _, params = body.partition(" ")
        parsed = []
        while params.strip():
            m = _SD_PARAM.match(params)
            if m is None:
                parsed = None
                break
            value = re.sub(r'\\(["\\\]])', r"\1", m.group(2))
            parsed.append({m.group(1): value})
            params = params[m.end() :]
        if parsed is not None and ident:
            elements[ident] = parsed
    return (elements or None), rest


def _element_end(rest: str) -> int:
    quoted = escaped = False
    for i, c in enumerate(rest):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == '"':
            quoted = not quoted
        elif c == "]" and not quoted:
            return i
    return len(rest)


def _decode_5424(line: str) -> dict[str, Any] | None:
    head = _pri(line)
    if head is None:
        return None
    out, rest = head
    version, rest = _word(rest)
    if not version.isdigit() or not version.isascii() or not rest:
        return None
    stamp, rest = _word(rest)
    timestamp = None if stamp == "-" else _rfc3339(stamp)
    if stamp != "-" and timestamp is None:
        return None
    fields = {}
    for name in ("hostname", "appname", "procid", "msgid"):
        fields[name], rest = _word(rest)
    if "" in fields.values():
        return None
    sd, rest = _structured_data(rest)
    if fields["hostname"] != "-":
        out = {"hostname": fields["hostname"], **out}
    if timestamp is not None:
        out["timestamp"] = timestamp
    out["protocol"], out["protocol_version"] = "RFC5424", int(version)
    for name in ("appname", "msgid"):
        if fields[name] != "-":
            out[name] = fields[name]
    if sd is not None:
        out["structured_data"] = sd
    if fields["procid"] != "-":
        out["procid"] = fields["procid"]
    msg = rest[1:] if rest.startswith(" ") else rest
    if msg:
        out["msg"] = msg
    return out


def _year(month: int, now: dt.datetime) -> int:
    return now.year - 1 if now.month == 1 and month == 12 else now.year


def _decode_3164(line: str, now: dt.datetime) -> dict[str, Any] | None:
    head = _pri(line)
    out, rest = head if head is not None else ({}, line)
    m = _BSD_TIME.match(rest)
    if m is None:
        stamp, tail = _word(rest)
        timestamp = _rfc3339(stamp)
        if timestamp is None:
            return None
        rest = tail
    else:
        month = MONTHS.index(m.group(1)) + 1
        try:
            when = dt.datetime(
                _year(month, now),
                month,
                int(m.group(2)),
                *map(int, m.groups()[2:]),
                tzinfo=dt.timezone.utc,
            )
        except ValueError:
            return None
        timestamp, rest = _nanos(when), rest[m.end() :].lstrip(" ")
    host, rest = _word(rest)
    tag = re.match(r"([^\[: ]*)(?:\[([^\]]*)\])?(:?) *", rest)
    assert tag is not None  # every group may be empty
    out = {"hostname": host, **out, "timestamp": timestamp, "protocol": "RFC3164"}
    if tag.group(1):
        out["appname"] = tag.group(1)
    if tag.group(2) is not None:
        out["procid"] = tag.group(2)
    if rest[tag.end() :]:
        out["msg"] = rest[tag.end() :]
    return out


def decode_message(line: str, now: dt.datetime) -> dict[str, Any]:
    """One syslog message (see the module doc)."""
    return (
        _decode_5424(line)
        or _decode_3164(line, now)
        or ({"msg": line, "protocol": "RFC3164"} if line else {"protocol": "RFC3164"})
    )


def _invalid(reason: str) -> CodecError:
    return CodecError(f"Invalid Syslog Protocol data: {reason}")


def _pri_of(facility: Any, severity: Any) -> int:
    if facility not in FACILITIES:
        raise _invalid("invalid facility")
    if severity not in SEVERITIES:
        raise _invalid("invalid severity")
    return (FACILITIES.index(facility) << 3) + SEVERITIES.index(severity)


def _encode_sd(sd: Any) -> str:
    if type(sd) is not dict:
        raise _invalid("Invalid structured data: structured data not an object")
    elem = ""
    for ident, params in sd.items():
        if type(params) is not list:
            raise _invalid("Invalid structured data: params not an array of objects")
        elem += "[" + ident
        for pairs in params:
            if type(pairs) is not dict or not all(type(v) is str for v in pairs.values()):
                raise _invalid("Invalid structured data: param's key value pair not an object")
            elem += "".join(f' {k}="{v}"' for k, v in pairs.items())
        elem += "]"
    return elem


def _rfc3339_text(nanos: int) -> str:
    """chrono's ``to_rfc3339`` of a UTC time: 0, 3, 6 or 9 fraction digits, ``+00:00``."""
    seconds, frac = divmod(nanos, 10**9)
    when = EPOCH + dt.timedelta(seconds=seconds)
    digits = ""
    if frac:
        digits = "." + (
            f"{frac // 10**6:03d}"
            if frac % 10**6 == 0
            else f"{frac // 1000:06d}" if frac % 1000 == 0 else f"{frac:09d}"
        )
    return when.strftime("%Y-%m-%dT%H:%M:%S") + digits + "+00:00"


def _str(value: dict[str, Any], key: str) -> str | None:
    item = value.get(key)
    return item if type(item) is str else None


def _stamp(value: dict[str, Any]) -> int | None:
    t = value.get("timestamp")
    return t if type(t) is int and -(2**63) <= t < 2**63 else None


def encode_5424(value: dict[str, Any], version: int) -> str:
    if _str(value, "facility") is None:
        raise _invalid("facility missing")
    if _str(value, "severity") is None:
        raise _invalid("severity missing")
    parts = [f"<{_pri_of(value['facility'], value['severity'])}>{version}"]
    stamp = _stamp(value)
    parts.append("-" if stamp is None else _rfc3339_text(stamp))
    parts += [_str(value, k) or "-" for k in ("hostname", "appname", "procid", "msgid")]
    parts.append(_encode_sd(value["structured_data"]) if "structured_data" in value else "-")
    if _str(value, "msg") is not None:
        parts.append(value["msg"])
    return " ".join(parts)


def encode_3164(value: dict[str, Any], now: dt.datetime) -> str:
    f, s = _str(value, "facility"), _str(value, "severity")
    pri = 13 if f is None or s is None else _pri_of(f, s)
    stamp = _stamp(value)
    when = now if stamp is None else EPOCH + dt.timedelta(microseconds=stamp // 1000)
    parts = [f"<{pri}>{MONTHS[when.month - 1]} {when.day:2d} {when:%H:%M:%S}"]
    parts.append(_str(value, "hostname") or "-")
    app, pid = _str(value, "appname"), _str(value, "procid")
    parts.append(":" if app is None else f"{app}:" if pid is None else f"{app}[{pid}]:")
    if "structured_data" in value:
        parts.append(_encode_sd(value["structured_data"]))
    if _str(value, "msg") is not None:
        parts.append(value["msg"])
    return " ".join(parts)


def encode_message(value: Any, now: dt.datetime) -> str:
    """The syslog line of ``value`` (see the module doc)."""
    if type(value) is not dict:
        raise _invalid("facility missing")
    protocol, version = value.get("protocol"), value.get("protocol_version")
    has_version = type(version) is int and 0 <= version < 2**32
    if protocol == "RFC3164":
        return encode_3164(value, now)
    if protocol == "RFC5424":
        if not has_version:
            raise _invalid("Missing protocol version")
        return encode_5424(value, version)  # type: ignore[arg-type]
    if protocol is None:
        if has_version:
            raise _invalid("Missing protocol type")
        return encode_5424(value, 1)
    raise _invalid("Invalid protocol type")


class SyslogCodec:
    """``syslog``: no config (the clock for missing years and times is UTC now)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return True, decode_message(text(data), dt.datetime.now(dt.timezone.utc))

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        return encode_message(value, dt.datetime.now(dt.timezone.utc))
