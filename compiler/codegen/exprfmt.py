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
        return "\n".join(_layout(f"{name} = ", node, _Text(value), "", 0))
    except (SyntaxError, ValueError, RecursionError, _GiveUp):
        return None


@dataclass
class _Text:
    """The statement's value text, and the per-node results every enclosing level of
    :func:`_layout` asks for again (flat text, magic commas below): each computed once."""

    value: str
    flat: dict[int, str] = field(default_factory=dict)
    magic: dict[int, bool] = field(default_factory=dict)


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
    if call and not _magic(node, text) and len(one_line) <= LINE_LENGTH:
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


def _magic(node: ast.expr, text: _Text) -> bool:
    """Whether the source of ``node`` ends in a magic trailing comma (one-tuples' comma is not
    magic). The statement is one line, so column offsets index ``text``."""
    if not isinstance(node, ast.Call | ast.Tuple | ast.List | ast.Dict):
        return False
    value, at = text.value, node.end_col_offset - 2  # before the closing bracket
    while at >= 0 and value[at].isspace():
        at -= 1
    if at < 0 or value[at] != ",":
        return False
    return not (isinstance(node, ast.Tuple) and len(node.elts) == 1)


def _has_magic(node: ast.AST, text: _Text) -> bool:
    """Whether ``node`` or an expression below it has a magic trailing comma (once per node)."""
    found = text.magic.get(id(node))
    if found is None:
        found = (isinstance(node, ast.expr) and _magic(node, text)) or any(
            _has_magic(child, text) for child in ast.iter_child_nodes(node)
        )
        text.magic[id(node)] = found
    return found
