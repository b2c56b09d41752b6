"""The PEG grammars of Tremor's languages, as parsimonious ``.ppeg`` files.

``load_grammar("query", "script")`` concatenates ``query.ppeg`` then ``script.ppeg`` into one
parsimonious ``Grammar``; the first rule of the first file is the default rule. The ``keyword``
rule (the words an identifier may not be) is not written in any file: it is generated from
:data:`compiler.lex.KEYWORDS`, the one list of Tremor's keywords. Every literal of the grammar
is a :class:`TokenLiteral`.

Invariant: one ``Grammar`` per name tuple per process (``functools.cache``); nothing is cached
across processes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from parsimonious import Grammar
from parsimonious.expressions import Literal

from ..lex import KEYWORDS

_HERE = Path(__file__).parent


class TokenLiteral(Literal):  # type: ignore[misc]
    """A literal that fails where it would match only the start of a punctuation token of
    Tremor's lexer (``::`` at ``:::``, ``<`` at ``<=``): Tremor's parser reads whole tokens.
    The ``error`` object a match reports to maps where each punctuation token starts to where
    it ends (``punctuation``)."""

    __slots__ = ()

    def _uncached_match(self, text: str, pos: int, cache: Any, error: Any) -> Any:
        node = super()._uncached_match(text, pos, cache, error)
        if node is not None and node.end < error.punctuation.get(pos, node.end):
            return None
        return node


@cache
def grammar_text(*names: str) -> str:
    """The concatenated text of ``<name>.ppeg`` files, in order, then the ``keyword`` rule."""
    words = "|".join(sorted(KEYWORDS, key=lambda word: (-len(word), word)))
    keyword = f'keyword = ~r"(?:{words})(?!\\w)"\n'
    files = [(_HERE / f"{name}.ppeg").read_text(encoding="utf-8") for name in names]
    return "\n".join([*files, keyword])


@cache
def load_grammar(*names: str) -> Grammar:
    r"""The parsimonious Grammar of ``<name>.ppeg`` files (first file's first rule first), its
    literals :class:`TokenLiteral`\ s."""
    grammar = Grammar(grammar_text(*names))
    seen: set[int] = set()
    stack: list[Any] = list(grammar.values())
    while stack:
        expr = stack.pop()
        if id(expr) not in seen:
            seen.add(id(expr))
            if type(expr) is Literal:
                expr.__class__ = TokenLiteral
            stack.extend(getattr(expr, "members", ()))
    return grammar
