"""The ``grok`` extractor: ``%{PATTERN:name}`` templates over a library of named regexes.

The default library ships as ``runtime_support/data/grok.patterns`` (loaded once);
``/etc/tremor/grok.patterns`` replaces it when present, as in Tremor.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any

from runtime_support.extractors.base import NO_MATCH, Extractor, ExtractorError

__all__ = ["Grok", "load_patterns"]

_REF = re.compile(r"%\{(\w+)(?::([\w.@\[\]-]+))?(?::(int|float))?\}")
_SYSTEM_PATTERNS = Path("/etc/tremor/grok.patterns")


def _parse(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, body = line.strip().partition(" ")
            out[name] = body.strip()
    return out


@functools.cache
def load_patterns() -> dict[str, str]:
    """The pattern library (name → grok body), loaded once."""
    if _SYSTEM_PATTERNS.is_file():
        return _parse(_SYSTEM_PATTERNS.read_text())
    data = resources.files("runtime_support.data").joinpath("grok.patterns").read_text()
    return _parse(data)


class _Expander:
    def __init__(self, patterns: dict[str, str]) -> None:
        self.patterns = patterns
        self.names: dict[str, str] = {}  # group id -> field name

    def expand(self, body: str, depth: int = 0) -> str:
        if depth > 64:
            raise ExtractorError("grok pattern recursion too deep")
        body = re.sub(r"\(\?<(?![=!])(\w+)>", r"(?:", body) if depth else body
        return _REF.sub(lambda m: self._ref(m, depth), body)

    def _ref(self, m: re.Match[str], depth: int) -> str:
        name, alias = m.group(1), m.group(2)
        if name not in self.patterns:
            raise ExtractorError(f'The given pattern definition name "{name}" could not be found')
        inner = self.expand(self.patterns[name], depth + 1)
        if not alias:
            return f"(?:{inner})"
        gid = f"g{len(self.names)}"
        self.names[gid] = alias
        return f"(?P<{gid}>{inner})"


class Grok(Extractor):
    """Unanchored grok match; result = record of the aliased captures (strings)."""

    name = "grok"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        exp = _Expander(load_patterns())
        try:
            self.rx = re.compile(exp.expand(rule, 0))
        except re.error as e:
            raise ExtractorError(f"grok: {e}") from None
        self.names = exp.names

    def run(self, text: str, ctx: Any) -> Any:
        m = self.rx.search(text)
        if m is None:
            return NO_MATCH
        return {self.names[g]: v for g, v in m.groupdict().items() if v is not None}
