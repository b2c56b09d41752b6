"""Shrink the skeleton black formats: a group of placeholder statements stands in for itself.

:func:`~.fastfmt.format_job` hands black a skeleton in which each piece it lays out itself is a
placeholder statement: ``def head:`` with a ``pass`` body, or ``NAME = ()``. A large job's
skeleton is mostly such placeholders, one after another with only blank lines between them, and
black's time is linear in them. Black lays out each of them as written; the only thing it decides
is the number of blank lines between two of them, and that depends on nothing but the kind of the
first (its last line and the defs it leaves open), the blank lines written between them and the
kind of the second (black's ``EmptyLineTracker`` keeps no other state past a statement that is
neither a comment, a decorator nor a docstring). So :func:`collapse` replaces each group of three
or more by its first and last statement's kinds under fresh names (black decides the blank lines
around the group in its real context), and :func:`expand` puts the group back in black's output
with the blank lines black gives each pair of kinds in a two-statement probe, asked once per
process. Invariant: ``expand(black(collapse(text)))`` is ``black(text)``, or None when the
markers are not found as expected (the caller then formats without collapsing).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..blackfmt import black_format

_DEF = r"def [^\n]*:\n    pass"
_ASSIGN = r"[A-Za-z_][A-Za-z0-9_]* = \(\)"
_GROUP = re.compile(  # 3+ statements, each ending where the next line is not indented
    rf"^(?:{_DEF}|{_ASSIGN})(?:\n\n*(?:{_DEF}|{_ASSIGN})){{2,}}(?=\n+[^ \n]|\n*\Z)", re.M
)
_STATEMENT = re.compile(rf"(\n*)({_DEF}|{_ASSIGN})")
_PROBES = {"def": "def f():\n    pass", "assign": "x = ()"}


def _kind(statement: str) -> str:
    return "def" if statement.startswith("def ") else "assign"


def _marker(kind: str, name: str) -> str:
    return f"def {name}():\n    pass" if kind == "def" else f"{name} = ()"


@lru_cache(maxsize=64)
def blank_lines(first: str, written: int, second: str) -> int | None:
    """The blank lines black puts between a ``first``-kind and a ``second``-kind top-level
    statement written ``written`` blank lines apart, or None if the probe reads unexpectedly."""
    head, tail = _PROBES[first], _PROBES[second]
    out = black_format(f"{head}\n{chr(10) * written}{tail}\n")
    middle = out[len(head) : len(out) - len(tail) - 1]
    if not (out.startswith(head) and out.endswith(tail + "\n")) or middle.strip("\n"):
        return None
    return len(middle) - 1


def collapse(text: str, defs: set[str]) -> tuple[str, dict[str, tuple[str, str]]]:
    """``text`` with each group replaced by two markers; the groups by their first marker.
    ``defs``: the def placeholders (``def head:`` and ``pass`` lines, black's layout already);
    a group with any other def is left as it is (black might change it)."""
    groups: dict[str, tuple[str, str]] = {}

    def shrink(found: re.Match[str]) -> str:
        group = found.group(0)
        statements = [statement for _, statement in _STATEMENT.findall(group)]
        if any(_kind(s) == "def" and s not in defs for s in statements):
            return group
        name = f"_tremorc_group_{len(groups)}"
        head = _marker(_kind(statements[0]), name)
        end = _marker(_kind(statements[-1]), name + "_end")
        groups[head] = (end, group)
        return f"{head}\n\n{end}"

    return _GROUP.sub(shrink, text), groups


def expand(formatted: str, groups: dict[str, tuple[str, str]]) -> str | None:
    """Black's output ``formatted`` of a collapsed text with every group laid out in place."""
    for head, (end, group) in groups.items():
        laid = _lay_out(group)
        start = formatted.find(f"\n{head}\n")
        stop = formatted.find(f"\n{end}\n", start)
        once = formatted.count(f"\n{head}\n") == formatted.count(f"\n{end}\n") == 1
        if laid is None or start < 0 or stop < 0 or not once:
            return None
        formatted = f"{formatted[: start + 1]}{laid}{formatted[stop + 1 + len(end) :]}"
    return formatted


def _lay_out(group: str) -> str | None:
    """The statements of ``group`` with black's blank lines between each pair."""
    parts: list[str] = []
    previous = ""
    for newlines, statement in _STATEMENT.findall(group):
        if previous:
            count = blank_lines(_kind(previous), len(newlines) - 1, _kind(statement))
            if count is None:
                return None
            parts.append("\n" * (count + 1))
        parts.append(statement)
        previous = statement
    return "".join(parts)
