"""The PEG rules matched as one regex (compiler/parse/regular.py) end where parsimonious' own
match of the rule ends, at every position of corpus programs, for every rule of the grammars
that has such a regex."""

from __future__ import annotations

from collections import defaultdict

import pytest
from parsimonious.exceptions import ParseError
from parsimonious.grammar import Grammar

from compiler.grammar import load_grammar, load_peg
from compiler.parse import fastpeg
from compiler.parse.fastpeg import fast_match
from compiler.parse.peg import Lookahead, OneOf, Quantifier, Sequence
from compiler.parse.query import QueryVisitor
from compiler.parse.regular import as_regex
from tests.support.ast_spans import spanned
from tests.support.paths import CONFORMANCE, WORKLOADS
from tests.test_fastpeg import fast_expr

TEXTS = sorted(
    path
    for folder in (CONFORMANCE / "queries", CONFORMANCE / "scripts", WORKLOADS)
    for suffix in ("*.trickle", "*.tremor")
    for path in folder.rglob(suffix)
)[::9]


@pytest.fixture(autouse=True)
def whole_rules_on_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text rules are matched whole on long texts only; here on every plain one."""
    monkeypatch.setattr(fastpeg, "WHOLE_RULES_FROM", 0)


def regular_rules() -> dict[str, object]:
    """The rules with a regex, as parsimonious expressions (their copies have the regex)."""
    grammar = load_grammar("query", "script")
    return {
        name: expr
        for name, expr in grammar.items()
        if as_regex(fast_expr(grammar, expr)) is not None
    }


def regex_of(expr: object) -> object:
    """:func:`as_regex` of the copy of ``expr``, of the query grammar."""
    return as_regex(fast_expr(load_grammar("query", "script"), expr))


def test_the_identifier_rule_and_compound_rules_are_regular() -> None:
    rules = regular_rules()
    assert "ident" in rules and "op_cmp" in rules and "_" in rules
    compound = (Sequence, OneOf, Lookahead, Quantifier)
    copies = load_peg("query", "script")
    assert sum(isinstance(copies[name], compound) for name in rules) >= 10
    assert "expr_imut" not in rules  # recursive


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.parent.name)
def test_regex_ends_where_the_rule_does(path) -> None:
    text = path.read_text()
    if not text.isascii():
        pytest.skip("the regexes are used on plain ASCII texts only")
    for name, expr in regular_rules().items():
        regex = regex_of(expr)
        for pos in range(len(text) + 1):
            node = expr.match_core(text, pos, defaultdict(dict), ParseError(text))
            found = regex.match(text, pos)
            assert (None if node is None else node.end) == (
                None if found is None else found.end()
            ), (name, pos)


@pytest.mark.parametrize(
    "rules, text, ends",
    [
        ('r = "a" / "ab"', "ab", 1),  # ordered choice: the first that matches is kept
        ('r = ("a" / "ab") "b"', "ab", 2),
        ('r = ("a" / "ab") "c"', "abc", None),  # no backtracking into the choice
        ('r = "a"* "a"', "aaa", None),  # nor into a repetition
        ('r = "a"? "a"', "a", None),
        ('r = ~"a+" "a"', "aaa", None),  # nor into a terminal regex
        ('r = !"x" ~"[a-z]+"', "xyz", None),
        ('r = &"x" ~"[a-z]+"', "xyz", 3),
        ('r = "a"* ""', "", 0),
    ],
)
def test_peg_meaning(rules: str, text: str, ends: int | None) -> None:
    grammar = Grammar(rules)
    expr = grammar["r"]
    node = expr.match_core(text, 0, defaultdict(dict), ParseError(text))
    assert (None if node is None else node.end) == ends
    found = as_regex(fast_expr(grammar, expr)).match(text, 0)
    assert (None if found is None else found.end()) == ends


@pytest.mark.parametrize(
    "rules",
    [
        'r = "a" r / "b"',  # recursion
        'r = "a"+',  # a repetition parsimonious does not try at the end of the text
        'r = ~"a"i',  # flags of its own
        r'r = ~"(a)\\1"',  # a back-reference
    ],
)
def test_refused(rules: str) -> None:
    grammar = Grammar(rules)
    assert as_regex(fast_expr(grammar, grammar["r"])) is None


@pytest.mark.parametrize(
    "text",
    [
        'select {"a": $ `m n`, "b": event.`a b`. c, "c": x, "d": $} from in into out',
        "select [$m, $ # a comment\n n, event . a1_b, `l o`, lo] from `in` into out",
    ],
)
def test_text_rule_nodes_have_no_children_and_visit_the_same(text: str) -> None:
    expr = load_peg("query", "script").default_rule
    visitor = QueryVisitor(text)
    rules = visitor.text_rules()
    assert rules == {"ident", "local_root", "meta_root", "field_seg"}
    whole = fast_match(expr, text, visitor.collapsible(), rules)
    stack, found = [whole], []
    while stack:
        node = stack.pop()
        if node.expr_name in rules:
            found.append(node)
        stack.extend(node.children)
    assert {node.expr_name for node in found} == rules
    assert not any(node.children for node in found)
    plain = QueryVisitor(text).build(fast_match(expr, text))
    assert spanned(visitor.build(whole)) == spanned(plain)
