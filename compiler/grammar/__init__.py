"""The PEG grammars of Tremor's languages, as parsimonious ``.ppeg`` files.

``load_grammar("query", "script")`` concatenates ``query.ppeg`` then ``script.ppeg`` into one
parsimonious ``Grammar``; the first rule of the first file is the default rule. The ``keyword``
rule (the words an identifier may not be) is not written in any file: it is generated from
:data:`compiler.lex.KEYWORDS`, the one list of Tremor's keywords.

Invariant: one ``Grammar`` per name tuple per process (``functools.cache``); nothing is cached
across processes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..lex import KEYWORDS

if TYPE_CHECKING:
    from parsimonious import Grammar

_HERE = Path(__file__).parent


@cache
def grammar_text(*names: str) -> str:
    """The concatenated text of ``<name>.ppeg`` files, in order, then the ``keyword`` rule."""
    words = "|".join(sorted(KEYWORDS, key=lambda word: (-len(word), word)))
    keyword = f'keyword = ~r"(?:{words})(?!\\w)"\n'
    files = [(_HERE / f"{name}.ppeg").read_text(encoding="utf-8") for name in names]
    return "\n".join([*files, keyword])


@cache
def load_grammar(*names: str) -> Grammar:
    """The parsimonious Grammar of ``<name>.ppeg`` files (first file's first rule first)."""
    from parsimonious import Grammar

    return Grammar(grammar_text(*names))
