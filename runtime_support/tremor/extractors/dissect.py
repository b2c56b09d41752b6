"""The ``dissect`` extractor, with the semantics of Tremor's ``dissect`` crate (0.7).

A rule is a sequence of delimiters (literal text; ``\\\\``, ``\\n``, ``\\t``, ``\\r`` escapes),
fields ``%{name}`` / ``%{name:int|float|string}``, append ``%{+name}``, skip ``%{?name}`` /
``%{}``, named key ``%{&name}`` (the value a ``%{?name}`` took, consumed once) and padding
``%{_}`` / ``%{_(chars)}``. Invariants: everything after the modifier is the field name
(``%{+a/2}`` appends to ``"a/2"``, ``%{a->}`` is field ``"a->"``: logstash's ``/n`` ordering
and ``->`` padding do not exist in Tremor); appends join with the most recent padding (a space
before any); an append onto a non-string (a typed field) removes that field, as Tremor does; a
field reads up to the next delimiter (or padding), the last field takes the rest; the whole
input must be consumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.extractors.base import NO_MATCH, Extractor, ExtractorError

__all__ = ["Dissect"]

_ESCAPES = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_TYPES = ("int", "float", "string")


@dataclass(frozen=True)
class _Delim:
    text: str


@dataclass(frozen=True)
class _Pad:
    text: str


@dataclass(frozen=True)
class _Pat:
    name: str
    ignore: bool = False
    lookup: bool = False
    add: bool = False
    conv: str = "string"


def _unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for c in chars:
        if c != "\\":
            out.append(c)
            continue
        nxt = next(chars, None)
        if nxt is None:
            raise ExtractorError(
                "Unterminated escape at the end of line or of a delimiter %{ can't be escaped"
            )
        if nxt not in _ESCAPES:
            raise ExtractorError(f"Invalid escape sequence \\'{nxt}' is not valid.")
        out.append(_ESCAPES[nxt])
    return "".join(out)


def _typed(body: str, idx: int, lookup: bool = False) -> _Pat:
    name, colon, conv = body.partition(":")
    if colon and conv not in _TYPES:
        raise ExtractorError(f"Invalid type '{idx}' at {conv}")
    return _Pat(name, lookup=lookup, conv=conv if colon else "string")


def _parse_field(body: str, idx: int) -> _Pat | _Pad:
    if not body:
        return _Pat("", ignore=True)
    mod, rest = body[0], body[1:]
    if mod == "?":
        return _Pat(rest, ignore=True)
    if mod == "+":
        return _Pat(rest, add=True)
    if mod == "&":
        return _typed(rest, idx, lookup=True)
    if mod == "_":
        if not rest:
            return _Pad(" ")
        if len(rest) >= 2 and rest[0] == "(" and rest[-1] == ")":
            return _Pad(rest[1:-1])
        raise ExtractorError(f"Invalid padding at {idx}")
    return _typed(body, idx)


def _compile(rule: str) -> list[_Delim | _Pad | _Pat]:
    """Tremor's ``Pattern::compile``; error offsets are UTF-8 byte offsets as in Tremor."""
    cmds: list[_Delim | _Pad | _Pat] = []
    pos, was_field = 0, False
    while pos < len(rule):
        idx = len(rule[:pos].encode())
        if not rule.startswith("%{", pos):
            nxt = rule.find("%{", pos)
            end = len(rule) if nxt < 0 else nxt
            cmds.append(_Delim(_unescape(rule[pos:end])))
            pos, was_field = end, False
            continue
        close = rule.find("}", pos)
        opener = rule.find("%{", pos + 2)
        if close < 0 or 0 <= opener < close:
            raise ExtractorError(f"Unterminated patter at {idx}")
        cmd = _parse_field(rule[pos + 2 : close], idx)
        pos = close + 1
        if isinstance(cmd, _Pad):
            if rule.startswith(cmd.text, pos):
                raise ExtractorError(
                    f"The padding at {idx} can't be followed up by a dilimiter that begins with it"
                )
        elif was_field:
            raise ExtractorError(
                f"A dilimiter needs to be provided between the two patterns at {idx}"
            )
        was_field = isinstance(cmd, _Pat)
        cmds.append(cmd)
    return cmds


_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)"
)


def _convert(value: str, conv: str) -> Any:
    """Rust's ``str::parse`` for i64 / f64 (no whitespace, no ``_``); NO_MATCH if it fails."""
    if conv == "int":
        if not _INT.fullmatch(value) or not -(2**63) <= int(value) < 2**63:
            return NO_MATCH
        return int(value)
    if conv == "float":
        return float(value) if _FLOAT.fullmatch(value) else NO_MATCH
    return value


def _swap_pop(out: dict[str, Any], key: str) -> Any:
    """Remove ``key`` as small Tremor records do (``swap_remove``: the last key fills its slot)."""
    keys = list(out)
    if key not in out:
        return None
    value = out.pop(key)
    i = keys.index(key)
    if i < len(keys) - 1:
        items = list(out.items())
        items.insert(i, items.pop())
        out.clear()
        out.update(items)
    return value


def _lstrip_all(text: str, pad: str) -> str:
    if not pad:
        return text
    while text.startswith(pad):
        text = text[len(pad) :]
    return text


class _Run:
    """One match attempt: the output record, the skipped values and the append separator."""

    def __init__(self) -> None:
        self.out: dict[str, Any] = {}
        self.ignored: dict[str, str] = {}
        self.last_sep = " "

    def insert(self, pat: _Pat, name: str, value: str) -> bool:
        if pat.ignore:
            self.ignored[name] = value
            return True
        if pat.add:
            old = _swap_pop(self.out, name)
            if old is None:
                self.out[name] = value
            elif type(old) is str:
                self.out[name] = f"{old}{self.last_sep}{value}"
            return True
        converted = _convert(value, pat.conv)
        if converted is NO_MATCH:
            return False
        self.out[name] = converted
        return True


def _field_end(cmds: list, k: int, data: str) -> int:
    """Where the field at ``cmds[k]`` ends in ``data``: -1 for no match."""
    nxt = cmds[k + 1] if k + 1 < len(cmds) else None
    if nxt is None:
        return len(data)
    if isinstance(nxt, _Delim):
        return data.find(nxt.text)
    if isinstance(nxt, _Pad):
        end = data.find(nxt.text)
        if end >= 0:
            return end
        after = cmds[k + 2] if k + 2 < len(cmds) else None
        if after is None:
            return len(data)
        return data.find(after.text) if isinstance(after, _Delim) else -1
    return -1


def _run(cmds: list, data: str) -> Any:
    run = _Run()
    for k, cmd in enumerate(cmds):
        if isinstance(cmd, _Delim):
            if not data.startswith(cmd.text):
                return NO_MATCH
            data = data[len(cmd.text) :]
            continue
        if isinstance(cmd, _Pad):
            run.last_sep = cmd.text
            data = _lstrip_all(data, cmd.text)
            continue
        name = cmd.name
        if cmd.lookup:
            name = run.ignored.pop(cmd.name, "")
            if not name:
                return NO_MATCH
        end = _field_end(cmds, k, data)
        if end < 0 or not run.insert(cmd, name, data[:end]):
            return NO_MATCH
        if k + 1 == len(cmds):
            return run.out
        data = data[end:]
    return run.out if not data else NO_MATCH


class Dissect(Extractor):
    """A compiled dissect rule; invalid rules raise Tremor's compile error text."""

    name = "dissect"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.commands = _compile(rule)

    def run(self, text: str, ctx: Any) -> Any:
        return _run(self.commands, text)
