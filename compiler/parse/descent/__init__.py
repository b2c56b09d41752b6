"""A recursive-descent parser for tremor-script's statement and expression rules: the AST the
``script.ppeg`` grammar and :class:`~compiler.parse.script.ScriptVisitor` give, without building
a parse tree and visiting it.

The fast matcher (:mod:`compiler.parse.fastpeg`) runs it, on a plain-ASCII text, wherever the
grammar reaches one of :data:`RULES` (``script_items``: a script's body; ``expr_imut``: an
expression of a trickle or troy statement), and the visitor takes its value as that rule's.

Invariant (the grammar decides, this parser only answers faster): each rule method, given a
position, returns ``(value, end)``, exactly the visited value and the end the PEG rule gives
there; or raises :class:`Fail` only where the PEG rule surely fails at that position (decided on
its first token); or raises :class:`Unsupported` (a construct left to the grammar, such as an
indexed ``let`` target, or any failure past the first token: a syntax error). On Fail the
rule fails there, as the grammar's would; on Unsupported the matcher runs the grammar's own rule
at that position, so a syntax error is still found and worded by the grammar's one slow path.
``tests/test_descent.py`` compares the trees, spans included, with the grammar's over every
program of the corpus and the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .expressions import Expressions
from .lexical import Fail, Unsupported
from .literals import Literals
from .patterns import Patterns
from .statements import Statements

__all__ = ["ENABLED", "RULES", "Descent", "Fail", "Unsupported"]

ENABLED = True
"""Whether visitors hand this parser to the fast matcher (the differential tests turn it off)."""

RULES = ("script_items", "expr_imut")
"""The grammar rules this parser answers for (by rule name)."""


class Descent(Statements, Expressions, Literals, Patterns):
    """The parser of one text: the rules of each part of the grammar come from their module
    (``statements``, ``expressions``, ``literals``, ``patterns``), the lexical ones from
    :class:`~.lexical.Lexical`, which each part derives."""

    def rules(self) -> dict[str, Callable[[int], tuple[Any, int]]]:
        """:data:`RULES` to their methods."""
        return {"script_items": self.script_items, "expr_imut": self.expr_imut}
