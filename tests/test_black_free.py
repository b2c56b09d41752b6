"""A build lays out the whole job without importing black when every piece's layout is certain
(codegen/splitfmt.py, skeletonfmt.py, quotefmt.py), and what it lays out is black's: long and
magic-trailing-comma statements, string quotes and the blank lines between top-level statements
are compared with black itself here; whole jobs in tests/test_black_stable.py."""

from __future__ import annotations

import random

import black
import pytest
from black.strings import normalize_string_quotes

from compiler.blackfmt import black_mode
from compiler.codegen.quotefmt import black_quotes
from compiler.codegen.skeletonfmt import blank_lines
from compiler.codegen.stablefmt import NARROW_RANGES, narrow, stable_def

MODE = black_mode()
NAMES = ["a", "stage0", "events", "GRAPH", "spark", "flush_at_end", "x" * 24, "y" * 41]


def _atom(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(14 if depth < 3 else 4)
    if kind == 0:
        return rng.choice(NAMES)
    if kind == 1:
        return repr("s" * rng.randrange(41))
    if kind == 2:
        return str(rng.randrange(10 ** rng.randrange(1, 7)))
    if kind == 3:
        return f"{rng.choice(NAMES)}.{rng.choice(NAMES)}"
    if kind in (4, 5):
        return _call(rng, depth + 1)
    if kind == 6:
        return "{" + _items(rng, depth, pairs=True) + "}"
    if kind == 7:
        return "[" + _items(rng, depth) + "]"
    if kind == 8:
        return _chain(rng, depth + 1)
    if kind == 9:
        return "(" + ", ".join(_atom(rng, depth + 1) for _ in range(rng.randrange(2, 4))) + ")"
    if kind == 10:
        joiner = rng.choice([" == ", " + ", " and ", " if a else ", " % "])
        return _atom(rng, depth + 1) + joiner + _atom(rng, depth + 1)
    if kind == 11:
        return rng.choice(["-", "not ", "~"]) + rng.choice(NAMES)
    if kind == 12:
        return f"{rng.choice(NAMES)}[{_atom(rng, depth + 1)}]"
    return f"{'p' * rng.randrange(31)!r} {'q' * rng.randrange(31)!r}"


def _items(rng: random.Random, depth: int, pairs: bool = False, keywords: bool = False) -> str:
    items = []
    for _ in range(rng.randrange(5)):
        value = _atom(rng, depth + 1)
        if pairs:
            items.append(f"{rng.choice(NAMES)!r}: {value}")
        elif keywords and rng.random() < 0.3:
            items.append(f"{rng.choice(NAMES)}={value}")
        else:
            items.append(value)
    return ", ".join(items) + ("," if items and rng.random() < 0.3 else "")


def _call(rng: random.Random, depth: int) -> str:
    return f"{rng.choice(NAMES)}({_items(rng, depth, keywords=True)})"


def _chain(rng: random.Random, depth: int) -> str:
    return _call(rng, depth) + "".join("." + _call(rng, depth) for _ in range(rng.randrange(1, 4)))


def _statement(rng: random.Random) -> str:
    value = rng.choice([_call, _chain])(rng, 0) if rng.random() < 0.8 else _atom(rng, 0)
    head = rng.choice(["x = ", "return ", "", f"{rng.choice(NAMES)} = ", "x += "])
    if rng.random() < 0.1:
        value = ", ".join([value, *(_atom(rng, 1) for _ in range(rng.randrange(1, 4)))])
    return head + value


@pytest.mark.parametrize("seed", range(8))
def test_statements_are_split_as_black_splits_them(seed: int) -> None:
    rng = random.Random(seed)
    laid_out = 0
    for _ in range(60):
        depth = rng.randrange(4)
        heads = "".join("    " * (k + 1) + f"if a{k}:\n" for k in range(depth))
        chunk = f"def f(a):\n{heads}{'    ' * (depth + 1)}{_statement(rng)}\n    return 1"
        laid = stable_def(chunk)
        if laid is None:
            continue
        try:
            expected = black.format_str(chunk + "\n", mode=MODE)
        except black.InvalidInput:
            continue
        assert laid + "\n" == expected, chunk
        laid_out += laid.count("\n") > chunk.count("\n")
    assert laid_out > 10  # the split path ran, not only lines that fit


LITERALS = [
    "'plain'",
    '"plain"',
    "'it\\'s'",
    '"it\'s"',
    "'say \"hi\"'",
    '"say \\"hi\\""',
    "'both \\' and \"'",
    '"both \' and \\""',
    "'\\\\'",
    "'\\\\\\''",
    "'a\\\\\"b'",
    "b'bytes'",
    "b'it\\'s'",
    "'\\n\\t\\x00'",
    "''",
    '""',
    "'\"'",
    '"\'"',
    "'\\\"'",
    "'é \\u1234 \\''",
]


@pytest.mark.parametrize("literal", LITERALS)
def test_quotes_are_black_quotes(literal: str) -> None:
    assert black_quotes(literal) == normalize_string_quotes(literal)


@pytest.mark.parametrize("seed", range(4))
def test_quotes_of_generated_strings_are_black_quotes(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = "".join(rng.choice("ab'\"\\\n é") for _ in range(rng.randrange(12)))
        literal = repr(text if rng.random() < 0.8 else text.encode())
        assert black_quotes(literal) == normalize_string_quotes(literal), literal


@pytest.mark.parametrize("seed", range(4))
def test_quotes_of_hand_written_escapes_are_black_quotes(seed: int) -> None:
    """Literals repr never writes: unneeded escapes of either quote, escaped backslashes before
    a quote, bodies of quotes and backslashes only."""
    rng = random.Random(seed)
    checked = 0
    while checked < 2000:
        body = "".join(rng.choice(("a", "'", '"', "\\", "n", "\\'", '\\"')) for _ in range(8))
        literal = (
            rng.choice(("", "b")) + (quote := rng.choice("'\"")) + body[: rng.randrange(9)] + quote
        )
        try:
            compile(literal, "literal", "eval")
        except SyntaxError:
            continue
        checked += 1
        assert black_quotes.__wrapped__(literal) == normalize_string_quotes(literal), literal


STATEMENTS = {
    "import": "import os",
    "assign": "x = ()",
    "def": "def f():\n    pass",
    "if": 'if __name__ == "__main__":\n    main()',
}


@pytest.mark.parametrize("previous", ["docstring", *STATEMENTS])
@pytest.mark.parametrize("current", list(STATEMENTS))
@pytest.mark.parametrize("written", [0, 1, 2, 3])
def test_blank_lines_are_black_blank_lines(previous: str, current: str, written: int) -> None:
    first = '"""Doc."""' if previous == "docstring" else STATEMENTS[previous]
    text = f"{first}\n{chr(10) * written}{STATEMENTS[current]}\n"
    out = black.format_str(text, mode=MODE)
    between = out[len(first) + 1 : out.index(STATEMENTS[current], len(first))]
    assert between.count("\n") == blank_lines(previous, written, current)


def test_narrow_ranges_hold_no_character_black_counts_wide() -> None:
    from black._width_table import WIDTH_TABLE

    for start, end, _ in WIDTH_TABLE:
        assert all(end < a or start > b for a, b in NARROW_RANGES), (start, end)
    assert narrow("sources → sinks, ± é") and not narrow("中") and not narrow("⌚")
