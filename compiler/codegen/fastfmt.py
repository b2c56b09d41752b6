"""Format a job with black, but lay out the big site tables ourselves.

A ``NAME = ((a, b, c, d), ...)`` line of int tuples (the error-site tables, one tuple per
diagnostic site) is most of black's work on a large program, and its layout is fixed: one line if
it fits, else one tuple per line with a trailing comma. Invariant: the result is byte-identical
to ``black.format_str`` on the whole text (tests/test_fastfmt.py checks it against black).
"""

from __future__ import annotations

import ast
import re

import black

LINE_LENGTH = 100
MODE = black.Mode(line_length=LINE_LENGTH, target_versions={black.TargetVersion.PY310})
_TABLE = re.compile(r"^([A-Z][A-Z0-9_]*) = (\(\(.*\)\))$", re.M)


def _is_int_table(text: str) -> bool:
    """Whether ``text`` is exactly the ``repr`` of a non-empty tuple of int tuples."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    return (
        isinstance(value, tuple)
        and len(value) > 0
        and all(
            isinstance(row, tuple) and all(type(item) is int for item in row) for row in value
        )
        and repr(value) == text
    )


def table_lines(name: str, text: str) -> str:
    """Black's layout of the statement ``name = text`` (``text`` an int-tuple table's repr)."""
    line = f"{name} = {text}"
    if len(line) <= LINE_LENGTH:
        return line
    rows = ast.literal_eval(text)
    return "\n".join([f"{name} = (", *(f"    {row!r}," for row in rows), ")"])


def format_job(text: str) -> str:
    """``black.format_str(text)``, with each top-level int-tuple table set aside: black formats
    the text with ``NAME = ()`` in its place (same statement kind, so the same blank lines), and
    the table is laid out by :func:`table_lines`."""
    tables: dict[str, str] = {}

    def set_aside(found: re.Match[str]) -> str:
        name, value = found.group(1), found.group(2)
        if name in tables or not _is_int_table(value):
            return found.group(0)
        tables[name] = value
        return f"{name} = ()"

    formatted = black.format_str(_TABLE.sub(set_aside, text), mode=MODE)
    for name, value in tables.items():
        placeholder = f"\n{name} = ()\n"
        if formatted.count(placeholder) != 1:  # an unexpected layout: let black do it all
            return black.format_str(text, mode=MODE)
        formatted = formatted.replace(placeholder, f"\n{table_lines(name, value)}\n")
    return formatted
