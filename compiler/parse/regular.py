"""A PEG rule that refers to no rule recursively, as one Python regex with the rule's meaning.

:func:`as_regex` gives the pattern whose ``match`` at a position ends where the rule's PEG match
ends (or fails where it fails): PEG never backtracks into what an expression matched, so each
part is an atomic group (``(?>…)``, Python 3.11) and each repetition is possessive. A sequence
``a b`` is ``(?>a)(?>b)``; an ordered choice ``a / b`` is ``(?>a|b)`` (the first alternative
that matches is kept); ``a?`` and ``a*`` are ``(?:a)?+`` and ``(?:a)*+`` (both stop, as
parsimonious does, on a repetition that matches the empty text, and at the end of the text they
end where it is); ``&a`` and ``!a`` are lookaheads; a terminal regex is its own pattern in an
atomic group. Only Python's ``re`` is meant: the fast matcher uses these patterns on plain ASCII
texts, where ``re`` and parsimonious' ``regex`` agree on every terminal (see ``fastpeg._PLAIN``).

Anything else is refused (None): recursion, other repetition counts (parsimonious tries no
repetition at the end of the text, a regex does, and ``a+`` could differ there), terminal
regexes with flags of their own or back-references (their groups are renumbered inside the
whole), and patterns ``re`` does not take.
"""

from __future__ import annotations

import re

from .peg import PLAIN_FLAGS, Expression, Literal, Lookahead, OneOf, Quantifier, Regex, Sequence

_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")


def as_regex(expr: Expression) -> re.Pattern[str] | None:
    """``expr`` as one compiled ``re`` pattern with its PEG meaning, or None (see the module
    doc)."""
    pattern = _Patterns().of(expr)
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error:
        return None


MAX_PATTERN = 4096
"""Longest pattern made: a rule reaching far into the grammar is not worth one regex."""


class _Patterns:
    """Patterns of a grammar's expressions, each made once (a grammar is a graph: a rule shared
    by many is not expanded again, and a rule on a cycle or reaching one has none)."""

    def __init__(self) -> None:
        self.done: dict[int, str | None] = {}
        self.open: set[int] = set()

    def of(self, expr: Expression) -> str | None:
        key = id(expr)
        if key in self.open:
            return None  # recursion: every rule on the way reaches a cycle
        if key not in self.done:
            self.open.add(key)
            try:
                pattern = self._make(expr)
            finally:
                self.open.discard(key)
            too_long = pattern is not None and len(pattern) > MAX_PATTERN
            self.done[key] = None if too_long else pattern
        return self.done[key]

    def _make(self, expr: Expression) -> str | None:
        kind = type(expr)
        if kind is Literal:
            return re.escape(expr.literal)
        if kind is Regex:
            return _terminal(expr)
        parts = []
        for member in getattr(expr, "members", ()):
            part = self.of(member)
            if part is None:
                return None
            parts.append(part)
        if kind is Sequence:
            return "".join(f"(?>{part})" for part in parts)
        if kind is OneOf:
            return "(?>" + "|".join(f"(?:{part})" for part in parts) + ")"
        if kind is Lookahead:
            return f"(?{'!' if expr.negativity else '='}{parts[0]})"
        if kind is Quantifier:
            bounds = (expr.min, expr.max)
            if bounds == (0, 1):
                return f"(?:{parts[0]})?+"
            if bounds == (0, float("inf")):
                return f"(?:{parts[0]})*+"
        return None


def _terminal(expr: Regex) -> str | None:
    """A terminal regex's pattern as an atomic group, or None when it has flags of its own or
    refers back to its groups."""
    pattern = expr.pattern
    if expr.flags != PLAIN_FLAGS or _BACKREFERENCE.search(pattern):
        return None
    return f"(?>{pattern})"
