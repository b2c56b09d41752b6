"""The PEG grammars of Tremor's languages, as parsimonious ``.ppeg`` files.

``load_grammar("query", "script")`` concatenates ``query.ppeg`` then ``script.ppeg``; the first
rule of the first file is the default rule. Grammars are cached per name tuple.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from parsimonious import Grammar

_HERE = Path(__file__).parent


@cache
def grammar_text(*names: str) -> str:
    """The concatenated text of ``<name>.ppeg`` files, in order."""
    return "\n".join((_HERE / f"{name}.ppeg").read_text(encoding="utf-8") for name in names)


@cache
def load_grammar(*names: str) -> Grammar:
    """A parsimonious Grammar built from ``<name>.ppeg`` files (first file's first rule first)."""
    return Grammar(grammar_text(*names))
