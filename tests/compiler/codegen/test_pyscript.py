"""Behaviour of the tremor-script → Python backend on small scripts (expected values are
Tremor's documented semantics, TREMOR.md §1)."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.ast import script as ast
from compiler.codegen.names import Names
from compiler.codegen.pyscript import generate_script
from compiler.parse.script import parse_script
from compiler.passes.resolve import resolve
from compiler.source import Source
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.script_rt import render_error


def build(text: str) -> tuple[Any, Any, Source]:
    source = Source("test.tremor", text)
    script = resolve(parse_script(source), source)
    gen = generate_script(script, source)
    namespace: dict[str, Any] = {}
    for spec in gen.imports:
        module, name = spec.split(":")
        namespace[name] = getattr(__import__(module, fromlist=[name]), name)
    exec(gen.code, namespace)  # noqa: S102
    return namespace[gen.entry], gen, source


def run(text: str, *events: Any, meta: Any = None) -> list[tuple[Any, Any]]:
    entry, _, _ = build(text)
    state = None
    out = []
    for i, event in enumerate(events):
        port, value, _meta, state = entry(
            event, {} if meta is None else meta, state, EventContext(ingest_ns=i)
        )
        out.append((port, value))
    return out


def error(text: str, event: Any = None) -> str:
    entry, gen, source = build(text)
    with pytest.raises(TremorError) as info:
        entry(event, {}, None, EventContext())
    return render_error(info.value, source.text, gen.sites)


def test_last_expression_is_the_output() -> None:
    assert run("1 + 2", {}) == [("out", 3)]


def test_bare_event_emits_the_mutated_event() -> None:
    assert run("let event.a = 1;\nevent", {"b": 2}) == [("out", {"b": 2, "a": 1})]


def test_trailing_let_yields_the_assigned_value() -> None:
    assert run("let event.x = 41 + 1", {}) == [("out", 42)]


def test_only_functions_yield_the_event() -> None:
    assert run("fn f(x) with x end", {"e": 1}) == [("out", {"e": 1})]


def test_trailing_const_yields_its_value() -> None:
    assert run('const THIS = "that"', {}) == [("out", "that")]


def test_non_final_pure_expressions_are_not_evaluated() -> None:
    assert run("event.missing;\n1", {}) == [("out", 1)]


def test_emit_port_and_drop_stop_the_script() -> None:
    assert run('emit 7 => "p";\n1', {}) == [("p", 7)]
    assert run("drop;\n1", {}) == [(None, None)]
    text = "match event of case 1 => drop case _ => emit event end;\n2"
    assert run(text, 1, 3) == [(None, None), ("out", 3)]


def test_state_persists_across_events() -> None:
    text = "let state = match state of case null => 1 case _ => state + 1 end;\nstate"
    assert [v for _, v in run(text, {}, {}, {})] == [1, 2, 3]


def test_assignment_copies_instead_of_aliasing() -> None:
    text = "let a = event;\nlet a.x = 1;\n[a, event]"
    assert run(text, {"y": 2}) == [("out", [{"y": 2, "x": 1}, {"y": 2}])]


def test_assign_pattern_binding_is_clause_scoped() -> None:
    text = "let a = 1;\nlet b = match 5 of case a = _ => a end;\n[a, b]"
    assert run(text, {}) == [("out", [1, 5])]


def test_for_key_value_names_are_clause_scoped_but_lets_are_not() -> None:
    text = 'let k = "outer";\nfor [1, 2] of case (k, v) => let last = v end;\n[k, last]'
    assert run(text, {}) == [("out", ["outer", 2])]


def test_for_filters_and_folds() -> None:
    text = "for event of case (k, v) when v > 1 => v * 10 end"
    assert run(text, [1, 2, 3]) == [("out", [20, 30])]
    fold = "for event of case (k, v) => v into 0 use + end"
    assert run(fold, [1, 2, 3]) == [("out", 6)]
    assert run("for 7 of case (k, v) => v into 5 end", {}) == [("out", 5)]


def test_functions_recur_and_varargs() -> None:
    text = (
        "fn fib_(a, b, n) of\n  case (a, b, n) when n > 0 => recur(b, a + b, n - 1)\n"
        "  case _ => a\nend;\nfn fib(n) with fib_(0, 1, n) end;\n"
        "fn all(...) with args end;\n[fib(event), all(1, 2)]"
    )
    assert run(text, 10) == [("out", [55, [1, 2]])]


def test_functions_see_null_event_and_state() -> None:
    assert run("fn f() with [event, state] end;\nf()", {"a": 1}) == [("out", [None, None])]


def test_record_array_and_tuple_patterns() -> None:
    text = (
        "match event of\n"
        "  case r = %{ a == 1, present b, absent c } => r\n"
        "  case t = %( 1, _, ... ) => t\n"
        "  case x = %[ 2, 3 ] => x\n"
        "  case _ => null\nend"
    )
    out = run(text, {"a": 1, "b": [1], "d": 4}, [1, 9, 9], [3, 2, 3], 5)
    # comparisons and absent add nothing to the bound record (TREMOR.md §1.7)
    assert [v for _, v in out] == [{"b": [1]}, [1, 9], [[1, 2], [0, 3], [2, 3]], None]


def test_no_matching_clause_is_a_runtime_error() -> None:
    assert error("match event of case 1 => 2 end", 3).endswith(
        "A match expression executed but no clause matched"
    )


def test_missing_local_error_is_rendered_with_its_span() -> None:
    assert error("let a = 1;\nb") == (
        "Error: \n    2 | b\n      | ^ Trying to access a non existing local key `b`"
    )


def test_guard_must_be_bool() -> None:
    with pytest.raises(TremorError):
        run("match 1 of case 1 when 1 => 2 case _ => 3 end", {})


def test_string_interpolation_and_patch() -> None:
    text = 'let x = patch {"a": 1} of insert "b" => "#{event}!" end;\nx'
    assert run(text, [1]) == [("out", {"a": 1, "b": "[1]!"})]


def test_generation_is_deterministic_and_has_line_comments() -> None:
    text = 'use std::string;\nlet a = string::len("x");\nmatch a of case 1 => "one" case _ => a end'
    source = Source("t.tremor", text)
    first = generate_script(resolve(parse_script(source), source), source)
    second = generate_script(resolve(parse_script(source), source), source)
    assert first == second
    assert "# line 2" in first.code and "# line 3" in first.code
    assert "script_std_string_len = lookup('std::string::len')" in first.code
    assert "import" not in first.code


def test_user_strings_only_through_repr() -> None:
    text = 'let `a"b` = "x\'); import os; (\'";\n`a"b`'
    entry, gen, _ = build(text)
    assert entry({}, {}, None, EventContext())[1] == "x'); import os; ('"
    assert "import os" not in gen.code.replace(repr("x'); import os; ('"), "")


def test_names_are_unique_and_valid() -> None:
    names = Names()
    made = {names.get("local", (n,)) for n in ("a", "a b", "a_b", "class", "é")}
    assert len(made) == 5 and all(m.isidentifier() for m in made)


def test_hand_built_ast() -> None:
    script = ast.Script(
        items=(ast.Binary(op="*", left=ast.Literal(value=6), right=ast.Literal(value=7)),)
    )
    gen = generate_script(script, Source("t", ""))
    namespace: dict[str, Any] = {}
    for spec in gen.imports:
        module, name = spec.split(":")
        namespace[name] = getattr(__import__(module, fromlist=[name]), name)
    exec(gen.code, namespace)  # noqa: S102
    assert namespace[gen.entry](None, {}, None, EventContext())[1] == 42


def test_prefix_scopes_every_module_level_name() -> None:
    text = (
        'fn f() with 1 end;\nconst C = 2;\nmatch "a" of case ~ glob|a*| => f() + C case _ => 0 end'
    )
    source = Source("t.tremor", text)
    gen = generate_script(resolve(parse_script(source), source), source, prefix="q1")
    tops = [ln.removeprefix("def ") for ln in gen.code.splitlines() if ln and not ln[0].isspace()]
    names = [ln.split("(")[0].split(" ")[0] for ln in tops]
    assert gen.entry == "q1_run"
    assert len(names) == 4 and all(n.startswith(("q1_", "_init_q1_")) for n in names), names
