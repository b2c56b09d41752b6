"""The site-table shortcut in codegen/fastfmt.py gives exactly black's bytes."""

from __future__ import annotations

import black
import pytest

from compiler.codegen.fastfmt import MODE, format_job

HEAD = '# header\nimport sys\n\nSOURCE = "x"\n'
TAIL = "\n\ndef run(a):\n    return (a, SCRIPT_SITES)\n"


def rows(count: int, width: int = 1) -> tuple[tuple[int, ...], ...]:
    return tuple((i, i + width, 10**width, 7) for i in range(count))


@pytest.mark.parametrize("count", [1, 2, 3, 5, 6, 7, 40, 1000])
@pytest.mark.parametrize("width", [1, 3, 6])
def test_tables_match_black(count: int, width: int) -> None:
    text = f"{HEAD}SCRIPT_SITES = {rows(count, width)!r}\nQ_SITES = {rows(count + 1)!r}\n{TAIL}"
    assert format_job(text) == black.format_str(text, mode=MODE)


@pytest.mark.parametrize("length", range(95, 106))
def test_line_length_boundary(length: int) -> None:
    table = repr(((1, 2, 3, 4), (5, 6, 7, 8)))
    name = "N" * (length - len(table) - 3)
    text = f"{HEAD}{name} = {table}\n{TAIL}"
    assert format_job(text) == black.format_str(text, mode=MODE)


@pytest.mark.parametrize(
    "value",
    ["()", "((1, 2),)", "((1, 'a'),)", "((1,2), (3,4))", "((True, 1), (2, 3))", "((1, 2)) + x"],
)
def test_other_values_are_left_to_black(value: str) -> None:
    text = f"{HEAD}T_SITES = {value}\nU_SITES = {value}\n{TAIL}"
    assert format_job(text) == black.format_str(text, mode=MODE)


def test_duplicate_names_are_left_to_black() -> None:
    table = repr(rows(50))
    text = f"{HEAD}T = {table}\nT = ()\n{TAIL}"
    assert format_job(text) == black.format_str(text, mode=MODE)
