"""Black's string-quote normalisation of one string literal, without importing black.

Black prefers double quotes: it rewrites a literal with the other quote when that needs no more
backslashes than the original (after dropping escapes of the other quote, which the original
never needed), and keeps single quotes only when double quotes would need more. This module
applies that rule to plain and ``b``-prefixed one-line literals, reading the body as escape
units (a backslash and the character it escapes) with one regex pass per form: black's own
regexes took 0.1 s per call over the source text a large job embeds, and a loop over the
characters 0.25 s. Other literals (raw, f-strings, triple quotes) go to black's own function.
Invariant: the result is ``normalize_string_quotes``'s (tests/test_black_free.py compares them
on generated and hand-written literals).
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=4096)
def black_quotes(text: str) -> str:
    """Black's form of the string literal ``text`` (its quotes; nothing else changes)."""
    prefix = "b" if text[:1] == "b" else ""
    quoted = text[len(prefix) :]
    if quoted[:1] not in ("'", '"') or quoted[:3] in ('"""', "'''") or len(quoted) < 2:
        return _black_normalize(text)
    old = quoted[0]
    new = "'" if old == '"' else '"'
    body = quoted[1:-1]
    if _lone_backslash(body):
        return _black_normalize(text)
    # Escapes of the other quote are unnecessary in the original: black drops them first.
    original = _ESCAPE.sub(lambda m: new if m.group(1) == new else m.group(0), body)
    swapped = _SWAP[old].sub(
        lambda m: old if m.group(1) == old else "\\" + new if m.group(2) else m.group(0),
        original,
    )
    before = original.count("\\")
    after = swapped.count("\\")
    if after > before or after == before and old == '"':
        return f"{prefix}{old}{original}{old}"
    return f"{prefix}{new}{swapped}{new}"


#: One escape unit: a backslash and the character it escapes (scanned left to right, so ``\\\\``
#: is one unit and the quote after it is bare).
_ESCAPE = re.compile(r"\\(.)", re.S)
#: An escape unit, or a bare occurrence of the quote that swapping to ``old``'s other quote
#: must escape (group 2).
_SWAP = {q: re.compile(r"\\(.)|(" + ("'" if q == '"' else '"') + ")", re.S) for q in ("'", '"')}


def _lone_backslash(body: str) -> bool:
    """``body`` ends in a backslash that escapes nothing."""
    trailing = len(body) - len(body.rstrip("\\"))
    return trailing % 2 == 1


def _black_normalize(text: str) -> str:
    from black.strings import normalize_string_quotes

    return normalize_string_quotes(text)
