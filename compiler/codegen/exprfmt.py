"""Black's layout of a top-level ``NAME = <literal tree>`` statement, without black.

The job's big structural constants (``GRAPH = GraphSpec(...)``, ``STAGES = (...)``) are nested
calls, tuples, lists and dicts of plain atoms; black spends more time on them than on anything
else and its time grows faster than their size. Their layout is simple: a bracket whose line
does not fit (or that holds a magic trailing comma) opens a block; a call's arguments go on one
line if they fit, else one a line with a trailing comma; a tuple, list or dict literal always
goes one item a line. :func:`layout_assignment` gives up (None) on anything else. Invariant: a
non-None result is byte-identical to black's (tests/test_black_stable.py checks it).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from .quotefmt import black_quotes

LINE_LENGTH = 100


class _GiveUp(Exception):
    """The expression holds something whose black layout this module does not know."""


def layout_assignment(line: str) -> str | None:
    """Black's formatting of the one-line statement ``NAME = value`` (no trailing newline)."""
    name, _, value = line.partition(" = ")
    if not name.isidentifier() or not value or not line.isascii():
        return None
    if value[:1] in ("'", '"') and len(line) > 2 * LINE_LENGTH:
        # One long string (the job's SOURCE): black leaves it whole, and no quote change can
        # halve it (dropping an escape saves one character of two), so it never fits a line.
        return None
    try:
        node = ast.parse(value, mode="eval").body
        return "\n".join(_layout(f"{name} = ", node, _Text(value, _magic_spans(value)), "", 0))
    except (SyntaxError, ValueError, RecursionError, _GiveUp):
        return None


@dataclass
class _Text:
    """The statement's value text, the spans of its nodes that end in a magic trailing comma
    (``(start, end)`` column offsets, sorted), and the flat text of each node, which every
    enclosing level of :func:`_layout` asks for again (computed once)."""

    value: str
    magic: list[tuple[int, int]]
    flat: dict[int, str] = field(default_factory=dict)


_TOKEN = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[()\[\]{},]""")


def _magic_spans(value: str) -> list[tuple[int, int]]:
    """The sorted spans of the brackets of ``value`` (a one-line expression) that close after
    a magic trailing comma: a comma, then only spaces, then the closing bracket, unless the
    brackets are a one-tuple's. Read from the text in one pass over its strings, brackets and
    commas (a walk of the parsed tree took longer than the layout itself). A call's span is
    its brackets: a node holds the call exactly when it holds them."""
    if "," not in value:
        return []
    spans: list[tuple[int, int]] = []
    stack: list[list] = []  # [opening bracket, position, commas, called, end of last comma]
    for found in _TOKEN.finditer(value):
        char, at = found.group(), found.start()
        if char in "([{":
            stack.append([char, at, 0, char == "(" and _follows_callee(value, at), -1])
        elif char == ",":
            if stack:
                stack[-1][2] += 1
                stack[-1][4] = found.end()
        elif char in ")]}":
            if not stack:
                return []  # unbalanced: the parse that follows fails
            opened, start, commas, called, comma_end = stack.pop()
            trailing = comma_end >= 0 and not value[comma_end:at].strip()
            one_tuple = opened == "(" and not called and commas == 1
            if trailing and not one_tuple:
                spans.append((start, at + 1))
    return sorted(spans)


def _follows_callee(value: str, at: int) -> bool:
    """Whether the bracket at ``at`` opens a call's arguments (a name or a closing bracket
    before it, spaces aside) rather than a tuple."""
    k = at - 1
    while k >= 0 and value[k] == " ":
        k -= 1
    return k >= 0 and (value[k].isalnum() or value[k] in "_)]")


def _layout(prefix: str, node: ast.expr, text: _Text, suffix: str, indent: int) -> list[str]:
    """The lines of ``prefix + node + suffix`` at ``indent`` spaces."""
    flat = " " * indent + prefix + _flat(node, text) + suffix
    if len(flat) <= LINE_LENGTH and not _has_magic(node, text):
        return [flat]
    opener, items, closer = _parts(node, text)
    if not items or len(items) == 1 and not isinstance(node, ast.Tuple):
        raise _GiveUp  # one-argument calls and long atoms split in other ways
    pad, inner = " " * indent, " " * (indent + 4)
    lines = [pad + prefix + opener]
    if len(lines[0]) > LINE_LENGTH:
        raise _GiveUp  # black looks for another split
    one_line = inner + ", ".join(p + _flat(n, text) for p, n in items)
    call = isinstance(node, ast.Call)
    if call and not _ends_magic(node, text) and len(one_line) <= LINE_LENGTH:
        if not any(_has_magic(n, text) for _, n in items):
            return [*lines, one_line, pad + closer + suffix]
    for item_prefix, item in items:
        lines += _layout(item_prefix, item, text, ",", indent + 4)
    return [*lines, pad + closer + suffix]


def _parts(node: ast.expr, text: _Text) -> tuple[str, list[tuple[str, ast.expr]], str]:
    """A bracketed node's opening text, its items (prefix, value) and its closing bracket."""
    if isinstance(node, ast.Call):
        items = [("", a) for a in node.args] + [(f"{k.arg}=", k.value) for k in node.keywords]
        if any(k.arg is None for k in node.keywords) or any(
            isinstance(a, ast.Starred) for a in node.args
        ):
            raise _GiveUp
        return _flat(node.func, text) + "(", items, ")"
    if isinstance(node, ast.Tuple | ast.List):
        if text.value[node.col_offset] not in "([":
            raise _GiveUp  # a tuple without parentheses
        opener = "(" if isinstance(node, ast.Tuple) else "["
        return opener, [("", e) for e in node.elts], ")" if opener == "(" else "]"
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _GiveUp
        return (
            "{",
            [(_flat(k, text) + ": ", v) for k, v in zip(node.keys, node.values, strict=True)],
            "}",
        )
    raise _GiveUp


def _flat(node: ast.expr | None, text: _Text) -> str:
    """``node`` on one line, spaced and quoted as black writes it (once per node)."""
    found = text.flat.get(id(node))
    if found is None:
        found = text.flat[id(node)] = _flat_once(node, text)
    return found


def _flat_once(node: ast.expr | None, text: _Text) -> str:
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        if isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
            return "-" + _constant(node.operand.value)
    if isinstance(node, ast.Call | ast.List | ast.Dict | ast.Tuple) and node is not None:
        opener, items, closer = _parts(node, text)
        inside = ", ".join(p + _flat(n, text) for p, n in items)
        one = isinstance(node, ast.Tuple) and len(items) == 1
        return opener + inside + ("," if one else "") + closer
    raise _GiveUp


def _constant(value: object) -> str:
    if value is None or type(value) in (bool, int):
        return repr(value)
    if type(value) is str:
        return black_quotes(repr(value))
    if type(value) is float and repr(value).replace(".", "").isdigit():
        return repr(value)
    raise _GiveUp


def _ends_magic(node: ast.expr, text: _Text) -> bool:
    """Whether ``node`` itself ends in a magic trailing comma: a magic span closes where it does
    (only a node's own closing bracket ends there)."""
    end = node.end_col_offset
    return any(closed == end for _, closed in text.magic)


def _has_magic(node: ast.AST, text: _Text) -> bool:
    """Whether ``node`` or an expression below it has a magic trailing comma: a magic span
    inside its own (spans nest or are apart; a call and its callee start together)."""
    spans = text.magic
    if not spans:
        return False
    start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    for inner in spans[bisect_left(spans, (start, -1)) :]:
        if inner[0] >= end:
            return False
        if inner[1] <= end:
            return True
    return False
