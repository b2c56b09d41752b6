"""The ``dissect`` extractor: logstash-style ``%{field}`` templates over delimiters.

Supported: ``%{f}``, ``%{+f}`` (append, joined by a space), ``%{?f}`` / ``%{}`` (skip),
``%{&f}`` (value of the field named by an earlier ``%{?f}``), ``%{f:int}`` / ``%{f:float}``,
``%{_}`` / ``%{_(x)}`` padding. The whole input must be consumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from runtime_support.extractors.base import NO_MATCH, Extractor, ExtractorError

__all__ = ["Dissect"]

_FIELD = re.compile(r"%\{([^}]*)\}")


@dataclass(frozen=True)
class _Field:
    name: str
    mod: str  # "", "+", "?", "&", "_"
    conv: str | None
    pad: str = " "


def _parse_field(body: str) -> _Field:
    if body.startswith("_"):
        m = re.fullmatch(r"_(?:\((.+)\))?", body)
        if not m:
            raise ExtractorError(f"invalid dissect padding: {body}")
        return _Field("", "_", None, m.group(1) or " ")
    mod = body[:1] if body[:1] in "+?&" and body else ""
    name, _, conv = body[len(mod) :].partition(":")
    if conv and conv not in ("int", "float"):
        raise ExtractorError(f"invalid dissect type: {conv}")
    return _Field(name, mod if name or mod else "?", conv or None)


class Dissect(Extractor):
    """A template of literal delimiters and fields matched left to right."""

    name = "dissect"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.items: list[str | _Field] = []
        pos = 0
        for m in _FIELD.finditer(rule):
            if m.start() > pos:
                self.items.append(rule[pos : m.start()])
            self.items.append(_parse_field(m.group(1)))
            pos = m.end()
        if pos < len(rule):
            self.items.append(rule[pos:])

    def run(self, text: str, ctx: Any) -> Any:
        out: dict[str, Any] = {}
        named: dict[str, str] = {}
        i = 0
        items = self.items
        for k, item in enumerate(items):
            if isinstance(item, str):
                if not text.startswith(item, i):
                    return NO_MATCH
                i += len(item)
                continue
            if item.mod == "_":
                while text.startswith(item.pad, i):
                    i += len(item.pad)
                continue
            nxt = items[k + 1] if k + 1 < len(items) else None
            if nxt is None:
                end = len(text)
            elif isinstance(nxt, str):
                end = text.find(nxt, i)
                if end < 0:
                    return NO_MATCH
            else:
                end = len(text) if nxt.mod != "_" else text.find(nxt.pad, i)
                end = len(text) if end < 0 else end
            if not self._store(item, text[i:end], out, named):
                return NO_MATCH
            i = end
        return out if i == len(text) else NO_MATCH

    @staticmethod
    def _store(f: _Field, value: str, out: dict, named: dict) -> bool:
        if f.mod == "?":
            named[f.name] = value
            return True
        if f.mod == "&":
            if f.name not in named:
                return False
            out[named[f.name]] = value
            return True
        converted: Any = value
        try:
            if f.conv == "int":
                converted = int(value)
            elif f.conv == "float":
                converted = float(value)
        except ValueError:
            return False
        if f.mod == "+" and f.name in out:
            out[f.name] = f"{out[f.name]} {value}"
        else:
            out[f.name] = converted
        return True
