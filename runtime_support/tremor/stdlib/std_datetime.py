"""``std::datetime`` (+ ``datetime::formats`` and ``datetime::timezones``).

A *datetime* is either UTC nanoseconds (non-negative integer) or a record
``{"timestamp": ns, "tz": tz}`` where ``tz`` is a ``timezones::*`` index, an IANA zone name or
a fixed offset (``+01:00``, ``-0530``, ``+01``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo

from runtime_support.tremor.stdlib._table import BadType, FnError, constant, native, want_str
from runtime_support.tremor.stdlib.chrono_format import Moment, format_moment
from runtime_support.tremor.stdlib.chrono_parse import ChronoParseError, parse_to_nanos

M = "std::datetime"
RFC2822 = "%a, %d %b %Y %H:%M:%S %z"
_FIXED = re.compile(r"([+-])(\d\d)(?::?(\d\d))?")
_TZ_SPECS = ("%z", "%:z", "%::z", "%:::z", "%#z", "%+", "%Z")


def _load_zone_names() -> tuple[str, ...]:
    text = resources.files("runtime_support.data").joinpath("timezones.txt").read_text()
    return tuple(line for line in text.splitlines() if line and not line.startswith("#"))


ZONE_NAMES = _load_zone_names()
_ZONE_SET = frozenset(ZONE_NAMES)


def zone_constant_name(zone: str) -> str:
    """The ``timezones::`` constant for an IANA name (``Etc/GMT-1`` → ``ETC_GMT_MINUS_1``).

    >>> zone_constant_name("America/Port-au-Prince"), zone_constant_name("Etc/GMT+10")
    ('AMERICA_PORT_AU_PRINCE', 'ETC_GMT_PLUS_10')
    """
    name = re.sub(r"-(?=\d)", "_MINUS_", zone).replace("+", "_PLUS_")
    return name.replace("/", "_").replace("-", "_").upper()


for _idx, _zone in enumerate(ZONE_NAMES):
    constant(f"{M}::timezones::{zone_constant_name(_zone)}", _idx)
constant(f"{M}::formats::RFC3339", "%+")
constant(f"{M}::formats::RFC2822", RFC2822)
constant(f"{M}::formats::RFC5322", RFC2822)


@lru_cache(maxsize=256)
def resolve_tz(tz: Any) -> tuple[tzinfo, str | None]:
    """``(tzinfo, zone name or None for fixed offsets)`` for a tz value; FnError if invalid."""
    if type(tz) is int:
        if 0 <= tz < len(ZONE_NAMES):
            return ZoneInfo(ZONE_NAMES[tz]), ZONE_NAMES[tz]
        raise FnError(f"Invalid timezone identifier {tz}")
    if type(tz) is not str:
        raise BadType()
    if tz in _ZONE_SET:
        return ZoneInfo(tz), tz
    m = _FIXED.fullmatch(tz)
    if m and int(m.group(2)) < 24 and int(m.group(3) or 0) < 60:
        secs = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
        return timezone(timedelta(seconds=-secs if m.group(1) == "-" else secs)), None
    raise FnError(f"Invalid timezone {tz}")


def _split(dt: Any) -> tuple[int, Any]:
    if type(dt) is int and dt >= 0:
        return dt, None
    if type(dt) is dict and type(dt.get("timestamp")) is int and dt["timestamp"] >= 0:
        return dt["timestamp"], dt.get("tz")
    raise BadType()


def to_moment(dt: Any) -> Moment:
    """A datetime value as a :class:`Moment` in its zone (UTC without ``tz``)."""
    ns, tz = _split(dt)
    secs, nanos = divmod(ns, 1_000_000_000)
    if tz is None:
        zone, name = timezone.utc, "UTC"
    else:
        zone, name = resolve_tz(tz)
    try:
        when = datetime.fromtimestamp(secs, timezone.utc).astimezone(zone)
    except (OverflowError, ValueError, OSError):
        raise FnError("timestamp out of range") from None
    return Moment(when, nanos, name)


@native(f"{M}::format", 2)
def format_(dt: Any, fmt: Any) -> str:
    """Render with a chrono format string in the datetime's zone.

    >>> format_(1667998614978835761, RFC2822)
    'Wed, 09 Nov 2022 12:56:54 +0000'
    """
    moment, fmt = to_moment(dt), want_str(fmt)
    try:
        return format_moment(moment, fmt)
    except ValueError as e:
        raise FnError(str(e)) from None


@native(f"{M}::rfc3339", 1)
def rfc3339(dt: Any) -> str:
    """RFC 3339 with ``+00:00`` style offset and fraction digits only when non-zero.

    >>> rfc3339(0), rfc3339(1_559_655_782_000_000_000)
    ('1970-01-01T00:00:00+00:00', '2019-06-04T13:43:02+00:00')
    """
    return format_moment(to_moment(dt), "%+")


@native(f"{M}::rfc2822", 1)
def rfc2822(dt: Any) -> str:
    """RFC 2822 with an unpadded day.

    >>> rfc2822(0)
    'Thu, 1 Jan 1970 00:00:00 +0000'
    """
    return format_moment(to_moment(dt), "%a, %-d %b %Y %H:%M:%S %z")


@native(f"{M}::with_timezone", 2)
def with_timezone(dt: Any, tz: Any) -> dict:
    """``{"timestamp": ns, "tz": tz}`` after validating ``tz``; a record input is re-zoned."""
    ns, _ = _split(dt)
    resolve_tz(tz)
    return {"timestamp": ns, "tz": tz}


def _has_tz(fmt: str) -> bool:
    return any(spec in fmt for spec in _TZ_SPECS)


@native(f"{M}::parse", 2)
def parse(text: Any, fmt: Any) -> int:
    """Parse to UTC nanoseconds; formats without an offset specifier read naive UTC.

    >>> parse("2022-11-09T14:46:11.499274824+01:00", "%+")
    1668001571499274824
    """
    text, fmt = want_str(text), want_str(fmt)
    try:
        ns = parse_to_nanos(text, fmt, _has_tz(fmt))
    except ChronoParseError as e:
        raise FnError(f"Cannot Parse {text} to valid timestamp: {e}") from None
    if ns < 0:
        raise FnError(f"Cannot Parse {text} to valid timestamp: {'input is out of range'}")
    return ns


def _component(name: str, get: Any) -> None:
    @native(f"{M}::{name}", 1)
    def impl(dt: Any) -> int:
        return get(to_moment(dt))

    impl.__doc__ = f"``{name}`` of the datetime, in its zone."


_component("year", lambda m: m.dt.year)
_component("month", lambda m: m.dt.month)
_component("iso_week", lambda m: m.dt.isocalendar()[1])
_component("day_of_month", lambda m: m.dt.day)
_component("day_of_year", lambda m: m.dt.timetuple().tm_yday)
_component("hour", lambda m: m.dt.hour)
_component("minute", lambda m: m.dt.minute)
_component("second", lambda m: m.dt.second)
_component("subsecond_millis", lambda m: m.nanos // 1_000_000)
_component("subsecond_micros", lambda m: m.nanos // 1_000)
_component("subsecond_nanos", lambda m: m.nanos)
