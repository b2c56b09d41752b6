"""The start sets of compiler/parse/start_sets.py: exact on hand-checked regexes and rules, and
never too small: every node of parsimonious' own parse of every plain corpus program starts
with a character of its expression's set (or is empty where the set says it may be)."""

from __future__ import annotations

import string
import sys
from pathlib import Path

import pytest

from compiler.grammar import load_grammar, load_peg
from compiler.parse.start_sets import PLAIN_CHARS, regex_starts, starts
from tests.test_fastpeg import GRAMMARS, PROGRAMS, copy_of, slow_match

LETTERS = frozenset(string.ascii_letters)
WHITESPACE = frozenset(" \t\n\x0b\x0c\r")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"let(?!\w)", (frozenset("l"), False)),
        (r"(?:\s+|#(?!!config )[^\n]*)*", (WHITESPACE | {"#"}, True)),
        (r"[^\W\d_]\w*", (LETTERS, False)),
        (r"-?[0-9]+", (frozenset("-0123456789"), False)),
        (r"(?:a|b?)c", (frozenset("abc"), False)),
        (r"\b(?:x)?", (frozenset("x"), True)),
        (r"[^\"\\#\n]+", frozenset(PLAIN_CHARS) - set('"\\#\n')),
        (r"(a)?\1", None),  # a back reference where the match may start: unknown
        (r"(?i:a)b", None),  # flags inside: unknown
    ],
)
def test_regex_starts(pattern: str, expected: object) -> None:
    found = regex_starts(pattern)
    if isinstance(expected, frozenset):
        assert found == (expected, False)
    else:
        assert found == expected


def test_rule_starts() -> None:
    grammar = load_peg("script")
    assert starts(grammar["kw_let"]) == (frozenset("l"), False)
    letters_or_quote = starts(grammar["ident"])
    assert letters_or_quote is not None and not letters_or_quote[1]
    assert LETTERS <= letters_or_quote[0] and "`" in letters_or_quote[0]
    assert not letters_or_quote[0] & set("0123456789 .")
    segment = starts(grammar["segment"])
    assert segment == (WHITESPACE | set("#.["), False)  # `_` may come first


PLAIN = [path for path in PROGRAMS if set(path.read_text()) <= set(PLAIN_CHARS)]


def test_most_programs_are_plain() -> None:
    assert len(PLAIN) > 0.9 * len(PROGRAMS)


@pytest.mark.parametrize("path", PLAIN, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_no_node_starts_outside_its_set(path: Path) -> None:
    names, _visitor = GRAMMARS[path.suffix]
    text = path.read_text()
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20_000))
    grammar = load_grammar(*names)
    copies = copy_of(grammar)[1]
    try:
        tree = slow_match(grammar.default_rule, text)
    finally:
        sys.setrecursionlimit(old_limit)
    if tree is None:
        return  # a program the corpus expects to fail to parse
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        found = starts(copies[id(node.expr)])
        if found is None:
            continue
        chars, empty = found
        if node.end == node.start:
            assert empty, (node.expr.as_rule(), node.start)
        else:
            assert text[node.start] in chars, (node.expr.as_rule(), text[node.start])
