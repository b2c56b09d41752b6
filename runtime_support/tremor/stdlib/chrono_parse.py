"""chrono-style parsing of date strings into UTC nanoseconds.

Tokens from :func:`chrono_format.tokenize` are matched left to right against the input.
Errors carry chrono's ``ParseError`` texts ("premature end of input", "trailing input", …).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from runtime_support.tremor.stdlib.chrono_format import DAYS, MONTHS, Token, tokenize

__all__ = ["ChronoParseError", "parse_to_nanos"]

INVALID = "input contains invalid characters"
TOO_SHORT = "premature end of input"
TOO_LONG = "trailing input"
NOT_ENOUGH = "input is not enough for unique date and time"
OUT_OF_RANGE = "input is out of range"
IMPOSSIBLE = "no possible date and time matching input"

_WIDTHS = {"m": 2, "d": 2, "e": 2, "H": 2, "k": 2, "I": 2, "l": 2, "M": 2, "S": 2, "j": 3}
_WIDTHS.update({"C": 2, "y": 2, "U": 2, "W": 2, "V": 2, "g": 2, "u": 1, "w": 1})
_OFFSET = re.compile(r"([+-])(\d\d):?(\d\d)?")
_RFC3339 = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?(?:([Zz])|([+-])(\d\d):(\d\d))"
)


class ChronoParseError(ValueError):
    """The input does not match the format; ``str()`` is chrono's message."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.f: dict[str, int] = {}

    def need(self) -> None:
        if self.i >= len(self.s):
            raise ChronoParseError(TOO_SHORT)

    def number(self, max_width: int, signed: bool = False) -> int:
        self.need()
        m = re.compile(r"[+-]?\d+" if signed else rf"\d{{1,{max_width}}}").match(self.s, self.i)
        if not m:
            raise ChronoParseError(INVALID)
        self.i = m.end()
        return int(m.group())

    def name(self, names: list[str]) -> int:
        self.need()
        rest = self.s[self.i :].lower()
        for idx, full in enumerate(names):
            for cand in (full.lower(), full[:3].lower()):
                if rest.startswith(cand):
                    self.i += len(cand)
                    return idx
        raise ChronoParseError(INVALID)

    def fraction(self, dotted: bool, optional: bool) -> None:
        if dotted:
            if self.s.startswith(".", self.i):
                self.i += 1
            elif optional:
                return
            else:
                self.need()
                raise ChronoParseError(INVALID)
        self.need()
        m = re.compile(r"\d+").match(self.s, self.i)
        if not m:
            raise ChronoParseError(INVALID)
        self.i = m.end()
        self.f["nanos"] = int(m.group()[:9].ljust(9, "0"))

    def offset(self, allow_z: bool) -> None:
        self.need()
        if allow_z and self.s[self.i] in "Zz":
            self.i += 1
            self.f["offset"] = 0
            return
        m = _OFFSET.match(self.s, self.i)
        if not m:
            raise ChronoParseError(INVALID)
        self.i = m.end()
        secs = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
        self.f["offset"] = -secs if m.group(1) == "-" else secs

    def rfc3339(self) -> None:
        self.need()
        m = _RFC3339.match(self.s, self.i)
        if not m:
            raise ChronoParseError(INVALID)
        self.i = m.end()
        keys = ("year", "month", "day", "hour", "minute", "second")
        self.f.update({k: int(m.group(n)) for n, k in enumerate(keys, start=1)})
        if m.group(7):
            self.f["nanos"] = int(m.group(7)[1:10].ljust(9, "0"))
        if m.group(8):
            self.f["offset"] = 0
        else:
            secs = int(m.group(10)) * 3600 + int(m.group(11)) * 60
            self.f["offset"] = -secs if m.group(9) == "-" else secs

    def spec(self, tok: Token) -> None:
        n = tok.text
        if n == "Y":
            self.f["year"] = self.number(0, signed=True)
        elif n in ("m", "d", "e", "H", "k", "M", "S", "j", "I", "l", "y", "C"):
            if n in ("e", "k", "l"):
                self.skip_ws()
            key = {"e": "day", "k": "H", "l": "I", "m": "month", "d": "day", "j": "ordinal"}
            self.f[key.get(n, n)] = self.number(_WIDTHS[n])
        elif n in ("U", "W", "V", "g", "u", "w", "G"):
            self.number(4 if n == "G" else _WIDTHS[n])  # accepted, not used for the date
        elif n in ("b", "h", "B"):
            self.f["month"] = self.name(MONTHS) + 1
        elif n in ("a", "A"):
            self.name(DAYS)
        elif n in ("p", "P"):
            self.f["pm"] = self.name(["AM", "PM"])
        elif n in ("f", "3f", "6f", "9f"):
            self.fraction(dotted=False, optional=False)
        elif n in (".f", ".3f", ".6f", ".9f"):
            self.fraction(dotted=True, optional=n == ".f")
        elif n in ("z", ":z", "::z", ":::z", "#z"):
            self.offset(allow_z=n == "#z")
        elif n == "+":
            self.rfc3339()
        elif n == "s":
            self.f["timestamp"] = self.number(0, signed=True)
        else:  # %Z: chrono cannot parse zone names
            raise ChronoParseError("bad or unsupported format string")

    def skip_ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def run(self, tokens: list[Token]) -> dict[str, int]:
        for tok in tokens:
            if tok.kind == "ws":
                self.skip_ws()
            elif tok.kind == "lit":
                self.need()
                if self.s[self.i] != tok.text:
                    raise ChronoParseError(INVALID)
                self.i += 1
            else:
                self.spec(tok)
        if self.i < len(self.s):
            raise ChronoParseError(TOO_LONG)
        return self.f


def _hour(f: dict[str, int]) -> int:
    if "H" in f:
        return f["H"]
    if "I" in f and "pm" in f:
        return f["I"] % 12 + 12 * f["pm"]
    raise ChronoParseError(NOT_ENOUGH)


def _naive(f: dict[str, int]) -> datetime:
    if "year" not in f and "y" in f:
        f["year"] = f.get("C", 19 if f["y"] >= 70 else 20) * 100 + f["y"]
    if "year" not in f or "minute" not in f and "M" not in f:
        raise ChronoParseError(NOT_ENOUGH)
    try:
        if "ordinal" in f:
            date = datetime(f["year"], 1, 1) + timedelta(days=f["ordinal"] - 1)
        elif "month" in f and "day" in f:
            date = datetime(f["year"], f["month"], f["day"])
        else:
            raise ChronoParseError(NOT_ENOUGH)
        return date.replace(hour=_hour(f), minute=f["M"], second=f.get("S", 0))
    except (ValueError, OverflowError):
        raise ChronoParseError(OUT_OF_RANGE) from None


def parse_to_nanos(text: str, fmt: str, require_offset: bool) -> int:
    """Parse ``text`` with ``fmt`` to UTC nanoseconds since the epoch.

    Without ``require_offset`` the input is read as naive UTC (any parsed offset is ignored).

    >>> parse_to_nanos("2023-04-23T13:11:37.285Z", "%+", True)
    1682255497285000000
    >>> parse_to_nanos("Fri, 21 Nov 1997 09:55:06 -0600", "%a, %d %b %Y %H:%M:%S %z", True)
    880127706000000000
    """
    try:
        tokens = tokenize(fmt)
    except ValueError as e:
        raise ChronoParseError(str(e)) from None
    f = _Scanner(text).run(tokens)
    if "timestamp" in f:
        return f["timestamp"] * 1_000_000_000 + f.get("nanos", 0)
    if "hour" in f:  # from %+
        f["H"], f["M"], f["S"] = f["hour"], f["minute"], f["second"]
    naive = _naive(f)
    if require_offset and "offset" not in f:
        raise ChronoParseError(NOT_ENOUGH)
    offset = f.get("offset", 0) if require_offset else 0
    aware = naive.replace(tzinfo=timezone(timedelta(seconds=offset)))
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    delta = aware - epoch
    seconds = delta.days * 86_400 + delta.seconds
    return seconds * 1_000_000_000 + f.get("nanos", 0)
