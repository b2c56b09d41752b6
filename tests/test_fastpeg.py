"""Differential test of the fast parser (compiler/parse/fastpeg.py) against parsimonious: on every
corpus program, workload, example and library module, the same parse tree (expression, span and
children of every node) or the same failure, and the same AST from the fast visitor. The fast
matcher runs on the grammar's copy (compiler/parse/peg.py); a fast node's expression must be the
copy of the parsimonious node's, through the copy's map."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from parsimonious import NodeVisitor
from parsimonious.exceptions import ParseError
from parsimonious.nodes import Node, RegexNode

from compiler.grammar import load_grammar, load_peg
from compiler.parse import fastpeg, peg
from compiler.parse.deploy import _GRAMMAR as DEPLOY_GRAMMAR
from compiler.parse.deploy import DeployVisitor
from compiler.parse.fastpeg import fast_match, fast_visit
from compiler.parse.query import QueryVisitor
from compiler.parse.script import ScriptVisitor
from tests.support.ast_spans import spanned
from tests.support.paths import CONFORMANCE, ROOT, WORKLOADS

GRAMMARS = {
    ".tremor": (("script",), ScriptVisitor),
    ".trickle": (("query", "script"), QueryVisitor),
    ".troy": (DEPLOY_GRAMMAR, DeployVisitor),
}
FOLDERS = (
    CONFORMANCE,
    WORKLOADS,
    ROOT / "examples",
    ROOT / "benchmarks",
    ROOT / "compiler" / "lib",
)
PROGRAMS = sorted(
    path for folder in FOLDERS for suffix in GRAMMARS for path in folder.rglob(f"*{suffix}")
)


@pytest.fixture(autouse=True)
def whole_rules_on_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text rules are matched whole on long texts only; here on every plain one."""
    monkeypatch.setattr(fastpeg, "WHOLE_RULES_FROM", 0)


_COPIES: dict[int, tuple[Any, peg.Grammar, dict[int, peg.Expression]]] = {}


def copy_of(grammar: Any) -> tuple[peg.Grammar, dict[int, peg.Expression]]:
    """The fast matcher's copy of a parsimonious grammar and the map from the id of each of its
    expressions to the copy (kept with the grammar, so the ids stay its expressions')."""
    found = _COPIES.get(id(grammar))
    if found is None:
        memo: dict[int, peg.Expression] = {}
        found = _COPIES[id(grammar)] = (grammar, peg.from_parsimonious(grammar, memo), memo)
    return found[1], found[2]


def fast_expr(grammar: Any, expr: Any) -> peg.Expression:
    """The copy of ``expr``, an expression of the parsimonious ``grammar``."""
    return copy_of(grammar)[1][id(expr)]


def same_tree(left: peg.Node, right: Node, grammar: Any) -> bool:
    """The fast tree ``left`` is parsimonious' tree ``right`` of ``grammar``: at every node the
    copy of its expression, the same kind of node, span and children (a regex node's match is
    its span; the fast tree keeps no match object)."""
    copies = copy_of(grammar)[1]
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if copies.get(id(b.expr)) is not a.expr or type(a).__name__ != type(b).__name__:
            return False
        if (a.start, a.end, len(a.children)) != (b.start, b.end, len(b.children)):
            return False
        if isinstance(b, RegexNode) and b.match.group() != a.text:
            return False
        stack.extend(zip(a.children, b.children, strict=True))
    return True


def slow_match(expr, text: str) -> Node | None:
    node = expr.match_core(text, 0, defaultdict(dict), ParseError(text))
    return node if node is not None and node.end == len(text) else None


def test_the_corpus_is_found() -> None:
    assert len(PROGRAMS) > 300


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_fast_parse_matches_parsimonious(path: Path) -> None:
    names, visitor = GRAMMARS[path.suffix]
    grammar = load_grammar(*names)
    text = path.read_text()
    rules = [grammar.default_rule]
    if path.suffix == ".troy":
        rules.append(grammar["module_file"])
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20_000))
    try:
        for slow_expr in rules:
            expr = fast_expr(grammar, slow_expr)
            fast, slow = fast_match(expr, text), slow_match(slow_expr, text)
            assert (fast is None) == (slow is None)
            if fast is not None:
                assert same_tree(fast, slow, grammar)
                ast = NodeVisitor.visit(visitor(text), slow)
                assert fast_visit(visitor(text), fast) == ast
                collapsed = fast_match(expr, text, visitor(text).collapsible())
                assert fast_visit(visitor(text), collapsed) == ast
                shown = visitor(text)
                whole = fast_match(expr, text, shown.collapsible(), shown.text_rules())
                assert spanned(fast_visit(visitor(text), whole)) == spanned(ast)
    finally:
        sys.setrecursionlimit(old_limit)


@pytest.mark.parametrize(
    "text",
    [
        "let a = ",
        "let x = 1 +",
        "event.a.",
        '"abc',
        "match event of case 1 => end",
        "",
        " ",
        "let ünï = 1; ünï",  # beyond ASCII: parsimonious' regex engine
        "let a\u00b2 = 1",
        "let x = 1;\x1c x",  # a separator \s of re but not of regex
        'let x = "a\x1fb"; x',
    ],
)
def test_fast_parse_agrees_on_edge_texts(text: str) -> None:
    grammar = load_grammar("script")
    expr = grammar.default_rule
    fast, slow = fast_match(fast_expr(grammar, expr), text), slow_match(expr, text)
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert same_tree(fast, slow, grammar)


def test_collapsing_skips_the_levels_of_an_operand_without_operators() -> None:
    """``1 + x`` has one ``expr_add`` node (with its operator); the nine other binary levels,
    the unary wrappers and the primaries of the two operands are not built."""
    text = "1 + x"
    expr = load_peg("script").default_rule
    visitor = ScriptVisitor(text)
    full, collapsed = fast_match(expr, text), fast_match(expr, text, visitor.collapsible())
    assert count_names(full)["expr_or"] == 1 and count_names(full)["primary"] == 2
    names = count_names(collapsed)
    assert names["expr_add"] == 1
    assert not names.keys() & {"expr_or", "expr_mul", "expr_unary", "primary", "primary_base"}
    assert fast_visit(ScriptVisitor(text), collapsed) == fast_visit(ScriptVisitor(text), full)


def test_a_visitor_of_its_own_keeps_the_rule() -> None:
    """A subclass that visits a rule its own way (or folds operators its own way) takes those
    rules out of ``collapsible``: its method must see their nodes."""

    class Adds(ScriptVisitor):
        def visit_expr_add(self, node, children):  # noqa: ANN001, ANN201 - a test double
            return children

    class Folds(ScriptVisitor):
        def fold_binary(self, children):  # noqa: ANN001, ANN201 - a test double
            return children[0]

    assert "expr_add" in ScriptVisitor("").collapsible()
    assert "expr_add" not in Adds("").collapsible() and "expr_mul" in Adds("").collapsible()
    assert not Folds("").collapsible() & {"expr_or", "expr_add", "expr_mul"}
    assert "primary" in Folds("").collapsible()


def count_names(root: Node) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    stack = [root]
    while stack:
        node = stack.pop()
        counts[node.expr.name] += 1
        stack.extend(node.children)
    return counts


def test_first_characters_are_known_only_where_certain() -> None:
    """The operator guard of a precedence level skips the operator's matcher only on a
    character that no match can start with."""
    from parsimonious import Grammar

    from compiler.parse.fastpeg import _first_chars

    grammar = Grammar(r"""
        ops = "==" / "!=" / ("<" !"<")
        kw = ~r"or(?!\w)"
        starry = ~r"a*b"
        either = ~r"x|y"
        loose = ~r"and"i
        maybe = "a"?
        """)
    rules = copy_of(grammar)[0]
    assert _first_chars(rules["ops"], set()) == {"=", "!", "<"}
    assert _first_chars(rules["kw"], set()) == {"o"}
    for name in ("starry", "either", "loose", "maybe"):
        assert _first_chars(rules[name], set()) is None, name


def test_nested_backtracking_falls_back_to_the_memoised_run() -> None:
    """``e[e[e[…]]]`` tries a range segment, then an index segment, at every level: without
    memos on compound rules that is exponential, so the light run exceeds its re-parse budget
    and the fully memoised run gives parsimonious' tree. A corpus program stays in budget."""
    grammar = load_grammar("script")
    slow_expr = grammar.default_rule
    expr = fast_expr(grammar, slow_expr)
    depth = 40
    text = "let x = event" + "[event" * depth + "]" * depth + ";\nx"
    budget = fastpeg.REPARSE_BUDGET * len(text) + 4096
    with pytest.raises(fastpeg._OverBudget):
        fastpeg._run(expr, text, frozenset(), frozenset(), budget)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20_000))
    try:
        assert same_tree(fast_match(expr, text), slow_match(slow_expr, text), grammar)
    finally:
        sys.setrecursionlimit(old_limit)
    plain = (CONFORMANCE / "scripts" / "array_paths" / "script.tremor").read_text()
    light = fastpeg._run(
        expr, plain, frozenset(), frozenset(), fastpeg.REPARSE_BUDGET * len(plain) + 4096
    )
    assert light is not None and same_tree(light, slow_match(slow_expr, plain), grammar)
