"""chrono's strftime dialect: tokenizing and formatting.

A moment is a :class:`Moment`: an aware ``datetime`` (second precision) plus nanoseconds,
because Python's ``datetime`` stops at microseconds while ``%f`` prints nine digits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["Moment", "Token", "format_moment", "tokenize"]

MONTHS = (
    "January February March April May June July August September October November December"
).split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

# Specifiers that expand to others (chrono's composite items).
COMPOSITES = {
    "D": "%m/%d/%y",
    "x": "%m/%d/%y",
    "F": "%Y-%m-%d",
    "v": "%e-%b-%Y",
    "R": "%H:%M",
    "T": "%H:%M:%S",
    "X": "%H:%M:%S",
    "r": "%I:%M:%S %p",
    "c": "%a %b %e %H:%M:%S %Y",
}
_MULTI = (".3f", ".6f", ".9f", "::z", ":::z", ":z", "#z", ".f", "3f", "6f", "9f")


@dataclass(frozen=True)
class Token:
    """One format item: ``kind`` is ``lit`` (``text``), ``ws`` or ``spec`` (``text`` = name)."""

    kind: str
    text: str
    pad: str | None = None


@dataclass(frozen=True)
class Moment:
    """An aware datetime (microseconds zero) plus ``nanos`` within the second."""

    dt: datetime
    nanos: int
    tz_name: str | None = None  # abbreviation source for %Z; None = fixed offset


def tokenize(fmt: str) -> list[Token]:
    """Split a chrono format string into tokens; raises ``ValueError`` on a bad specifier.

    >>> [t.text for t in tokenize("%Y-%m %-d%.3f")]
    ['Y', '-', 'm', ' ', 'd', '.3f']
    """
    out: list[Token] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(Token("ws", c) if c.isspace() else Token("lit", c))
            i += 1
            continue
        i += 1
        pad = None
        if i < len(fmt) and fmt[i] in "-_0":
            pad, i = fmt[i], i + 1
        name = next((m for m in _MULTI if fmt.startswith(m, i)), fmt[i : i + 1])
        if not name:
            raise ValueError("bad or unsupported format string")
        i += len(name)
        if name in COMPOSITES:
            out.extend(tokenize(COMPOSITES[name]))
        elif name == "%":
            out.append(Token("lit", "%"))
        elif name in ("t", "n"):
            out.append(Token("ws", "\t" if name == "t" else "\n"))
        else:
            out.append(Token("spec", name, pad))
    return out


def _num(value: int, width: int, pad: str | None, default: str = "0") -> str:
    fill = default if pad is None else {"-": "", "_": " ", "0": "0"}[pad]
    if not fill:
        return str(value)
    sign = "-" if value < 0 else ""
    return sign + str(abs(value)).rjust(width - len(sign), fill)


def _offset(m: Moment, colons: int) -> str:
    off = m.dt.utcoffset() or timedelta(0)
    total = int(off.total_seconds())
    sign = "-" if total < 0 else "+"
    h, rem = divmod(abs(total), 3600)
    mins, secs = divmod(rem, 60)
    if colons == 0:
        return f"{sign}{h:02}{mins:02}"
    if colons == 3:
        return f"{sign}{h:02}"
    text = f"{sign}{h:02}:{mins:02}"
    return text + (f":{secs:02}" if colons == 2 else "")


def _auto_fraction(nanos: int) -> str:
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03}"
    if nanos % 1_000 == 0:
        return f".{nanos // 1_000:06}"
    return f".{nanos:09}"


def _week_number(dt: datetime, first_weekday: int) -> int:
    """Week of year where weeks start on ``first_weekday`` (0 = Monday, 6 = Sunday)."""
    yday = dt.timetuple().tm_yday - 1
    wday = (dt.weekday() - first_weekday) % 7
    return (yday + 7 - wday) // 7


def _field(m: Moment, name: str, pad: str | None) -> str:
    dt = m.dt
    simple = {
        "Y": lambda: _num(dt.year, 4, pad) if 0 <= dt.year <= 9999 else f"{dt.year:+}",
        "C": lambda: _num(dt.year // 100, 2, pad),
        "y": lambda: _num(dt.year % 100, 2, pad),
        "m": lambda: _num(dt.month, 2, pad),
        "b": lambda: MONTHS[dt.month - 1][:3],
        "h": lambda: MONTHS[dt.month - 1][:3],
        "B": lambda: MONTHS[dt.month - 1],
        "d": lambda: _num(dt.day, 2, pad),
        "e": lambda: _num(dt.day, 2, pad, " "),
        "a": lambda: DAYS[dt.weekday()][:3],
        "A": lambda: DAYS[dt.weekday()],
        "w": lambda: str(dt.isoweekday() % 7),
        "u": lambda: str(dt.isoweekday()),
        "U": lambda: _num(_week_number(dt, 6), 2, pad),
        "W": lambda: _num(_week_number(dt, 0), 2, pad),
        "G": lambda: _num(dt.isocalendar()[0], 4, pad),
        "g": lambda: _num(dt.isocalendar()[0] % 100, 2, pad),
        "V": lambda: _num(dt.isocalendar()[1], 2, pad),
        "j": lambda: _num(dt.timetuple().tm_yday, 3, pad),
        "H": lambda: _num(dt.hour, 2, pad),
        "k": lambda: _num(dt.hour, 2, pad, " "),
        "I": lambda: _num((dt.hour + 11) % 12 + 1, 2, pad),
        "l": lambda: _num((dt.hour + 11) % 12 + 1, 2, pad, " "),
        "P": lambda: "am" if dt.hour < 12 else "pm",
        "p": lambda: "AM" if dt.hour < 12 else "PM",
        "M": lambda: _num(dt.minute, 2, pad),
        "S": lambda: _num(dt.second, 2, pad),
        "f": lambda: f"{m.nanos:09}",
        ".f": lambda: _auto_fraction(m.nanos),
        ".3f": lambda: f".{m.nanos // 1_000_000:03}",
        ".6f": lambda: f".{m.nanos // 1_000:06}",
        ".9f": lambda: f".{m.nanos:09}",
        "3f": lambda: f"{m.nanos // 1_000_000:03}",
        "6f": lambda: f"{m.nanos // 1_000:06}",
        "9f": lambda: f"{m.nanos:09}",
        "z": lambda: _offset(m, 0),
        "#z": lambda: _offset(m, 0),
        ":z": lambda: _offset(m, 1),
        "::z": lambda: _offset(m, 2),
        ":::z": lambda: _offset(m, 3),
        "Z": lambda: dt.tzname() if m.tz_name else _offset(m, 1),
        "s": lambda: str(int(dt.timestamp())),
        "+": lambda: _rfc3339(m),
    }
    fn = simple.get(name)
    if fn is None:
        raise ValueError("bad or unsupported format string")
    return fn()


def _rfc3339(m: Moment) -> str:
    return m.dt.strftime("%Y-%m-%dT%H:%M:%S") + _auto_fraction(m.nanos) + _offset(m, 1)


def format_moment(m: Moment, fmt: str) -> str:
    """Render ``m`` with a chrono format string.

    >>> from datetime import timedelta, timezone
    >>> mom = Moment(datetime(1970, 1, 1, 1, tzinfo=timezone(timedelta(hours=1))), 123)
    >>> format_moment(mom, "%Y-%m-%dT%H:%M:%S.%f%:z|%a, %e %b|%+")
    '1970-01-01T01:00:00.000000123+01:00|Thu,  1 Jan|1970-01-01T01:00:00.000000123+01:00'
    """
    parts = []
    for tok in tokenize(fmt):
        parts.append(tok.text if tok.kind != "spec" else _field(m, tok.text, tok.pad))
    return "".join(parts)
