"""The site-table shortcut in codegen/fastfmt.py gives exactly black's bytes."""

from __future__ import annotations

import black
import pytest

from compiler.blackfmt import black_mode
from compiler.codegen.fastfmt import _int_table, format_job

MODE = black_mode()

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


RUN = "a = lookup('x')\nb_2 = f(1, 'two', c=3)\nCASES = {'k': 0, 'j': 1}\n"


@pytest.mark.parametrize(
    "around",
    [
        ("import sys\n", ""),
        ("import sys\n\n", "\n\ndef f(a):\n    return a\n"),
        ('"""doc"""\n', "x = ()\nT_SITES = ((1, 2, 3, 4),)\n"),
        ("import sys\n\n\n\n", "# comment\ndef f(a):\n    pass\n\n\n\ny = 1\n"),
        ("def f(a):\n    return a\n", "@dec\ndef g():\n    pass\n"),
        ("if x:\n    y = 1\n", "if __name__ == '__main__':\n    main()\n"),
    ],
)
def test_assignment_runs_match_black(around: tuple[str, str]) -> None:
    text = around[0] + RUN + around[1]
    assert format_job(text) == black.format_str(text, mode=MODE)
    text = around[0] + RUN + "\n" + RUN + around[1]
    assert format_job(text) == black.format_str(text, mode=MODE)


@pytest.mark.parametrize("length", [*range(90, 110), 400, 60_000])
@pytest.mark.parametrize("indent", [0, 4, 8])
def test_long_string_assignments_match_black(length: int, indent: int) -> None:
    pad = " " * indent
    value = repr("s'\"" + "x" * length)
    line = f"{pad}SOURCE = {value}"
    body = "".join(f"{' ' * k}if x:\n" for k in range(0, indent, 4)) + line
    text = f"import sys\n\n{body}\nz = 'a'\n"
    assert format_job(text) == black.format_str(text, mode=MODE)
    text = f"import sys\n\n\ndef f(x):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
    assert format_job(text) == black.format_str(text, mode=MODE)


def test_adjacent_placeholders_are_each_put_back() -> None:
    table = repr(rows(40))
    text = f"{HEAD}a = 1\nT_SITES = {table}\nb = 2\nU_SITES = {table}\n{TAIL}"
    assert format_job(text) == black.format_str(text, mode=MODE)


_STATEMENTS = [
    "def f{k}(event, meta):\n    x = g(event, 'a')\n    return x, meta",
    "def h{k}(a):\n    pass",
    "def u{k}(a,b):\n    pass",  # black respaces it: never part of a collapsed group
    "T{k}_SITES = ((1, 2, 3, 4), (5, 6, 7, 8))",
    "E{k} = ()",
    "a{k} = lookup('x')\nb{k} = f(1, 'two')",
    "# a comment {k}",
    "import os",
    "@dec\ndef d{k}():\n    pass",
    "if x{k}:\n    y = 1",
    '"""A string {k}."""',
]


@pytest.mark.parametrize("seed", range(40))
def test_collapsed_groups_match_black(seed: int) -> None:
    """Random top-level statements, mostly ones format_job sets aside, any blank lines apart."""
    import random

    rng = random.Random(seed)
    weights = [6, 6, 1, 6, 6, 3, 1, 1, 1, 1, 1]
    parts = ["import sys\n"]
    for k in range(rng.randrange(3, 60)):
        statement = rng.choices(_STATEMENTS, weights)[0].format(k=k)
        parts.append("\n" * rng.choice([0, 1, 1, 2, 2, 3]) + statement + "\n")
    text = "".join(parts)
    assert format_job(text) == black.format_str(text, mode=MODE)


@pytest.mark.parametrize(
    "value",
    [((1, 2),), ((1,),), ((1, -2, 3), (4, 5, 6)), ((0,), (-7, 8)), ((1, 2),) * 3],
)
def test_int_tables_are_read_back(value: tuple[tuple[int, ...], ...]) -> None:
    assert _int_table(repr(value)) == value


@pytest.mark.parametrize(
    "text", ["((1, 2), (3, 'a'))", "((1, 2), ())", "((1,  2),)", "((1.5, 2),)", "((01, 2),)", "()"]
)
def test_other_texts_are_not_int_tables(text: str) -> None:
    assert _int_table(text) is None


@pytest.mark.parametrize(
    "text",
    ['"plain"', '"it\'s"', "'single'", '"esc\\"aped"', "'mixed \"q\"'", '""', 'b"x"', '"a\\\\b"'],
)
def test_string_literals_take_blacks_quotes(text: str) -> None:
    from black.strings import normalize_string_quotes

    from compiler.codegen.quotefmt import black_quotes

    assert black_quotes(text) == normalize_string_quotes(text)


def test_black_quotes_is_normalize_string_quotes() -> None:
    """Every literal of up to four characters from quotes, a backslash and plain text, in both
    quote styles, gets black's own quote normalisation."""
    import ast
    import itertools

    from black.strings import normalize_string_quotes

    from compiler.codegen.quotefmt import black_quotes

    checked = 0
    for size in range(5):
        for body in itertools.product(["a", '"', "'", "\\", " ", "{"], repeat=size):
            for quote in ('"', "'"):
                literal = quote + "".join(body) + quote
                try:
                    ast.literal_eval(literal)
                except (SyntaxError, ValueError):
                    continue
                assert black_quotes(literal) == normalize_string_quotes(literal), literal
                checked += 1
    assert checked > 1000
