"""Render errors and warnings the way Tremor's "Dumb" highlighter does.

Shared by the compiler (compile-time diagnostics) and by generated jobs (runtime errors routed to
``err``), so it lives in ``runtime_support``, which never imports ``compiler``.

Spans are half-open ``(start, end)`` character offsets into the source text.

>>> for line in render("let $ = 1;", inner=(4, 9), message="bad").splitlines():
...     print(repr(line))
'Error: '
'    1 | let $ = 1;'
'      |     ^^^^^ bad'
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "comment_starts",
    "expand_lines",
    "line_col",
    "line_starts",
    "render",
    "retoken_comments",
]

Span = tuple[int, int]


def line_starts(text: str) -> list[int]:
    """Offsets at which each line of ``text`` starts (line 1 is index 0); a fresh list."""
    return list(_starts(text))


_STARTS: dict[int, tuple[str, tuple[int, ...]]] = {}
_STARTS_KEPT = 16


def _starts(text: str) -> tuple[int, ...]:
    """Line starts of ``text``, cached per text object: every diagnostic site of one program asks
    for the same source, so a build computes them once instead of once per site. Keyed by
    identity (the entry keeps its text alive, so the id is not reused): a cache keyed by
    equality compares a text read again with the cached one in full at every call, ~15 us a
    site for a 10,000-line program built twice in one process."""
    found = _STARTS.get(id(text))
    if found is not None and found[0] is text:
        return found[1]
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    if len(_STARTS) >= _STARTS_KEPT:
        del _STARTS[next(iter(_STARTS))]  # the oldest entry
    found = _STARTS[id(text)] = (text, tuple(starts))
    return found[1]


def line_col(starts: Sequence[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset (``starts`` ascending, ``starts[0]`` 0).

    >>> line_col((0, 4, 9), 0), line_col((0, 4, 9), 5), line_col((0, 4, 9), 20)
    ((1, 1), (2, 2), (3, 12))
    """
    line = max(bisect_right(starts, offset) - 1, 0)
    return line + 1, offset - starts[line] + 1


def expand_lines(text: str, span: Span, before: int, after: int) -> Span:
    """Widen ``span`` to whole lines plus ``before``/``after`` lines of context (Tremor's
    ``expand_lines``)."""
    starts = _starts(text)
    first, _ = line_col(starts, span[0])
    last, _ = line_col(starts, max(span[0], span[1] - 1) if span[1] > span[0] else span[0])
    first = max(1, first - before)
    last = min(len(starts), last + after)
    end = starts[last] - 1 if last < len(starts) else len(text)
    return starts[first - 1], end


def comment_starts(text: str) -> list[int]:
    """Offsets of every ``#`` comment in ``text`` (strings, heredocs and back-tick idents are
    skipped, across lines)."""
    found: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith('"""', i):
            close = text.find('"""', i + 3)
            i = n if close < 0 else close + 3
        elif ch == '"' or ch == "`":
            i += 1
            while i < n and text[i] != ch and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif ch == "#":
            found.append(i)
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
        else:
            i += 1
    return found


def retoken_comments(text: str) -> str:
    """Tremor re-prints a plain ``# text`` comment token as ``#`` + space + text (doc comments
    ``##`` and ``#!config`` are printed as written).

    >>> retoken_comments('a # b')
    'a #  b'
    >>> retoken_comments('"#{x}" ## doc')
    '"#{x}" ## doc'
    """
    pieces, last = [], 0
    for at in comment_starts(text):
        if text[at + 1 : at + 2] in ("#", "!"):
            continue
        pieces.append(text[last : at + 1])
        pieces.append(" ")
        last = at + 1
    pieces.append(text[last:])
    return "".join(pieces)


@lru_cache(maxsize=16)
def _shown_lines(text: str) -> tuple[str, ...]:
    """The lines of ``text`` as a diagnostic shows them, cached per text: a job renders every
    runtime error against its one source, and re-tokenizing it per error cost milliseconds
    per failing event on a long program."""
    return tuple(retoken_comments(text).split("\n"))


def render(
    text: str,
    *,
    inner: Span | None,
    message: str,
    outer: Span | None = None,
    hint: str | None = None,
    header: str = "Error: ",
    text_end: int | None = None,
) -> str:
    """Render one diagnostic: header line, numbered source lines of ``outer``, caret callout under
    ``inner`` after the line where ``inner`` ends, then the remaining lines of ``outer``.

    ``text_end`` cuts the shown source there (Tremor shows a lexer error's line only as far as
    it had lexed).
    """
    if inner is None:
        return f"{header.rstrip()} {message}" if header.strip() else message
    outer = outer or inner
    outer = (min(outer[0], inner[0]), max(outer[1], inner[1]))
    starts = _starts(text)
    lines = _shown_lines(text if text_end is None else text[:text_end])
    first, _ = line_col(starts, outer[0])
    last, _ = line_col(starts, outer[1] - 1 if outer[1] > outer[0] else outer[0])
    inner_line, inner_col = line_col(starts, inner[0])
    inner_end = inner[1] - 1 if inner[1] > inner[0] else inner[0]
    inner_last, _ = line_col(starts, inner_end)
    out = [header]
    for number in range(first, last + 1):
        if number - 1 >= len(lines):
            break
        out.append(f"{number:5} | {lines[number - 1]}")
        if number == inner_last:
            if inner_last == inner_line:
                width = max(1, inner[1] - inner[0])
                pad = inner_col - 1
            else:
                # A multi-line span is underlined on its last line from the line start.
                pad = 0
                width = max(1, inner[1] - starts[inner_last - 1])
            out.append("      | " + " " * pad + "^" * width + " " + message)
            if hint:
                out.append("      | " + " " * (pad + width + 1) + "NOTE: " + hint)
    return "\n".join(out)
