"""Name resolution: rewrites and Tremor's semantic compile errors."""

from __future__ import annotations

import pytest

from compiler.ast import script as ast
from compiler.diagnostics import CompileError
from compiler.modules import load_modules
from compiler.parse.script import parse_script
from compiler.passes.resolve import resolve
from compiler.source import Source
from tests.support.paths import CONFORMANCE

ERRORS = CONFORMANCE / "script_errors"


def resolved(text: str) -> ast.Script:
    source = Source("t.tremor", text)
    return resolve(parse_script(source), source)


def message(text: str) -> str:
    source = Source("t.tremor", text)
    with pytest.raises(CompileError) as info:
        resolve(parse_script(source), source)
    return info.value.message


def test_std_call_gets_its_absolute_module() -> None:
    script = resolved('use std::string as s;\ns::len("x")')
    call = script.items[-1]
    assert isinstance(call, ast.Call) and call.module == ("std", "string")


def test_local_named_like_a_const_becomes_a_const_reference() -> None:
    script = resolved("const A = 1;\nA")
    path = script.items[-1]
    assert isinstance(path, ast.Path) and path.root == "const" and path.name == "A"


def test_local_before_const_definition_stays_local() -> None:
    script = resolved("A;\nconst A = 1")
    assert isinstance(script.items[0], ast.Path) and script.items[0].root == "local"


def test_semantic_errors() -> None:
    assert message("f(1)") == "Call to undefined function f"
    assert message("const A = 1;\nconst A = 2") == "Can't define the const `A` twice"
    assert message("fn a() with 1 end;\nfn a() with 2 end") == "Can't define the function `a` twice"
    assert message("fn a(x) with recur(x); x end") == "Can not recur from this location"
    assert message("recur(1)") == "Can not recur from this location"
    assert message("use std::string;\nstring::nope(1)") == "Call to undefined function string::nope"


def test_recur_in_tail_match_arm_is_fine() -> None:
    resolved("fn f(x) with match x of case 0 => 0 case _ => recur(x - 1) end end")


@pytest.mark.parametrize(
    "case",
    [
        "missing_function",
        "function_already_defined",
        "fn_bad_recur",
        "double_const",
        "error_in_include",
    ],
)
def test_corpus_errors_render_like_tremor(case: str) -> None:
    source = Source.from_path(ERRORS / case / "script.tremor")
    tree = parse_script(source)
    modules = load_modules(tree, source, mounts=[str(ERRORS / case) + "/"])
    with pytest.raises(CompileError) as info:
        resolve(tree, source, modules)
    assert info.value.render().strip() == (ERRORS / case / "error.txt").read_text().strip()
