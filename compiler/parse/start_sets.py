"""Which characters a grammar expression's match can start with, for plain texts.

:func:`starts` answers for one grammar expression (:mod:`compiler.parse.peg`): the set of
characters its match can begin with, and whether it can match the empty text; or None when
that is not known. The answer is exact or larger, never smaller: an alternative left out of a
choice for a character could never have matched there. It is only about *plain* texts (the
printable ASCII and whitespace of :data:`PLAIN_CHARS`, where ``fastpeg`` matches with Python's
``re``), whose every character it classifies.

Terminals: a literal starts with its first character; a regex is read with ``re``'s own parser
and its first consuming items are compiled one at a time and tried on every plain character.
Lookaheads consume nothing: they match the empty text and add no character. Recursion through
a rule still being analysed answers None (unknown), so a cycle only makes the answer larger.
"""

from __future__ import annotations

from collections.abc import Iterable
from re import _compiler as re_compiler  # type: ignore[attr-defined]
from re import _constants as re_constants  # type: ignore[attr-defined]
from re import _parser as re_parser  # type: ignore[attr-defined]
from typing import Any

from .peg import PLAIN_FLAGS, Expression, Literal, Lookahead, OneOf, Quantifier, Regex
from .peg import Sequence as PegSequence

#: The characters of a plain text (``fastpeg._PLAIN``): tab, newline, vertical tab, form feed,
#: carriage return and printable ASCII.
PLAIN_CHARS = "\t\n\x0b\x0c\r" + "".join(map(chr, range(0x20, 0x7F)))

Starts = tuple[frozenset[str], bool]  # (first characters, matches the empty text)

_SINGLE = {
    re_constants.LITERAL,
    re_constants.NOT_LITERAL,
    re_constants.IN,
    re_constants.ANY,
    re_constants.CATEGORY,
}
_REPEATS = {
    re_constants.MAX_REPEAT,
    re_constants.MIN_REPEAT,
    getattr(re_constants, "POSSESSIVE_REPEAT", re_constants.MAX_REPEAT),
}
_ZERO_WIDTH = {re_constants.AT, re_constants.ASSERT, re_constants.ASSERT_NOT}

_ANALYSED: dict[int, tuple[Expression, Starts | None]] = {}
_IN_PROGRESS: set[int] = set()
_REGEXES: dict[str, Starts | None] = {}


def starts(expr: Expression) -> Starts | None:
    """``expr``'s first characters on plain texts and whether it matches the empty text, or
    None when unknown (memoised per expression, which the memo keeps alive)."""
    key = id(expr)
    found = _ANALYSED.get(key)
    if found is not None:
        return found[1]
    if key in _IN_PROGRESS:
        return None
    _IN_PROGRESS.add(key)
    try:
        result = _analyse(expr)
    finally:
        _IN_PROGRESS.discard(key)
    _ANALYSED[key] = (expr, result)
    return result


def _analyse(expr: Expression) -> Starts | None:
    kind = type(expr)
    if kind is Literal:
        text = expr.literal
        return (frozenset(text[0]), False) if text else (frozenset(), True)
    if kind is Regex:
        if expr.flags != PLAIN_FLAGS:  # a regex with flags of its own is not analysed
            return None
        return regex_starts(expr.pattern)
    if kind is Lookahead:
        return frozenset(), True
    if kind is Quantifier:
        inner = starts(expr.members[0])
        return None if inner is None else (inner[0], inner[1] or expr.min == 0)
    if kind is OneOf:
        found = [starts(member) for member in expr.members]
        if any(f is None for f in found):
            return None
        return frozenset().union(*(f[0] for f in found)), any(f[1] for f in found)  # type: ignore[index]
    if kind is PegSequence:
        return sequence_starts(expr.members)
    return None


def sequence_starts(members: Iterable[Expression]) -> Starts | None:
    """The starts of ``members`` matched one after the other."""
    return _concatenated([lambda m=m: starts(m) for m in members])


def _concatenated(parts: list[Any]) -> Starts | None:
    """The starts of parts matched one after the other (each part a thunk giving its starts):
    a part's characters count while every part before it can match the empty text."""
    chars: set[str] = set()
    for part in parts:
        found = part()
        if found is None:
            return None
        chars |= found[0]
        if not found[1]:
            return frozenset(chars), False
    return frozenset(chars), True


def regex_starts(pattern: str) -> Starts | None:
    """The starts of ``pattern`` as Python's ``re`` matches it (memoised per pattern)."""
    if pattern not in _REGEXES:
        try:
            parsed = re_parser.parse(pattern, 0)
            _REGEXES[pattern] = _items(list(parsed), parsed.state)
        except Exception:  # noqa: BLE001 - anything re's internals refuse is simply unknown
            _REGEXES[pattern] = None
    return _REGEXES[pattern]


def _items(items: list[tuple[Any, Any]], state: Any) -> Starts | None:
    return _concatenated([lambda item=item: _item(*item, state) for item in items])


def _item(op: Any, arg: Any, state: Any) -> Starts | None:
    """The starts of one parsed regex item."""
    if op in _SINGLE:
        single = re_compiler.compile(re_parser.SubPattern(state, [(op, arg)]), state.flags)
        return frozenset(c for c in PLAIN_CHARS if single.match(c)), False
    if op is re_constants.SUBPATTERN:
        _group, add_flags, del_flags, sub = arg
        return None if add_flags or del_flags else _items(list(sub), state)
    if op in _REPEATS:
        low, _high, sub = arg
        inner = _items(list(sub), state)
        return None if inner is None else (inner[0], inner[1] or low == 0)
    if op is re_constants.BRANCH:
        found = [_items(list(branch), state) for branch in arg[1]]
        if any(f is None for f in found):
            return None
        return frozenset().union(*(f[0] for f in found)), any(f[1] for f in found)  # type: ignore[index]
    if op in _ZERO_WIDTH:
        return frozenset(), True
    if op is getattr(re_constants, "ATOMIC_GROUP", None):
        return _items(list(arg), state)
    return None
