"""The grammar cache (compiler/grammar): a grammar loaded from the pickle parses as the one built
from the ``.ppeg`` text, a damaged cache file is rebuilt, and nothing is written when Python
writes no bytecode."""

from __future__ import annotations

import sys

import pytest

from compiler import grammar
from compiler.parse.query import parse_query
from compiler.source import Source
from tests.paths import CONFORMANCE

PROGRAMS = sorted((CONFORMANCE / "queries").glob("*/query.trickle"))[:25]


@pytest.fixture
def prefix(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    grammar.load_grammar.cache_clear()
    yield tmp_path / "tremorc-grammar"
    grammar.load_grammar.cache_clear()


def asts() -> list[str]:
    return [repr(parse_query(Source(str(p), p.read_text()))) for p in PROGRAMS]


def test_pickled_grammar_parses_as_the_built_one(prefix) -> None:
    built = asts()  # builds and writes the cache
    assert [p.name.split(".")[0] for p in prefix.iterdir()] == ["query+script"]
    grammar.load_grammar.cache_clear()
    loaded = grammar.load_grammar("query", "script")
    assert loaded.default_rule.name == "query"
    assert asts() == built


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
    fast, slow = grammar.build_grammar(text), grammar.Grammar(text)
    assert type(fast) is type(slow)
    assert list(fast) == list(slow)
    assert [e.as_rule() for e in fast.values()] == [e.as_rule() for e in slow.values()]
    assert fast.default_rule.name == slow.default_rule.name
    assert str(fast) == str(slow)


def test_rule_text_errors_are_parsimonious_own() -> None:
    with pytest.raises(Exception) as fast:
        grammar.build_grammar("a = (b")
    with pytest.raises(Exception) as slow:
        grammar.Grammar("a = (b")
    assert type(fast.value) is type(slow.value) and str(fast.value) == str(slow.value)
