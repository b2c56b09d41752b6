"""Black's string-quote normalisation of one string literal, without importing black.

Black prefers double quotes: it rewrites a literal with the other quote when that needs no more
backslashes than the original (after dropping escapes of the other quote, which the original
never needed), and keeps single quotes only when double quotes would need more. This module
applies that rule to plain and ``b``-prefixed one-line literals, reading the body as escape
units (a backslash and the character it escapes) rather than with black's regexes, which took
0.1 s per call over the source text a large job embeds; other literals (raw, f-strings, triple
quotes) go to black's own function. Invariant: the result is ``normalize_string_quotes``'s
(tests/test_black_stable.py compares them on generated literals).
"""

from __future__ import annotations

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
    units = _units(quoted[1:-1])
    if units is None:
        return _black_normalize(text)
    # Escapes of the other quote are unnecessary in the original: black drops them first.
    original = [new if u == "\\" + new else u for u in units]
    swapped = [old if u == "\\" + old else "\\" + new if u == new else u for u in original]
    before = sum(u.count("\\") for u in original)
    after = sum(u.count("\\") for u in swapped)
    if after > before or after == before and old == '"':
        return f"{prefix}{old}{''.join(original)}{old}"
    return f"{prefix}{new}{''.join(swapped)}{new}"


def _units(body: str) -> list[str] | None:
    """``body`` as escape units (``\\x`` pairs and single characters); None if it ends in a
    lone backslash."""
    units: list[str] = []
    i, n = 0, len(body)
    while i < n:
        if body[i] == "\\":
            if i + 1 == n:
                return None
            units.append(body[i : i + 2])
            i += 2
        else:
            units.append(body[i])
            i += 1
    return units


def _black_normalize(text: str) -> str:
    from black.strings import normalize_string_quotes

    return normalize_string_quotes(text)
