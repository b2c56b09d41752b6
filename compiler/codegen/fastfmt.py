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


def _int_table(text: str) -> tuple[tuple[int, ...], ...] | None:
    """The value of ``text`` if it is exactly the ``repr`` of a non-empty tuple of int tuples."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    good = (
        isinstance(value, tuple)
        and len(value) > 0
        and all(
            isinstance(row, tuple)
            and all(type(item) is int for item in row)
            and len(repr(row)) < LINE_LENGTH - 5
            for row in value
        )
        and repr(value) == text
    )
    return value if good else None


def table_lines(name: str, rows: tuple[tuple[int, ...], ...]) -> str:
    """Black's layout of the statement ``name = rows`` (a non-empty int-tuple table)."""
    line = f"{name} = {rows!r}"
    if len(line) <= LINE_LENGTH:
        return line
    return "\n".join([f"{name} = (", *(f"    {row!r}," for row in rows), ")"])


def format_job(text: str) -> str:
    """``black.format_str(text)``, with each top-level int-tuple table set aside: black formats
    the text with ``NAME = ()`` in its place (same statement kind, so the same blank lines), and
    the table is laid out by :func:`table_lines`."""
    tables: dict[str, tuple[tuple[int, ...], ...]] = {}

    def set_aside(found: re.Match[str]) -> str:
        name = found.group(1)
        value = None if name in tables else _int_table(found.group(2))
        if value is None:
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
