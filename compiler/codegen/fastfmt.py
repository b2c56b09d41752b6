"""Format a job with black, but lay out the big site tables ourselves.

A ``NAME = ((a, b, c, d), ...)`` line of int tuples (the error-site tables, one tuple per
diagnostic site) is most of black's work on a large program, and its layout is fixed: one line if
it fits, else one tuple per line with a trailing comma. Invariant: the result is byte-identical
to ``black.format_str`` on the whole text (tests/test_fastfmt.py checks it against black).
"""

from __future__ import annotations

import re

from ..blackfmt import black_format
from .exprfmt import layout_assignment
from .groupfmt import collapse, expand
from .skeletonfmt import layout_skeleton
from .stablefmt import stable_defs

LINE_LENGTH = 100
_TABLE = re.compile(r"^([A-Z][A-Z0-9_]*) = (\(\(.*\)\))$", re.M)
_CONSTANT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) = ([^\n]{90,})$", re.M)
_DEF = re.compile(r"^def ([A-Za-z_][A-Za-z0-9_]*)[^\n]*(?:\n [^\n]*)*", re.M)
# A run of top-level one-line assignments (not the ``NAME = ()`` placeholders), between newlines.
_ASSIGN = r"[A-Za-z_][A-Za-z0-9_]* = (?!\(\)\n)[^\n]*"
_RUN = re.compile(rf"\n((?:{_ASSIGN}\n)*{_ASSIGN})\n")


_INT_ROW = r"\(-?[0-9]+(?:, -?[0-9]+)*,?\)"
_INT_TABLE = re.compile(rf"\({_INT_ROW}(?:, {_INT_ROW})*,?\)")
_ROW_ITEMS = re.compile(r"\(([^()]*)\)")


def _int_table(text: str) -> tuple[tuple[int, ...], ...] | None:
    """The value of ``text`` if it is exactly the ``repr`` of a non-empty tuple of int tuples
    each shorter than a line (read by a regex: ``ast.literal_eval`` took a fifth of a large
    job's formatting). When ``repr`` gives ``text`` back, each row's text is its own ``repr``
    without the parentheses, so the row lengths are read off the text."""
    if _INT_TABLE.fullmatch(text) is None:
        return None
    rows = _ROW_ITEMS.findall(text[1:-1])
    value = tuple(tuple(int(item) for item in row.split(",") if item.strip()) for row in rows)
    if repr(value) != text or any(len(row) + 2 >= LINE_LENGTH - 5 for row in rows):
        return None
    return value


def table_lines(name: str, rows: tuple[tuple[int, ...], ...]) -> str:
    """Black's layout of the statement ``name = rows`` (a non-empty int-tuple table)."""
    line = f"{name} = {rows!r}"
    if len(line) <= LINE_LENGTH:
        return line
    return "\n".join([f"{name} = (", *(f"    {row!r}," for row in rows), ")"])


def format_job(text: str) -> str:
    """``black.format_str(text)``, with the pieces whose black layout is known set aside: each
    top-level int-tuple table (black formats ``NAME = ()`` in its place: same statement kind,
    so the same blank lines; :func:`table_lines` lays it out) and each top-level ``def`` that
    :func:`stable_defs` lays out (black formats ``def …:`` with a ``pass`` body in its place),
    each run of top-level one-line assignments it lays out (black formats one ``NAME = ()`` in
    its place: an assignment like the run's first and last lines, which has no blank line inside,
    so the same blank lines around it), and each long top-level ``NAME = <literal tree>`` that
    :func:`layout_assignment` lays out. Like the tables and defs, a run is found by its text: the
    generated job has no multi-line string whose lines look like top-level assignments."""
    tables: dict[str, tuple[tuple[int, ...], ...]] = {}
    defs: dict[str, str] = {}
    constants: dict[str, str] = {}  # long NAME = <literal tree> lines (exprfmt)

    def set_aside(found: re.Match[str]) -> str:
        name = found.group(1)
        value = None if name in tables else _int_table(found.group(2))
        if value is None:
            return found.group(0)
        tables[name] = value
        return f"{name} = ()"

    def set_constant_aside(found: re.Match[str]) -> str:
        laid = layout_assignment(found.group(0))
        if laid is None:
            return found.group(0)
        constants[f"\n{found.group(1)} = ()\n"] = f"\n{laid}\n"
        return f"{found.group(1)} = ()"

    tabled = _CONSTANT.sub(set_constant_aside, _TABLE.sub(set_aside, text))
    runs = [found.group(1) for found in _RUN.finditer(tabled)]
    chunks = [found.group(0) for found in _DEF.finditer(tabled)]
    laid_out = dict(zip(chunks + runs, stable_defs(chunks + runs), strict=True))

    def set_def_aside(found: re.Match[str]) -> str:
        laid = laid_out[found.group(0)]
        if laid is None:
            return found.group(0)
        head = laid.split("\n", 1)[0]
        defs[f"\n{head}\n    pass\n"] = f"\n{laid}\n"
        return f"{head}\n    pass"

    def set_run_aside(found: re.Match[str]) -> str:
        laid = laid_out[found.group(1)]
        if laid is None:
            return found.group(0)
        mark = f"_tremorc_run_{len(defs)} = ()"
        defs[f"\n{mark}\n"] = f"\n{laid}\n"
        return f"\n{mark}\n"

    skeleton = _DEF.sub(set_def_aside, _RUN.sub(set_run_aside, tabled))
    formatted = _format_skeleton(skeleton, {key.strip("\n") for key in defs})
    pieces = {f"\n{name} = ()\n": f"\n{table_lines(name, v)}\n" for name, v in tables.items()}
    pieces.update(defs)
    pieces.update(constants)
    if len(pieces) != len(tables) + len(defs) + len(constants):
        return black_format(text)
    return _put_back(formatted, pieces) or black_format(text)


def _format_skeleton(skeleton: str, defs: set[str]) -> str:
    """``black.format_str(skeleton)``, each group of placeholders collapsed while black runs
    (:mod:`.groupfmt`)."""
    laid = layout_skeleton(skeleton, defs)
    if laid is not None:
        return laid
    collapsed, groups = collapse(skeleton, defs)
    if groups:
        expanded = expand(black_format(collapsed), groups)
        if expanded is not None:
            return expanded
    return black_format(skeleton)


def _put_back(formatted: str, pieces: dict[str, str]) -> str | None:
    """``formatted`` with each placeholder (a key, found exactly once) replaced by its piece, in
    one pass; None when a placeholder is missing or repeated (an unexpected layout). Keys and
    pieces are whole lines, ``\n`` at both ends: a key is found where its lines follow a newline
    and are followed by one (never the text's first or last line), adjacent placeholders each.
    Matched line by line: a regex alternation of a large job's ~1,000 keys took 0.1 s to
    compile."""
    if not pieces:
        return formatted
    starts: dict[str, list[tuple[list[str], str, str]]] = {}
    for key, piece in pieces.items():
        first, *rest = key[1:-1].split("\n")
        starts.setdefault(first, []).append((rest, piece[1:-1], key))
    lines = formatted.split("\n")
    out, found = [lines[0]], set()
    index, last = 1, len(lines) - 1
    while index < last:
        for rest, piece, key in starts.get(lines[index], ()):
            end = index + 1 + len(rest)
            if end <= last and lines[index + 1 : end] == rest:
                if key in found:
                    return None
                found.add(key)
                out.append(piece)
                index = end
                break
        else:
            out.append(lines[index])
            index += 1
    out.extend(lines[index:])
    return "\n".join(out) if len(found) == len(pieces) else None
