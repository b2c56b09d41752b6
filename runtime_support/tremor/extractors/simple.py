"""Small extractors: ``re``, ``rerg``, ``glob``, ``base64``, ``json``, ``datetime``."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from runtime_support.tremor.extractors.base import NO_MATCH, Extractor, ExtractorError
from runtime_support.tremor.jsonio import decode_json
from runtime_support.tremor.stdlib.rust_regex import RegexError, compile_rust

__all__ = ["Base64", "DatetimeEx", "Glob", "JsonEx", "Re", "Rerg"]


class Re(Extractor):
    """Unanchored regex search; result = record of the named groups that participated."""

    name = "re"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        try:
            self.rx = compile_rust(rule)
        except RegexError as e:
            raise ExtractorError(str(e)) from None

    def run(self, text: str, ctx: Any) -> Any:
        m = self.rx.search(text)
        if m is None:
            return NO_MATCH
        return {k: v for k, v in m.groupdict().items() if v is not None}


class Rerg(Re):
    """Every match; result = record of group name → array of that group's captures."""

    name = "rerg"

    def run(self, text: str, ctx: Any) -> Any:
        out: dict[str, list] = {}
        found = False
        for m in self.rx.finditer(text):
            found = True
            for k, v in m.groupdict().items():
                if v is not None:
                    out.setdefault(k, []).append(v)
        return out if found else NO_MATCH


def glob_to_regex(rule: str) -> str:
    """Translate a shell glob to a Python regex (``*`` any run, ``?`` one char, ``[!..]``).

    >>> glob_to_regex("INFO*[!a-c]?")
    'INFO.*[^a-c].'
    """
    out, i = [], 0
    while i < len(rule):
        c = rule[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and rule.find("]", i + 2) > 0:
            end = rule.find("]", i + 2)
            body = rule[i + 1 : end]
            neg = body.startswith("!")
            body = body[1:] if neg else body
            out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class Glob(Extractor):
    """Whole-string shell glob; extraction is ``true``."""

    name = "glob"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self._rx: re.Pattern[str] | None = None
        if "[" in rule:  # only a character class can make the regex invalid: checked now
            self._compile()

    def _compile(self) -> re.Pattern[str]:
        """The glob's regex, compiled on first use (a build checks every glob of a program and
        runs none)."""
        try:
            self._rx = re.compile(glob_to_regex(self.rule), re.S)
        except (re.error, ValueError) as e:
            raise ExtractorError(f"invalid glob pattern: {e}") from None
        return self._rx

    def run(self, text: str, ctx: Any) -> Any:
        return True if (self._rx or self._compile()).fullmatch(text) else NO_MATCH


class Base64(Extractor):
    """Standard padded base64 decoding to a UTF-8 string."""

    name = "base64"

    def run(self, text: str, ctx: Any) -> Any:
        try:
            return base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return NO_MATCH


class JsonEx(Extractor):
    """JSON text to its value."""

    name = "json"

    def run(self, text: str, ctx: Any) -> Any:
        try:
            return decode_json(text)
        except ValueError:
            return NO_MATCH


_TZ_SPECS = ("%z", "%:z", "%::z", "%:::z", "%#z", "%+", "%Z")


class DatetimeEx(Extractor):
    """chrono-format parsing to UTC nanoseconds (naive UTC without an offset specifier)."""

    name = "datetime"

    def run(self, text: str, ctx: Any) -> Any:
        # imported here: chrono's tables load only for programs that parse dates
        from runtime_support.tremor.stdlib.chrono_parse import ChronoParseError, parse_to_nanos

        has_tz = any(s in self.rule for s in _TZ_SPECS)
        try:
            ns = parse_to_nanos(text, self.rule, has_tz)
        except ChronoParseError:
            return NO_MATCH
        return ns if ns >= 0 else NO_MATCH
