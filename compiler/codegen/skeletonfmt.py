"""Black's formatting of a job's skeleton without black, when that is certain.

The skeleton is what :func:`~.fastfmt.format_job` has left once every piece it lays out itself
is a placeholder: the header comments, the module docstring, the import lines, the placeholders
(``NAME = ()``, ``def head:`` with a ``pass`` body) and the ``if __name__ == "__main__":`` block.
Black writes each of these as it is written here (checked line by line: comment and docstring
forms it leaves alone, import lines that fit or that it splits one name a line, code lines
:func:`~.stablefmt.code_line` lays out) and decides only the blank lines between two top-level
statements, from their kinds and the blank lines written (:func:`blank_lines`, black's
``EmptyLineTracker`` for these kinds). Anything else gives ``None`` and black formats the
skeleton. Invariant: a non-``None`` result is byte-identical to black's
(tests/test_black_stable.py).
"""

from __future__ import annotations

import re

from .stablefmt import LINE_LENGTH, code_line

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ITEM = rf"{_NAME}(?: as {_NAME})?"
_IMPORT = re.compile(rf"import {_NAME}(?:\.{_NAME})*")
_FROM = re.compile(rf"(from {_NAME}(?:\.{_NAME})* import )({_ITEM}(?:, {_ITEM})*)")
_PLACEHOLDER = re.compile(rf"{_NAME} = \(\)")
_DOCSTRING = re.compile(r'"""[^\s"\\][^"\\]*(?<=[^\s"\\])"""|"""[^\s"\\]"""')


def blank_lines(previous: str, written: int, current: str) -> int:
    """The blank lines black puts between two top-level statements of the kinds ``previous``
    and ``current`` (docstring, import, assign, def, if), written ``written`` apart: two around
    a ``def``, one after the module docstring and after the last import, else as written (at
    most two)."""
    if previous == "def" or current == "def":
        return 2
    if previous == "docstring" or previous == "import" and current != "import":
        return 1
    return min(written, 2)


def layout_skeleton(text: str, placeholders: set[str]) -> str | None:
    """Black's formatting of ``text``, or None when it is not certain without black.
    ``placeholders``: the ``def head:\\n    pass`` pieces whose head is black's already."""
    if not text.endswith("\n"):
        return None
    lines = text[:-1].split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n and lines[i].startswith("#"):
        if lines[i] != lines[i].rstrip() or not (lines[i] == "#" or lines[i].startswith("# ")):
            return None
        out.append(lines[i])
        i += 1
    previous = None
    if i < n and lines[i].startswith('"""'):
        if not _DOCSTRING.fullmatch(lines[i]) or len(lines[i]) > LINE_LENGTH:
            return None
        out.append(lines[i])
        previous, i = "docstring", i + 1
    elif out:
        return None  # comments before another statement: black moves blank lines around them
    written = 0
    while i < n:
        if not lines[i]:
            written, i = written + 1, i + 1
            continue
        found = _statement(lines, i, placeholders)
        if found is None:
            return None
        kind, block, i = found
        if previous is not None:
            out += [""] * blank_lines(previous, written, kind)
        out += block
        previous, written = kind, 0
    return "\n".join(out) + "\n" if previous is not None and not written else None


def _statement(
    lines: list[str], i: int, placeholders: set[str]
) -> tuple[str, list[str], int] | None:
    """The kind of the top-level statement starting at line ``i``, its lines as black writes
    them and the index of the line after it."""
    line = lines[i]
    if line.startswith(("import ", "from ")):
        block = _import(line)
        return None if block is None else ("import", block, i + 1)
    if _PLACEHOLDER.fullmatch(line):
        return "assign", [line], i + 1
    if line.startswith("def "):
        piece = "\n".join(lines[i : i + 2])
        return ("def", lines[i : i + 2], i + 2) if piece in placeholders else None
    if line.startswith("if ") and code_line(line) == line and line.endswith(":"):
        end = i + 1
        while end < len(lines) and lines[end].startswith("    "):
            end += 1
        body = [code_line(x) for x in lines[i + 1 : end]]
        nested = [
            x for x in body if not isinstance(x, str) or x.startswith("     ") or x[-1] == ":"
        ]
        if end == i + 1 or nested:
            return None
        return "if", [line, *body], end  # type: ignore[list-item]
    return None


def _import(line: str) -> list[str] | None:
    """Black's lines for one import statement: as written when it fits, else (``from … import``)
    one name a line in parentheses with a trailing comma."""
    if _IMPORT.fullmatch(line):
        return [line] if len(line) <= LINE_LENGTH else None
    found = _FROM.fullmatch(line)
    if found is None:
        return None
    if len(line) <= LINE_LENGTH:
        return [line]
    head = found.group(1) + "("
    names = found.group(2).split(", ")
    if len(head) > LINE_LENGTH or any(len(name) + 5 > LINE_LENGTH for name in names):
        return None
    return [head, *(f"    {name}," for name in names), ")"]
