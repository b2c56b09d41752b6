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
from typing import NamedTuple

from ..blackfmt import black_format, invalid_input
from .quotefmt import black_quotes
from .splitfmt import split_statement

LINE_LENGTH = 100
_TOKEN = re.compile(
    r"""(?P<sp>\ +)
    |(?P<str>b?'[^'\\\n]*(?:\\.[^'\\\n]*)*'|b?"[^"\\\n]*(?:\\.[^"\\\n]*)*")
    |(?P<num>\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.]))
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>//=|<<=|>>=|[-+*/%|&^]=|==|!=|<=|>=|:=|//|<<|>>|[-+*/%<>=(),\[\]{}:.|&^~])""",
    re.X,
)
_KEYWORDS = frozenset(
    "and as assert break continue def del elif else except finally for from global if import "
    "in is lambda nonlocal not or pass raise return try while with yield async await".split()
)
_BINARY = frozenset("== != <= >= // << >> + - * / % < > | & ^".split())
_UNARY = frozenset("- + ~".split())
_INNER = frozenset(("and", "or", "not", "is"))  # keywords inside an expression
_LOOSER = frozenset((",", "lambda", "for", "async"))
_TERNARY = frozenset(("if", "else"))
_COMPARE = frozenset(("==", "!=", "<", ">", "<=", ">=", "in"))
_LOOSER_THAN_COMPARE = frozenset((",", "lambda", "for", "async", "if", "else", "and", "or"))
_OPEN = {"(": ")", "[": "]", "{": "}"}
_REJECT_LINE_START = frozenset(("def", "class", "import", "from", "lambda", "async", "with"))


NARROW_RANGES = ((0, 0x10FF), (0x2000, 0x2319))
"""Code points black counts one column wide (its width table lists none there; the tests check
the table): below U+1100, and punctuation, arrows and mathematical operators U+2000-U+2319."""
_NARROW = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in NARROW_RANGES) + "]*")


def narrow(text: str) -> bool:
    """Whether every character of ``text`` is one column wide for black (:data:`NARROW_RANGES`),
    so its width is its length."""
    return text.isascii() or _NARROW.fullmatch(text) is not None


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


def _render(
    tokens: list[tuple[str, str]], prev: tuple[str, str] | None = None
) -> tuple[str, str] | None:
    """``tokens`` spaced as black spaces them, as written and with black's string quotes; None
    when they hold a construct whose layout black may change (redundant parentheses, magic
    trailing commas, slices, star-args, one-line compound statements, …). ``prev``: the token
    before an operand rendered alone."""
    rendered = _render_parts(tokens, prev)
    return None if rendered is None else ("".join(rendered[0]), "".join(rendered[1]))


def _render_parts(
    tokens: list[tuple[str, str]],
    prev: tuple[str, str] | None = None,
    magic: list[int] | None = None,
) -> tuple[list[str], list[str]] | None:
    """:func:`_render` token by token (each with the space before it). With ``magic`` a list,
    a magic trailing comma is accepted and the index of its closing bracket appended."""
    parts: list[str] = []
    raw: list[str] = []
    last = len(tokens) - 1
    stack: list[list] = []  # [bracket, is a call/subscript, commas inside, after an operator]
    unary = False  # the previous token was a unary operator
    for i, (kind, text) in enumerate(tokens):
        space = _space_before(prev, kind, text, stack)
        if space is None or (text == ":" and not stack and i != last):
            return None
        space = "" if unary or not parts else space
        unary = (text in _UNARY or text == "*") and (
            prev is None or prev[0] == "kw" or _is_operator(prev)
        )
        if text in _OPEN:
            if prev is not None and prev[0] == "kw" and (i == 1 or prev[1] not in _INNER):
                return None  # black may drop parentheses after a statement's keyword
            called = prev is not None and (prev[0] in ("name", "str") or prev[1] in ")]")
            after_operator = prev is not None and (prev[1] in _BINARY or prev[1] in _INNER)
            stack.append([text, called, 0, after_operator])
        elif text in _CLOSE:
            if not stack or _OPEN[stack[-1][0]] != text:
                return None
            opened, called, commas, after_operator = stack.pop()
            if prev == ("op", ",") and (called or opened != "(" or commas != 1):
                if magic is None or opened == "[" and called:
                    return None  # a magic trailing comma: black explodes the brackets
                magic.append(i)
            empty = prev == ("op", "(")
            if opened == "(" and not (called or commas or after_operator or empty):
                return None  # parentheses black may find redundant: (x), = (not x), [(x)]
        elif text == "," and stack:
            stack[-1][2] += 1
        parts.append(space + (black_quotes(text) if kind == "str" else text))
        raw.append(space + text)
        prev = (kind, text)
    return None if stack else (raw, parts)


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
    if text == "*" and pt in ",(" and inner is not None and inner[0] == "(" and inner[1]:
        return "" if pt == "(" else " "  # ``*args`` in a call or a def's parameters
    if text == "*" and _is_operator(prev) or pk == "kw" and text == "*":
        return None  # other star-args
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


# The commonest generated lines, whose black form is the line with its strings double-quoted:
# ``name = atom``, ``name = f(args)`` (an argument an atom or a call of atoms) and
# ``if``/``elif name == atom:``, single-spaced, with strings that hold no quote or backslash.
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ATOM = rf"(?:{_NAME}|-?[0-9]+|'[^'\"\\\n]*')"
_CALLED = rf"(?!(?:and|or|not|in|is|if|else|lambda|await|yield)\(){_NAME}\("
_FLAT_CALL = rf"{_CALLED}(?:{_ATOM}(?:, {_ATOM})*)?\)"
_ARG = rf"(?:{_FLAT_CALL}|{_ATOM})"
_ASSIGN = rf"{_NAME} = (?:{_CALLED}(?:{_ARG}(?:, {_ARG})*)?\)|{_ATOM})"
_PLAIN_LINE = re.compile(rf" *(?:{_ASSIGN}|(?:if|elif) {_NAME} == {_ATOM}:)")


@lru_cache(maxsize=16384)
def code_line(line: str) -> str | Pending | None:
    """Black's form of one code line of a chunk (indentation kept), a long statement for black
    to split (:class:`Pending`), or None. Cached: a job repeats many lines (a third of them in
    match's, half in the 10,000-line program's), and the result depends on the text alone."""
    return plain_line(line) or _code_line(line)


def plain_line(line: str) -> str | None:
    """Black's form of ``line`` when it is one of the commonest generated lines (``_PLAIN_LINE``:
    the line with its strings double-quoted, read by one regex), else None."""
    if len(line) <= LINE_LENGTH and _PLAIN_LINE.fullmatch(line) and line.isascii():
        return line.replace("'", '"')  # quotes only delimit strings, which hold none
    return None


def _code_line(line: str) -> str | Pending | None:
    """:func:`code_line` from the line's tokens."""
    body = line.lstrip(" ")
    tokens = _tokens(body)
    if not tokens or tokens[0][1] in _REJECT_LINE_START or tokens[0][0] == "str":
        return None
    magic: list[int] = []
    rendered = _render_parts(tokens, magic=magic)
    if rendered is None or "".join(rendered[0]) != body:
        return None  # black would respace this line
    indent = len(line) - len(body)
    out = line[:indent] + "".join(rendered[1])
    if len(out) <= LINE_LENGTH and not magic:
        return out
    if not magic and _unsplittable_string(tokens, indent, out):
        return out
    laid = None if magic else _split_condition(tokens, indent)
    laid = laid or split_statement(tokens, rendered[1], indent, frozenset(magic))
    return laid or _frame(out, indent, tokens[0][1])


def _unsplittable_string(tokens: list[tuple[str, str]], indent: int, out: str) -> bool:
    """Whether black leaves the long line ``out`` = ``name = "string"`` as it is: its only split
    would put the string alone on a line one level deeper, and black does not split when that
    line is still too long (an atom cannot be split further)."""
    if len(tokens) != 3 or tokens[0][0] != "name" or tokens[1][1] != "=" or tokens[2][0] != "str":
        return False
    string = out[out.index("=") + 2 :]
    return narrow(out) and indent + 4 + len(string) > LINE_LENGTH


def _split_condition(tokens: list[tuple[str, str]], indent: int) -> str | None:
    """Black's layout of a long ``if``/``elif``/``while`` header whose condition is a chain of
    at least three ``and``/``or`` operands (more than one such delimiter: black keeps the
    optional parentheses): the condition on one line in ``(…)``, else one operand a line."""
    if tokens[0][1] not in ("if", "elif", "while") or tokens[-1][1] != ":":
        return None
    operands: list[list[tuple[str, str]]] = [[]]
    joins = [""]  # the and/or before each operand
    depth = 0
    for token in tokens[1:-1]:
        depth += token[1] in _OPEN
        depth -= token[1] in _CLOSE
        if depth == 0 and token[1] in ("and", "or"):
            operands.append([])
            joins.append(token[1] + " ")
        elif depth == 0 and (token[1] in _LOOSER or token[0] == "kw" and token[1] in _TERNARY):
            return None  # a looser delimiter: black splits there first
        else:
            operands[-1].append(token)
    rendered = [
        _render(operand, ("kw", join.strip() or "if"))
        for join, operand in zip(joins, operands, strict=True)
    ]
    if len(operands) < 3 or any(r is None for r in rendered):
        return None
    pad, inner = " " * indent, " " * (indent + 4)
    pieces = [join + r[1] for join, r in zip(joins, rendered, strict=True)]  # type: ignore[index]
    lines = [inner + " ".join(pieces)]
    if len(lines[0]) > LINE_LENGTH:
        lines = []
        for join, operand, piece in zip(joins, operands, pieces, strict=True):
            split = [piece] if len(inner + piece) <= LINE_LENGTH else _comparisons(join, operand)
            if split is None or any(len(inner + part) > LINE_LENGTH for part in split):
                return None
            lines += [inner + part for part in split]
    return "\n".join([f"{pad}{tokens[0][1]} (", *lines, f"{pad}):"])


def _comparisons(join: str, operand: list[tuple[str, str]]) -> list[str] | None:
    """A too-long ``and``/``or`` operand as black splits it next: before each top-level
    comparison operator (the operand's loosest delimiter when it has one)."""
    parts: list[list[tuple[str, str]]] = [[]]
    depth, kind = 0, ""  # kind: of the previous top-level token
    for k, token in enumerate(operand):
        depth += token[1] in _OPEN
        depth -= token[1] in _CLOSE
        before = operand[k - 1][1] if k else ""
        starts = (
            token[1] in _COMPARE
            or token[1] == "is"
            or (token[1] == "not" and k + 1 < len(operand) and operand[k + 1][1] == "in")
        )
        if depth == 0 and k and starts and not (token[1] == "in" and before == "not"):
            parts.append([])
        elif depth == 0 and (token[1] in _LOOSER_THAN_COMPARE or token[0] == "str" == kind):
            return None  # a looser delimiter (adjacent strings: black splits between them)
        parts[-1].append(token)
        kind = token[0] if depth == 0 else ""
    rendered = [
        _render(part, ("kw", join.strip() or "if") if i == 0 else None)
        for i, part in enumerate(parts)
    ]
    if len(parts) < 2 or any(r is None for r in rendered):
        return None
    return [join + rendered[0][1], *(r[1] for r in rendered[1:])]  # type: ignore[index]


class Pending(NamedTuple):
    """A long statement black splits: it formats it under ``if x:`` headers (``heads``) that
    give it its depth, an ``elif`` after an ``if``, a header with a ``pass`` body (``tail``).
    With explicit target versions black lays out a statement from its tokens and depth only."""

    line: str
    heads: str
    tail: str


def _frame(line: str, indent: int, first: str) -> Pending | None:
    pad = " " * indent
    heads = "".join(" " * (4 * k) + "if x:\n" for k in range(indent // 4))
    tail = ""
    if line.endswith(":"):
        if first not in ("if", "elif", "while", "for"):
            return None
        heads += f"{pad}if x:\n{pad}    pass\n" if first == "elif" else ""
        tail = f"{pad}    pass\n"
    return Pending(line, heads, tail)


_MARK = "_tremorc_piece_{} = 0\n"
_MARKS = re.compile(r"^_tremorc_piece_\d+ = 0\n", re.M)


def _split_all(pending: list[Pending]) -> list[str | None]:
    """Black's split of every pending statement, in one black run (black's cost is mostly per
    run on small inputs); None for one whose frame black did not keep."""
    if not pending:
        return []
    text = "".join(
        _MARK.format(k) + p.heads + p.line + "\n" + p.tail for k, p in enumerate(pending)
    )
    try:
        pieces = _MARKS.split(black_format(text))[1:]
    except invalid_input():
        return [None] * len(pending)
    if len(pieces) != len(pending):
        return [None] * len(pending)
    out: list[str | None] = []
    for p, piece in zip(pending, pieces, strict=True):
        good = piece.startswith(p.heads) and piece.endswith(p.tail)
        out.append(piece[len(p.heads) : len(piece) - len(p.tail) - 1] if good else None)
    return out


def stable_defs(chunks: list[str]) -> list[str | None]:
    """Black's formatting of each chunk (a top-level ``def`` and its body, or a run of top-level
    one-line assignments ``name = …``; no trailing newline), or None where it is not certain
    without black; long statements split in one black run."""
    plans = [_plan(chunk) for chunk in chunks]
    pending = [item for plan in plans if plan for item in plan if isinstance(item, Pending)]
    split = dict(zip(map(id, pending), _split_all(pending), strict=True))
    out: list[str | None] = []
    for plan in plans:
        lines = [split[id(item)] if isinstance(item, Pending) else item for item in plan or [None]]
        out.append(None if any(line is None for line in lines) else "\n".join(lines))
    return out


def stable_def(chunk: str) -> str | None:
    """:func:`stable_defs` of one chunk."""
    return stable_defs([chunk])[0]


def _plan(chunk: str) -> list[str | Pending] | None:
    """The lines of ``chunk`` as black writes them, long statements left :class:`Pending`; None
    when its layout is not certain without black."""
    if not narrow(chunk):
        return None
    lines = _logical_lines(chunk.split("\n"))
    if lines is None:
        return None
    if not lines[0].startswith("def "):
        return _plan_assignments(lines)
    head = code_line(lines[0][4:])
    if not isinstance(head, str) or "\n" in head or not head.endswith(":"):
        return None
    if len(head) + 4 > LINE_LENGTH:
        return None  # "def " makes the line too long: black splits the parameters
    out: list[str | Pending] = ["def " + head]
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    comment = [line.lstrip(" ").startswith("#") for line in lines]
    following, nxt = [0] * len(lines), -1  # the next code line's indentation
    for i in range(len(lines) - 1, -1, -1):
        following[i] = nxt
        nxt = nxt if comment[i] else indents[i]
    before = code = 0  # the previous code line, in ``lines`` and in ``out``
    for i in range(1, len(lines)):
        line = lines[i]
        if indents[i] % 4 or not line.strip():
            return None
        if comment[i]:
            if following[i] != indents[i] or not _COMMENT.fullmatch(line):
                return None
            out.append(line)
            continue
        opens = _ends_block(out[code])
        if (indents[i] == indents[before] + 4) != opens or indents[i] > indents[before] + 4:
            return None
        if i == 1 and line.lstrip(" ").startswith('"""'):
            rendered: str | Pending | None = line if _is_docstring(line, indents[i]) else None
        else:
            rendered = code_line(line)
        if rendered is None:
            return None
        out.append(rendered)
        before, code = i, len(out) - 1
    return out if before and not _ends_block(out[code]) and not comment[-1] else None


def _logical_lines(lines: list[str]) -> list[str] | None:
    """``lines`` with each statement written over several lines joined into one, spaced as
    black spaces it (no space after an opening or before a closing bracket), and a ``def``'s
    docstring kept whole; None for a line whose brackets cannot be counted."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i == 1 and line.lstrip(" ").startswith('"""'):
            end = i
            while end < len(lines) and (end == i or not lines[end - 1].endswith('"""')):
                end += 1
            if not lines[end - 1].endswith('"""') or end - 1 == i and len(line.strip()) < 6:
                return None
            out.append("\n".join(lines[i:end]))
            i = end
            continue
        depth = _depth(line)
        while depth and depth > 0 and i + 1 < len(lines):
            i += 1
            following = lines[i].strip()
            step = _depth(following)
            if step is None:
                return None
            glue = "" if line[-1] in _OPEN or following[0] in _CLOSE else " "
            line, depth = line + glue + following, depth + step
        if depth is None or depth < 0 or depth > 0:
            return None
        out.append(line)
        i += 1
    return out


def _depth(line: str) -> int | None:
    """Opening minus closing brackets in ``line`` (0 for a comment line; None for a line the
    tokenizer does not read). A line counted 0 whose brackets only balance with those inside
    strings does not close them: :func:`code_line` then gives up on it."""
    body = line.strip()
    if not body or body.startswith("#"):
        return 0
    if sum(map(body.count, "([{")) == sum(map(body.count, ")]}")):
        return 0  # balanced or, with brackets in strings, a line code_line refuses
    tokens = _tokens(body)
    if tokens is None:
        return None
    return sum(t in _OPEN for _, t in tokens) - sum(t in _CLOSE for _, t in tokens)


def _is_docstring(text: str, indent: int) -> bool:
    """Whether black leaves the docstring ``text`` (its lines, the first indented by
    ``indent``) as it is: ``\"\"\"`` quotes, no backslash, the first line's text and the end
    free of surrounding spaces and quotes, the other lines indented at least as the first
    (one exactly), no trailing spaces, closing quotes on the last line of text within the line
    length."""
    lines = text.split("\n")
    pad = " " * indent
    inner = text[indent + 3 : -3]
    if not lines[0].startswith(pad + '"""') or "\\" in text or "\t" in text or not inner:
        return False
    if inner[0] in ' "' or inner[-1] in ' "' or len(lines[-1]) > LINE_LENGTH:
        return False
    rest = lines[1:]
    if any(line != line.rstrip() or (line and not line.startswith(pad)) for line in lines):
        return False
    if rest and (not rest[-1].strip(' "') or len(lines[0]) == indent + 3):
        return False
    return not rest or min(len(x) - len(x.lstrip(" ")) for x in rest if x) == indent


def _plan_assignments(lines: list[str]) -> list[str | Pending] | None:
    """:func:`_plan` of a run of top-level one-line assignments ``name = …``."""
    out: list[str | Pending] = []
    for line in lines:
        if not _ASSIGNMENT.match(line):
            return None
        rendered = code_line(line)
        if rendered is None:
            return None
        out.append(rendered)
    return out


def _ends_block(item: str | Pending) -> bool:
    """Whether a laid-out line (or a pending statement) opens a block."""
    return (item.line if isinstance(item, Pending) else item).endswith(":")


_CLOSE = frozenset(")]}")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]* = ")
_COMMENT = re.compile(r" *#(?: .*\S)?")  # black adds a space only after a bare ``#x``
