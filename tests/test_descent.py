"""Differential test of the descent parser (compiler/parse/descent/) against the grammar: on
every corpus program, workload, example and library module, and on cut-off and edited copies of
them, the fast matcher with the descent parser answering gives the same AST, spans included, as
the grammar alone, or fails where the grammar fails. Other tests check that it answers at all."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.grammar import load_peg
from compiler.parse import descent, fastpeg
from compiler.parse.descent import Descent, Fail, Unsupported
from compiler.parse.fastpeg import fast_match, fast_visit
from compiler.parse.query import QueryVisitor
from compiler.parse.script import ScriptVisitor
from tests.support.ast_spans import spanned
from tests.test_fastpeg import GRAMMARS, PROGRAMS


def parse(path_suffix: str, text: str, answered: bool, rule: str | None = None) -> Any:
    """The visited AST of ``text`` (None when it does not parse), with or without answers."""
    names, visitor_class = GRAMMARS[path_suffix]
    rules = load_peg(*names)
    expr = rules.default_rule if rule is None else rules[rule]
    visitor = visitor_class(text)
    answers = visitor.answers() if answered else None
    node = fast_match(expr, text, visitor.collapsible(), visitor.text_rules(), answers)
    return None if node is None else spanned(fast_visit(visitor, node))


def agree(suffix: str, text: str, rule: str | None = None) -> None:
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20_000))
    try:
        assert parse(suffix, text, True, rule) == parse(suffix, text, False, rule)
    finally:
        sys.setrecursionlimit(old_limit)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_same_ast_as_the_grammar(path: Path) -> None:
    text = path.read_text()
    agree(path.suffix, text)
    if path.suffix == ".troy":
        agree(path.suffix, text, "module_file")


@pytest.mark.parametrize("path", PROGRAMS[::3], ids=lambda p: str(p.relative_to(p.parents[2])))
def test_same_failures_and_asts_on_edited_texts(path: Path) -> None:
    """Cut-off texts, and texts with one character deleted or doubled: where the descent
    parser's ``Fail`` is wrong (the grammar would have matched), the two disagree."""
    text = path.read_text()
    pick = random.Random(path.name)
    for _ in range(6):
        at = pick.randrange(len(text) + 1)
        agree(path.suffix, text[:at])
        agree(path.suffix, text[:at] + text[at + 1 :])
        agree(path.suffix, text[:at] + text[at : at + 1] * 2 + text[at + 1 :])


EDGE_SCRIPTS = [
    "let a = 1; a",
    "let a = 1;",
    "emit",
    'emit => "out"',
    'emit event => "out"',
    "emit;drop",
    "drop",
    "1 + 2 * 3 - 4 / 5 % 6",
    "a and b or c xor d",
    "1 << 2 >> 3 >>> 4 & 5 ^ 6 | 7",
    "a < b <= c > d >= e == f != g",
    "- - 1",
    "!a",
    "not not a",
    "!-1",
    "!= 1",
    "present event.a; absent $b.c",
    "event.a[1][2:3].b",
    "event [ 1 ]",
    "event\n.\nb",
    "event.",
    "event.end",
    "$",
    "$ a . b",
    "$`a b`",
    "`x`",
    "a::b",
    "a::b::c(1, 2,)",
    "a::b(",
    "a::",
    "f()",
    "f ( 1 , )",
    "f(,)",
    "recur()",
    "recur(1, 2)",
    '"abc"',
    '""',
    '"a#{1 + 2}b#c\\n\\u00e9\\u0041"',
    '"#{ "x#{1}" }"',
    '"abc',
    '"a\nb"',
    '"""\nheredoc\n"""',
    "<<1:8, 2/signed>>",
    "{}",
    '{"a": 1, "b": {"c": [1, 2,],},}',
    '{"a" 1}',
    "[]",
    "[1, [2, [3]], ]",
    "(1 + 2) * 3",
    "(a).b",
    "((a))",
    '{"a": 1}["a"]',
    "[1,2][0:1]",
    "1.5 + 1_000 + 0xff + 1.0e5 + 1.foo",
    "null; true; false",
    "let event.a = 1",
    "let $a = 1",
    "let (a)[1] = 1",
    "let a == 1",
    "let a => 1",
    'patch event of insert "a" => 1; upsert "b" => 2; update "c" => 3; erase "d"; '
    'merge "e" => {}; merge => {}; default "f" => 1; default => {}; move "g" => "h"; '
    'copy "i" => "j"; end',
    'patch event of insert "a" => 1; end',
    "patch event of end",
    'patch event of insert "a" => 1',
    "merge event of {} end",
    "match event of case 1 => 2 case _ => 3 end",
    "match event of case %{} => 1 end",
    "match event of case %{a == 1, present b, absent c, d ~= glob|*x|, e = f ~= re|\\|a|, "
    "g ~= %{h > 1}, i ~= %[1], j ~= %(1, ...)} => 1 end",
    "match event of case %[1, _, a = %{}, ] => 1 case %[] => 2 end",
    "match event of case %(1, 2) => 1 case %(...) => 2 case %(1, ...) => 3 case %(1,) => 4 "
    "case %() => 5 end",
    "match event of case x = %{} => x case y = 1 => y end",
    "match event of case ~ json|| => 1 end",
    "match event of case 1 when a > 1 => 2 ; 3 ; case _ => 4; end",
    "match event of case 1 => let a = 1; a case _ => drop end",
    "match event of case 1 => 1, 2 case _ => 3 end",
    "let a = match event of case 1 => 1 end; a",
    "match event of case 1 => 1 end.a",
    "for event of case (k, v) => v end",
    "for event of case (k, v) when k == 1 => let a = v; a into [] use + end",
    "for event of case (k, v) => v into {} end",
    "[for event of case (k, v) => v, k end]",
    "for event of case (k, v) => v into 0 use and end",
    "use std::string; use std::{array, record as r,}; use a::b as c; 1",
    "use std::{a, b::{c, d}}",
    "const A = 1; A",
    "## doc\nconst A = 1;",
    "fn f(a) with a end; f(1)",
    "fn f(a) of case (1) => 1 default => 2 end",
    "intrinsic fn f(a) as a::f",
    '"""\n  a "b" ""c#{1}#d\\n\n  """',
    '"""  \r\nx"""',
    '"""x"""',
    "<<>>",
    '<<1, 2:4, 3/signed-big, 4:16/unsigned-little, event.a:8, (1 + 2), "ab"/binary>>',
    "<<1:0x8>>",
    "<<1:1.5>>",
    "<<-1>>",
    "<<1,>>",
    "fn f(a, b) with a + b end; f(1, 2)",
    "fn f(a, ...) with args end",
    "fn f(...) with 1; 2; end",
    "fn f() of case (0) => 0 case (a, b) when a > b => a case (a, ...) => recur(a) "
    "default => 1 end",
    "fn f(a) of case _ => 1 end",
    "fn f(a) of _ => 1 end",
    "fn f(a) of end",
    "## f\n## g\nfn f(a) with a end",
    "intrinsic fn len(s) as string::len",
    "intrinsic fn f(...) as a::b::c",
    "a # comment\n + b",
    "a #!config x = 1",
    "a;;b",
    ";",
    "case",
    "end",
    "1 2",
    "let a = 1 let b = 2",
    "group; window; args.a; state.b",
]


@pytest.mark.parametrize("text", EDGE_SCRIPTS)
def test_same_ast_on_edge_scripts(text: str) -> None:
    agree(".tremor", text)


BINARY_OPS = "or xor and ^ & == != < <= > >= << >> >>> + - * / %".split()


def test_same_precedence_and_associativity_as_the_grammar() -> None:
    """Every pair of binary operators, both ways round, with unary operators between."""
    for first in BINARY_OPS:
        for second in BINARY_OPS:
            agree(".tremor", f"a {first} b {second} c")
            agree(".tremor", f"-a {first} not b {second} !c {first} d")


EDGE_QUERIES = [
    "select event from in into out;",
    "select event.a + 1 from in[w1, w2] where event.b > 1 group by set(each(event.c), event.d)"
    " into out having event.e;",
    "define script s script let a = 1; emit a end; create script s; select event from in into s;",
    "define script s script a; end;",
    "define script s args a = 1 state 0 script from tick 1 script 2 end;",
    "define window w from tumbling with interval = 1 script let state = 1 end;",
    "define operator o from grouper::bucket with a = 1, end;",
    'select {"a": 1} from in into out',
    "select match event of case 1 => 1 case _ => 2 end from in into out;",
]


@pytest.mark.parametrize("text", EDGE_QUERIES)
def test_same_ast_on_edge_queries(text: str) -> None:
    agree(".trickle", text)


def answers(text: str, method: str = "script_items") -> Any:
    return getattr(Descent(text, lambda _: None), method)(0)


def test_it_answers_the_workloads_constructs() -> None:
    """The constructs of the benchmark workloads are answered, not left to the grammar."""
    text = (
        'use std::array; match event of case %{a == "x"} => let $c = 1; emit event '
        "case %{present b, c ~= glob|x*|} when b > 1 => drop "
        'case _ => let event = patch event of insert "d" => [1, {"e": 2.5}] end; '
        'emit merge event of {} end => "out" end'
    )
    items, end = answers(text)
    assert end == len(text) and len(items) == 2
    query = "select event from in into out;"
    assert QueryVisitor(query).answers().keys() == set(descent.RULES)


def test_it_fails_only_where_the_grammar_surely_fails() -> None:
    for text in ("", "end", ")", ";", "case", "%{", "_x", "=> 1"):
        with pytest.raises(Fail):
            answers(text)
        with pytest.raises(Fail):
            answers(text, "expr_imut")
    for text in ("let (a)[1] = 1", '"a\nb"'):
        with pytest.raises(Unsupported):
            answers(text)


def test_a_visitor_of_its_own_gets_no_answers() -> None:
    class Paths(ScriptVisitor):
        def visit_path(self, node, children):  # noqa: ANN001, ANN201 - a test double
            return children

    class Folds(ScriptVisitor):
        def fold_binary(self, children):  # noqa: ANN001, ANN201 - a test double
            return children[0]

    assert ScriptVisitor("").answers() and QueryVisitor("").answers()
    assert not Paths("").answers() and not Folds("").answers()


def test_beyond_ascii_the_grammar_parses_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off plain ASCII the matcher runs parsimonious' regex engine, and no answers."""

    def refuse(self: Descent, pos: int) -> Any:
        raise AssertionError("asked off plain ASCII")

    monkeypatch.setattr(Descent, "script_items", refuse)
    monkeypatch.setattr(Descent, "expr_imut", refuse)
    assert parse(".tremor", "let ünï = 1; ünï", True) is not None


def test_declines_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the parser left rules to the grammar too often, it is not asked again."""
    asked = []

    def decline(self: Descent, pos: int) -> Any:
        asked.append(pos)
        raise Unsupported

    monkeypatch.setattr(Descent, "expr_imut", decline)
    monkeypatch.setattr(Descent, "script_items", decline)
    monkeypatch.setattr(fastpeg, "ANSWER_DECLINES", 3)
    text = "[" + ", ".join(["1"] * 50) + "]"
    assert parse(".tremor", text, True) == parse(".tremor", text, False)
    assert len(asked) == 3


# Token soup over the characters and words where the two parsers could part ways: every
# operator character, brackets, quotes, comments and the keywords that start or end a rule.
TOKENS = st.sampled_from(
    list('ab1_ \n"#{}()[]<>|`\\$.,;:=!~%+-*/&^')
    + ["let ", "match ", " of ", " case ", " end", "=>", '"""\n', "#{", "for ", "emit ", "%{"]
    + [" and ", " or ", " not ", "present ", "patch ", "merge ", "fn ", "use ", "<<", ">>"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(TOKENS, max_size=40).map("".join))
def test_same_result_on_token_soup(text: str) -> None:
    agree(".tremor", text)


CORPUS_TEXTS = [p.read_text() for p in PROGRAMS if p.suffix == ".tremor"][:80]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(CORPUS_TEXTS),
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=0, max_value=3),
    st.lists(TOKENS, max_size=3).map("".join),
)
def test_same_result_on_mutated_programs(text: str, at: int, cut: int, insert: str) -> None:
    pos = at % (len(text) + 1)
    agree(".tremor", text[:pos] + insert + text[pos + cut :])
