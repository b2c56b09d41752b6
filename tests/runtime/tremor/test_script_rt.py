"""Assignments in a generated script's runtime (runtime_support/tremor/script_rt.py and paths.py):
``let`` through index segments runs as in Tremor; an expression path or an array segment as
target is Tremor's runtime error. The front end accepts Tremor's indexed expression paths."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program, compile_source
from compiler.source import Source
from compiler.testing.runner import run_job_on_lines


def _error(text: str, kind: str = "query") -> str:
    name = {"query": "t.trickle", "script": "t.tremor"}[kind]
    with pytest.raises(CompileError) as info:
        check_program(Source(name, text), kind)
    return info.value.render()


def _run(text: str, lines: list[str], name: str) -> list[tuple[str, Any]]:
    job = compile_source(Source("t.tremor", text), "script").job
    return run_job_on_lines(job, name, lines)


@pytest.mark.parametrize(
    "target",
    ['({"a": 1}).a', "[1, 2][0]", '{"a": 1}.a', 'string::lowercase("A")[0]', "(event).x[0:1]"],
)
def test_let_accepts_indexed_expression_paths(target: str) -> None:
    check_program(Source("t.tremor", f"use std::string;\nlet {target} = 1;\nevent\n"), "script")


def test_let_on_a_parenthesised_expression_without_segments_is_a_syntax_error() -> None:
    assert "Found the token `=`" in _error("let (event) = 1;\nevent\n", "script")


@pytest.mark.spark
def test_assignments_through_index_segments_run_as_in_tremor(spark: Any) -> None:
    text = (
        'let a = {"k": {}};\nlet a.k["x"] = 1;\nlet key = "y";\nlet event.x[key] = 2;\n'
        'let state = {"s": {}};\nlet state.s["z"] = 3;\n[a, event, state]\n'
    )
    got = _run(text, ['{"x": {"w": 0}}'], "front_let_ok")
    assert got == [("out", [{"k": {"x": 1}}, {"x": {"w": 0, "y": 2}}, {"s": {"z": 3}}])]


@pytest.mark.spark
def test_assignment_to_an_expression_path_is_a_runtime_error(spark: Any) -> None:
    [(port, value)] = _run('let ({"a": 1}).a = 2;\nevent\n', ["{}"], "front_let_expr")
    assert port == "err"
    assert value["error"] == (
        "Error: \n"
        '    1 | let ({"a": 1}).a = 2;\n'
        "      |     ^^^^^^^^^^^^^^^^ Can't assign to a constant expression\n"
        "    2 | event\n"
        "\n"
    )


@pytest.mark.spark
def test_literal_index_in_an_assignment_is_an_array_segment(spark: Any) -> None:
    """``[0]`` is Tremor's index segment (not the key ``0``): assigning into it fails."""
    got = _run('let a = {"k": 1};\nlet a[0] = 1;\na\n', ["{}"], "front_let_idx")
    [(port, value)] = got
    assert port == "err"
    assert "It is not supported to assign value into an array" in value["error"]
