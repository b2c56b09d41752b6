"""Literal checks at compile time (compiler/passes/literal_checks.py): an extractor whose rule
names what does not exist is a compile error."""

from __future__ import annotations

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program
from compiler.source import Source


def _error(text: str, kind: str = "query") -> str:
    name = {"query": "t.trickle", "script": "t.tremor"}[kind]
    with pytest.raises(CompileError) as info:
        check_program(Source(name, text), kind)
    return info.value.render()


def test_unknown_grok_pattern_is_still_a_compile_error() -> None:
    text = "match event of case %{ a ~= grok |%{NOSUCHPATTERN:x}| } => 1 case _ => 0 end\n"
    assert "NOSUCHPATTERN" in _error(text, "script")
