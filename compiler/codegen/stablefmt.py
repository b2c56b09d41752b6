"""Black's output for a generated top-level ``def`` without running black, when that is certain.

Black leaves a line alone when it fits in the line length, has no magic trailing comma and no
redundant parentheses, and its spacing is black's; it only normalises string quotes (done here
with black's own function). :func:`stable_def` accepts a conservative subset of Python — simple
one-line statements, 4-space blocks, ``# `` comment lines, no blank lines — re-renders every line
from its tokens with black's spacing rules, and gives up (``None``) on anything else, so the
caller formats that piece with black. Invariant: a non-``None`` result is byte-identical to
black's formatting of the chunk (tests/test_black_stable.py checks it against black).
"""

from __future__ import annotations

import re
from functools import lru_cache

import black
from black.strings import normalize_string_quotes

LINE_LENGTH = 100
MODE = black.Mode(line_length=LINE_LENGTH, target_versions={black.TargetVersion.PY310})
_TOKEN = re.compile(
    r"""(?P<sp>\ +)
    |(?P<str>b?'(?:[^'\\\n]|\\.)*'|b?"(?:[^"\\\n]|\\.)*")
    |(?P<num>\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.]))
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>==|!=|<=|>=|:=|//|<<|>>|[-+*/%<>=(),\[\]{}:.|&^~])""",
    re.X,
)
_KEYWORDS = frozenset(
    "and as assert break continue def del elif else except finally for from global if import "
    "in is lambda nonlocal not or pass raise return try while with yield async await".split()
)
_BINARY = frozenset("== != <= >= // << >> + - * / % < > | & ^".split())
_UNARY = frozenset("- + ~".split())
_OPEN = {"(": ")", "[": "]", "{": "}"}
_REJECT_LINE_START = frozenset(("def", "class", "import", "from", "lambda", "async", "with"))


@lru_cache(maxsize=4096)
def _string(text: str) -> str:
    """Black's form of one (unprefixed or ``b``) string literal."""
    return normalize_string_quotes(text)


def _tokens(code: str) -> list[tuple[str, str]] | None:
    """``(kind, text)`` of every token of ``code``, or None when some character is outside the
    accepted subset."""
    out: list[tuple[str, str]] = []
    pos, end = 0, len(code)
    while pos < end:
        found = _TOKEN.match(code, pos)
        if found is None:
            return None
        kind, text = found.lastgroup or "", found.group()
        pos = found.end()
        if kind == "sp":
            continue
        if kind == "name" and text in _KEYWORDS:
            kind = "kw"
        out.append((kind, text))
    return out


def _render(tokens: list[tuple[str, str]]) -> tuple[str, str] | None:
    """``tokens`` spaced as black spaces them, as written and with black's string quotes; None
    when they hold a construct whose layout black may change (redundant parentheses, magic
    trailing commas, slices, star-args, one-line compound statements, …)."""
    parts: list[str] = []
    raw: list[str] = []
    last = len(tokens) - 1
    stack: list[list] = []  # [bracket, is a call/subscript, commas inside, after an operator]
    prev: tuple[str, str] | None = None
    unary = False  # the previous token was a unary operator
    for i, (kind, text) in enumerate(tokens):
        space = "" if unary else _space_before(prev, kind, text, stack)
        if space is None or (text == ":" and not stack and i != last):
            return None
        unary = text in _UNARY and (prev is None or prev[0] == "kw" or _is_operator(prev))
        if text in _OPEN:
            if prev is not None and prev[0] == "kw":
                return None  # black may drop parentheses after a keyword
            called = prev is not None and (prev[0] in ("name", "str") or prev[1] in ")]")
            after_operator = prev is not None and prev[0] == "op" and prev[1] in _BINARY
            stack.append([text, called, 0, after_operator])
        elif text in _CLOSE:
            if not stack or _OPEN[stack[-1][0]] != text:
                return None
            opened, called, commas, after_operator = stack.pop()
            if prev == ("op", ",") and (called or opened != "(" or commas != 1):
                return None  # a magic trailing comma: black explodes the brackets
            if opened == "(" and not called and not commas and not after_operator:
                return None  # parentheses black may find redundant: (x), = (not x), [(x)]
        elif text == "," and stack:
            stack[-1][2] += 1
        parts.append(space + (_string(text) if kind == "str" else text))
        raw.append(space + text)
        prev = (kind, text)
    return None if stack else ("".join(raw), "".join(parts))


def _is_operator(token: tuple[str, str]) -> bool:
    return token[0] == "op" and token[1] not in _CLOSE


def _space_before(
    prev: tuple[str, str] | None, kind: str, text: str, stack: list[list]
) -> str | None:
    """The whitespace black puts before this token, or None for an unknown construct."""
    if prev is None:
        return ""
    inner = stack[-1] if stack else None
    pk, pt = prev
    if text == "*" and _is_operator(prev) or pk == "kw" and text == "*":
        return None  # star-args
    if text in _CLOSE or text == ",":
        return ""
    if text == ".":
        return "" if pk in ("name", "str") or pt in _CLOSE else None
    if pt == "." or pt in _OPEN:
        return ""
    if text == ":":
        if inner is None or inner[0] == "{":
            return ""
        return None  # slices, lambdas, annotations
    if text == "=" or pt == "=":
        if inner is None:
            return " "
        return "" if inner[0] == "(" and inner[1] else None
    if text in _OPEN and (pk in ("name", "str") or pt in _CLOSE):
        return "" if text != "{" else None
    return " "


def _code_line(line: str) -> str | None:
    """Black's form of one code line of a chunk (indentation kept), or None."""
    body = line.lstrip(" ")
    tokens = _tokens(body)
    if not tokens or tokens[0][1] in _REJECT_LINE_START or tokens[0][0] == "str":
        return None
    rendered = _render(tokens)
    if rendered is None or rendered[0] != body:
        return None  # black would respace this line
    out = line[: len(line) - len(body)] + rendered[1]
    if len(out) <= LINE_LENGTH:
        return out
    return None if out.endswith(":") else _split(out, len(line) - len(body))


def _split(line: str, indent: int) -> str | None:
    """Black's split of one long simple statement at ``indent``: black formats it alone under
    ``if x:`` headers giving it its depth (with explicit target versions black lays out one
    statement from its own tokens and depth only)."""
    depth = indent // 4
    heads = "".join(" " * (4 * k) + "if x:\n" for k in range(depth))
    try:
        formatted = black.format_str(heads + line + "\n", mode=MODE)
    except black.InvalidInput:
        return None
    if not formatted.startswith(heads) or formatted.count("\n") < depth + 2:
        return None
    return formatted[len(heads) : -1]


def stable_def(chunk: str) -> str | None:
    """Black's formatting of ``chunk`` (a top-level ``def`` and its body, no trailing newline),
    or None when it is not certain without black."""
    lines = chunk.split("\n")
    if not lines[0].startswith("def ") or not chunk.isascii():
        return None
    out = [_code_line(lines[0][4:])]
    if out[0] is None or not out[0].endswith(":"):
        return None
    out[0] = "def " + out[0]
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    comment = [line.lstrip(" ").startswith("#") for line in lines]
    following, nxt = [0] * len(lines), -1  # the next code line's indentation
    for i in range(len(lines) - 1, -1, -1):
        following[i] = nxt
        nxt = nxt if comment[i] else indents[i]
    before = 0  # the previous code line
    for i in range(1, len(lines)):
        line = lines[i]
        if indents[i] % 4 or not line.strip():
            return None
        if comment[i]:
            if following[i] != indents[i] or not _COMMENT.fullmatch(line):
                return None
            out.append(line)
            continue
        opens = out[before].endswith(":")
        if (indents[i] == indents[before] + 4) != opens or indents[i] > indents[before] + 4:
            return None
        rendered = _code_line(line)
        if rendered is None:
            return None
        out.append(rendered)
        before = i
    return "\n".join(out) if before and not out[before].endswith(":") and not comment[-1] else None


_CLOSE = frozenset(")]}")
_COMMENT = re.compile(r" *# \S(?:.*\S)?")
