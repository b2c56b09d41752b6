"""The grammar cache (compiler/grammar): a grammar loaded from the pickle parses as the one built
from the ``.ppeg`` text (the parsimonious grammar and the fast matcher's copy, each in its own
file), the copy loads without parsimonious, a damaged cache file is rebuilt, and nothing is
written when Python writes no bytecode."""

from __future__ import annotations

import subprocess
import sys

import pytest
from parsimonious import Grammar

from compiler import grammar
from compiler.parse import peg
from compiler.parse.query import parse_query
from compiler.source import Source
from tests.support.paths import CONFORMANCE, ROOT

PROGRAMS = sorted((CONFORMANCE / "queries").glob("*/query.trickle"))[:25]


@pytest.fixture
def prefix(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    grammar.load_grammar.cache_clear()
    grammar.load_peg.cache_clear()
    yield tmp_path / "tremorc-grammar"
    grammar.load_grammar.cache_clear()
    grammar.load_peg.cache_clear()


def asts() -> list[str]:
    return [repr(parse_query(Source(str(p), p.read_text()))) for p in PROGRAMS]


def test_pickled_grammar_parses_as_the_built_one(prefix) -> None:
    built = asts()  # builds and writes the cache
    files = sorted(p.name.split(".")[::2] for p in prefix.iterdir())
    assert files == [["query+script", "grammar"], ["query+script", "peg"]]
    grammar.load_grammar.cache_clear()
    grammar.load_peg.cache_clear()
    loaded = grammar.load_grammar("query", "script")
    assert loaded.default_rule.name == "query"
    assert grammar.load_peg("query", "script").default_rule.name == "query"
    assert asts() == built


def test_the_cached_copy_loads_without_parsimonious(prefix) -> None:
    grammar.load_peg("script")
    code = (
        "import sys; from compiler.grammar import load_peg; "
        "rules = load_peg('script'); assert rules.default_rule.name == 'script'; "
        "print(sorted({'parsimonious', 'regex'} & set(sys.modules)))"
    )
    env = {"PYTHONPYCACHEPREFIX": str(prefix.parent), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_copy_is_the_grammar_node_for_node() -> None:
    """Every rule's copy has its rule's kind, name and attributes, and shares as it shares."""
    slow = grammar.load_grammar("query", "script")
    memo: dict[int, peg.Expression] = {}
    fast = peg.from_parsimonious(slow, memo)
    assert list(fast) == list(slow) and fast.default_rule is memo[id(slow.default_rule)]
    for name, expr in slow.items():
        assert fast[name] is memo[id(expr)]
    reachable = {id(expr): expr for expr in _reachable(slow)}
    assert reachable.keys() == memo.keys()
    for key, copy in memo.items():
        original = reachable[key]
        assert type(copy).__name__ == type(original).__name__ and copy.name == original.name
        if isinstance(copy, peg.Regex):
            assert (copy.pattern, copy.flags) == (original.re.pattern, original.re.flags)
            assert copy.re.pattern == original.re.pattern
        if isinstance(copy, peg.Compound):
            assert copy.members == [memo[id(m)] for m in original.members]


def _reachable(slow: Grammar) -> list[object]:
    seen: dict[int, object] = {}
    stack = list(slow.values())
    while stack:
        expr = stack.pop()
        if id(expr) not in seen:
            seen[id(expr)] = expr
            stack.extend(getattr(expr, "members", ()))
    return list(seen.values())


def test_damaged_cache_is_rebuilt(prefix) -> None:
    grammar.load_grammar("script")
    (path,) = prefix.iterdir()
    path.write_bytes(b"not a pickle")
    grammar.load_grammar.cache_clear()
    assert grammar.load_grammar("script").default_rule.name == "script"


def test_no_cache_without_bytecode(prefix, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    grammar.load_grammar("script")
    assert not prefix.exists()


@pytest.mark.parametrize("names", [("script",), ("query", "script"), ("deploy", "query", "script")])
def test_fast_build_is_parsimonious_build(names) -> None:
    """build_grammar gives the rules, default rule and rule text of ``Grammar(text)``."""
    text = grammar.grammar_text(*names)
    fast, slow = grammar.build_grammar(text), Grammar(text)
    assert type(fast) is type(slow)
    assert list(fast) == list(slow)
    assert [e.as_rule() for e in fast.values()] == [e.as_rule() for e in slow.values()]
    assert fast.default_rule.name == slow.default_rule.name
    assert str(fast) == str(slow)


def test_rule_text_errors_are_parsimonious_own() -> None:
    with pytest.raises(Exception) as fast:
        grammar.build_grammar("a = (b")
    with pytest.raises(Exception) as slow:
        Grammar("a = (b")
    assert type(fast.value) is type(slow.value) and str(fast.value) == str(slow.value)
