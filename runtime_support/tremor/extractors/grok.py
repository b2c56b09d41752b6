"""The ``grok`` extractor: ``%{PATTERN:alias}`` templates over a library of named regexes.

The default library ships as ``runtime_support/data/grok.patterns`` (loaded once);
``/etc/tremor/grok.patterns`` replaces it when present, as in Tremor.

Expansion follows the Rust ``grok`` crate that Tremor uses: repeatedly take the leftmost
``%{…}`` reference and replace every occurrence of that exact text, one at a time, numbering
each replacement ``name0``, ``name1``, … in that order. An aliased reference becomes the group
``name<i>`` (reported under its alias), an unaliased one a non-capturing group. Named groups
written directly in a pattern (``(?<x>…)``, Oniguruma syntax) are reported under their own
name. When two references share an alias, the last one wins the alias and the earlier ones are
reported as ``name<i>``, exactly as in Tremor. Groups that did not participate are omitted.

>>> g = Grok("%{USERNAME:snot} %{USERNAME:snot}")
>>> g.extract("foobar badger")
{'name0': 'foobar', 'snot': 'badger'}
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any

from runtime_support.tremor.extractors.base import NO_MATCH, Extractor, ExtractorError
from runtime_support.tremor.extractors.literals import required_literals

__all__ = ["Grok", "load_patterns", "to_python_regex"]

# The crate's reference syntax: `[A-z]` (sic) also admits `[\]^_` and a backtick, and an alias
# may contain `:` (so logstash's `%{NUMBER:n:int}` yields the field name `n:int`).
_REF = re.compile(
    r"%\{(?P<name>(?P<pattern>[A-z0-9]+)(?::(?P<alias>[A-z0-9_:;/\s.]+))?)"
    r"(?:=(?P<definition>[^{}]+))?\}"
)
# Oniguruma's `(?<name>` (not the look-behinds `(?<=` / `(?<!`), unless the `(` is escaped.
_ONIG_NAMED = re.compile(r"(?<!\\)\(\?<(?![=!])")
_MAX_RECURSION = 1024
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


def to_python_regex(onig: str) -> str:
    """Rewrite Oniguruma syntax Python's ``re`` spells differently (named groups).

    >>> to_python_regex(r"(?<v>\\d+)(?<!x)(?<=y)")
    '(?P<v>\\\\d+)(?<!x)(?<=y)'
    """
    return _ONIG_NAMED.sub("(?P<", onig)


def expand(rule: str, patterns: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Expand every ``%{…}`` reference; returns the regex and the alias → group-name map."""
    patterns = dict(patterns)
    text, alias, index = rule, {}, 0
    for _ in range(_MAX_RECURSION):
        m = _REF.search(text)
        if m is None:
            return text, alias
        name = m.group("name")
        if m.group("definition") is not None:
            patterns[m.group("pattern")] = m.group("definition")
            name = f"{name}={m.group('definition')}"
        body = patterns.get(m.group("pattern"))
        if body is None:
            raise ExtractorError(
                f'The given pattern definition name "{m.group("pattern")}" could not be found '
                "in the definition map"
            )
        token = "%{" + name + "}"
        for _ in range(text.count(token)):
            if m.group("alias") is None:
                repl = f"(?:{body})"
            else:
                alias[m.group("alias")] = f"name{index}"
                repl = f"(?<name{index}>{body})"
            text = text.replace(token, repl, 1)
            index += 1
    raise ExtractorError(f"Recursion while compiling reached the limit of {_MAX_RECURSION}")


class Grok(Extractor):
    """Unanchored grok match; result = record of the named captures that participated."""

    name = "grok"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        onig, alias = expand(rule, load_patterns())
        if not onig:
            raise ExtractorError(
                f'The given pattern "{rule}" ended up compiling into an empty regex'
            )
        try:
            # Ruby syntax (Oniguruma's default): `^` and `$` are line anchors.
            self.rx = re.compile(to_python_regex(onig), re.MULTILINE)
        except re.error as e:
            raise ExtractorError(f"grok: {e}") from None
        group_to_alias = {g: a for a, g in alias.items()}
        self.keys = {g: group_to_alias.get(g, g) for g in self.rx.groupindex}
        # a text lacking one of these cannot match: no backtracking search through it
        self.required = required_literals(self.rx)

    def run(self, text: str, ctx: Any) -> Any:
        for literal in self.required:
            if literal not in text:
                return NO_MATCH
        m = self.rx.search(text)
        if m is None:
            return NO_MATCH
        return {self.keys[g]: v for g, v in m.groupdict().items() if v is not None}
