"""Black's split of one statement that is too long or holds a magic trailing comma, without black.

Black splits such a line at its last bracket pair (``head(``, the body one level deeper,
``)``); a body that still does not fit, that ends with a trailing comma or that is a collection
literal with commas goes one element a line with a trailing comma; a body that is a chain of
two or more method calls goes one call a line; the right-hand side of ``name =`` and ``return``
sits in optional parentheses that black keeps only around such a chain. This module follows
those rules for the subset of Python the code generator writes and gives up (``None``) on
anything else: a delimiter other than commas and method-call dots (operators, keywords, adjacent
strings), a subscript split, a head that does not fit, a right-hand side that starts with ``(``.
Invariant: a non-``None`` result is byte-identical to black's layout (tests/test_black_stable.py
checks it against black on the goldens, the workloads, the corpus and generated statements).
"""

from __future__ import annotations

from collections.abc import Sequence

LINE_LENGTH = 100
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_NOT_DELIMITERS = frozenset((",", ".", ":", "=", *_OPEN, *_CLOSE))
_ASSIGNMENTS = frozenset(("=", "+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "<<=", ">>="))

Token = tuple[str, str]  # (kind, text): kind is name, kw, str, num or op


class _Statement:
    """One logical line: its tokens, each token's text with the space black puts before it,
    the bracket pairs and the closing brackets that follow a magic trailing comma."""

    def __init__(self, tokens: Sequence[Token], parts: Sequence[str], magic: frozenset[int]):
        self.tokens, self.parts, self.magic = tokens, parts, magic
        self.pair: dict[int, int] = {}
        stack: list[int] = []
        for i, (_, text) in enumerate(tokens):
            if text in _OPEN:
                stack.append(i)
            elif text in _CLOSE:
                self.pair[i] = stack.pop()
                self.pair[self.pair[i]] = i

    def text(self, lo: int, hi: int, pad: str) -> str:
        return pad + self.parts[lo].lstrip(" ") + "".join(self.parts[lo + 1 : hi])

    def has_magic(self, lo: int, hi: int) -> bool:
        return any(lo <= m < hi for m in self.magic)

    def delimiters(self, lo: int, hi: int, top: bool) -> tuple[list[int], list[int], bool]:
        """The depth-0 commas and method-call dots in ``[lo, hi)``, and whether another kind
        of delimiter (or something this module does not rank) is there too. ``top``: the
        right-hand side of a statement, where ``=`` is a chained assignment."""
        commas: list[int] = []
        dots: list[int] = []
        other = False
        i = lo
        while i < hi:
            kind, text = self.tokens[i]
            if text in _OPEN:
                i = self.pair[i] + 1
                continue
            if text == ",":
                commas.append(i)
            elif text == ".":
                if i > lo and self.tokens[i - 1][1] in _CLOSE:
                    dots.append(i)
            elif kind == "kw" or kind == "op" and text not in _NOT_DELIMITERS:
                other = True
            elif text == "=" and top or kind == "str" and i > lo and self.tokens[i - 1][0] == "str":
                other = True
            i += 1
        return commas, dots, other

    def called(self, opening: int) -> bool:
        """Whether the bracket at ``opening`` is a call's or a subscript's (a trailer)."""
        return opening > 0 and (
            self.tokens[opening - 1][0] in ("name", "str") or self.tokens[opening - 1][1] in _CLOSE
        )


def split_statement(
    tokens: Sequence[Token], parts: Sequence[str], indent: int, magic: frozenset[int]
) -> str | None:
    """Black's lines for the statement ``tokens`` at ``indent`` spaces (``parts``: each token
    as black writes it, with the space before it; ``magic``: the indexes of closing brackets
    after a magic trailing comma), or None where this module is not certain."""
    line = _Statement(tokens, parts, magic)
    n = len(tokens)
    pad = " " * indent
    start = 0
    if n > 2 and tokens[0][0] == "name" and tokens[1][1] in _ASSIGNMENTS:
        start = 2
    elif tokens[0][1] == "return" and n > 1:
        start = 1
    elif tokens[0][0] == "kw":
        return None  # other statements' optional parentheses are not modelled
    if start:
        commas, dots, other = line.delimiters(start, n, top=True)
        if other or tokens[start][1] == "(" or len(commas) == 1:
            return None
        if commas:  # a tuple of three or more: black keeps the parentheses, one item a line
            head = line.text(0, start, pad) + " ("
            body = _inside(line, start, n, pad + "    ", explode=True)
            if body is None or len(head) > LINE_LENGTH:
                return None
            return "\n".join([head, *body, pad + ")"])
        if len(dots) >= 2:  # black keeps the optional parentheses around a call chain
            head = line.text(0, start, pad) + " ("
            body = _inside(line, start, n, pad + "    ", explode=False)
            if body is None or len(head) > LINE_LENGTH:
                return None
            return "\n".join([head, *body, pad + ")"])
    lines = _at_last_bracket(line, 0, n, pad)
    return None if lines is None else "\n".join(lines)


def _at_last_bracket(
    line: _Statement, lo: int, hi: int, pad: str, suffix: str = ""
) -> list[str] | None:
    """Black's right-hand split of ``[lo, hi)`` + ``suffix`` at its last bracket pair (a
    trailing comma stays with the closing bracket)."""
    close = hi - 1
    if line.tokens[close][1] == "," and close > lo:
        close -= 1
    if line.tokens[close][1] not in _CLOSE:
        return None
    opening = line.pair[close]
    if opening < lo or opening + 1 == close or line.has_magic(lo, opening + 1):
        return None
    if line.tokens[opening][1] == "[" and line.called(opening):
        return None  # a subscript
    head = line.text(lo, opening + 1, pad)
    if len(head) > LINE_LENGTH:
        return None
    commas, _, _ = line.delimiters(opening + 1, close, top=False)
    trailing = line.tokens[close - 1][1] == ","
    inner = [c for c in commas if c != close - 1]
    explode = bool(inner) and (trailing or not line.called(opening))
    body = _inside(line, opening + 1, close, pad + "    ", explode)
    if body is None:
        return None
    return [head, *body, line.text(close, hi, pad) + suffix]


def _inside(
    line: _Statement, lo: int, hi: int, pad: str, explode: bool, suffix: str = ""
) -> list[str] | None:
    """Black's lines for ``[lo, hi)`` + ``suffix`` (a trailing comma black adds) inside
    brackets at ``pad`` (``explode``: one element a line even if it fits)."""
    text = line.text(lo, hi, pad) + suffix
    if not explode and len(text) <= LINE_LENGTH and not line.has_magic(lo, hi):
        return [text]
    last = hi - 1 if line.tokens[hi - 1][1] == "," and not suffix else hi
    commas, dots, other = line.delimiters(lo, last, top=False)
    if other:
        return None
    if commas:
        bounds = [lo, *(c + 1 for c in commas), hi]
        out: list[str] = []
        for k in range(len(bounds) - 1):
            a, b = bounds[k], bounds[k + 1]
            if a == b:
                continue
            end = suffix if b == hi else ""
            if b == hi and line.tokens[hi - 1][1] != "," and not suffix:
                end = ","  # black adds the trailing comma
            piece = _inside(line, a, b, pad, explode=False, suffix=end)
            if piece is None:
                return None
            out += piece
        return out
    if not any(line.tokens[i][1] in _OPEN for i in range(lo, hi)):
        return [text]  # nothing black can split: the line stays too long
    if len(dots) >= 2:
        bounds = [lo, *dots, hi]
        out = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = _inside(line, a, b, pad, explode=False, suffix=suffix if b == hi else "")
            if piece is None:
                return None
            out += piece
        return out
    return _at_last_bracket(line, lo, hi, pad, suffix)
