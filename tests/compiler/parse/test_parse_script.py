"""Parser: every conformance script parses; lexical/parse errors match Tremor's caret lines;
module loading errors match word for word; AST shapes for precedence and syntax forms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.ast import script as ast
from compiler.diagnostics import CompileError
from compiler.modules import load_modules
from compiler.parse.script import parse_script
from compiler.source import Source
from tests.support.paths import CONFORMANCE

CONF = CONFORMANCE
GOOD = sorted(
    [
        p
        for sub in ("scripts", "script_runtime_errors", "script_warnings")
        for p in (CONF / sub).glob("*/**/*.tremor")
    ]
    + list((CONF / "stdlib").glob("*.tremor"))
)
ERRORS = sorted(p.parent for p in (CONF / "script_errors").glob("*/error.txt"))
# Semantic errors belong to later passes: the parser must accept these files.
SEMANTIC = {
    "add_overflow",
    "arith_bad_shift_1",
    "bin_invalid_bits",
    "bin_invalid_type",
    "const_expr_index_into_int",
    "const_expr_index_out_of_bounds",
    "const_expr_range_bad_start",
    "double_const",
    "error_in_include",
    "fn_bad_recur",
    "function_already_defined",
    "function_error_1",
    "function_error_n",
    "invalid_const_binary",
    "invalid_const_unary",
    "invalid_extractor",
    "missing_function",
    "mul_overflow",
    "script_without_newline",
    "unknown_extractor",
}
MODULE_ERRORS = {"pp_cyclic", "pp_nest_cyclic", "pp_mod_not_found"}


def carets(text: str) -> list[str]:
    return [
        line.rstrip() for line in text.split("\n") if line.startswith("      |") and "^" in line
    ]


def parse(text: str) -> ast.Script:
    return parse_script(Source("t.tremor", text))


def only(text: str) -> object:
    items = parse(text).items
    assert len(items) == 1
    return items[0]


@pytest.mark.parametrize("path", GOOD, ids=lambda p: str(p.relative_to(CONF)))
def test_corpus_parses(path: Path) -> None:
    assert isinstance(parse_script(Source.from_path(path)), ast.Script)


@pytest.mark.parametrize("case", [c for c in ERRORS if c.name in SEMANTIC], ids=lambda c: c.name)
def test_semantic_error_cases_parse(case: Path) -> None:
    parse_script(Source.from_path(case / "script.tremor"))


@pytest.mark.parametrize(
    "case", [c for c in ERRORS if c.name not in SEMANTIC | MODULE_ERRORS], ids=lambda c: c.name
)
def test_syntax_error_caret_line(case: Path) -> None:
    with pytest.raises(CompileError) as info:
        parse_script(Source.from_path(case / "script.tremor"))
    expected = (case / "error.txt").read_text()
    assert carets(info.value.render()) == carets(expected)


@pytest.mark.parametrize("name", sorted(MODULE_ERRORS))
def test_module_errors_word_for_word(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tremor's harness ran from the repo root with the case dir and tremor-script/lib mounted.
    monkeypatch.chdir(CONF / "script_errors" / "..")
    rel = Path("script_errors") / name
    src = Source.from_path(rel / "script.tremor")
    with pytest.raises(CompileError) as info:
        load_modules(
            parse_script(src), src, mounts=[os.path.join(str(rel), ""), "tremor-script/lib"]
        )
    got = info.value.render().strip().replace("script_errors/", "tests/script_errors/")
    assert got == (rel / "error.txt").read_text().strip()


def test_modules_loaded_dependencies_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CONF / "scripts")
    src = Source.from_path(Path("pp_nest3/script.tremor"))
    mods = load_modules(parse_script(src), src, mounts=["pp_nest3/"])
    assert list(mods) == [("foo7", "bar", "baz", "mork")]
    assert mods[("foo7", "bar", "baz", "mork")].tree.items


def test_std_modules_are_builtin() -> None:
    src = Source("t.tremor", "use std::string; use tremor::system; 1")
    assert load_modules(parse_script(src), src, mounts=["/nonexistent/"]) == {}


def test_precedence_bit_ops_looser_than_equality() -> None:
    e = only("a ^ 1 == 1")
    assert isinstance(e, ast.Binary) and e.op == "^" and isinstance(e.right, ast.Binary)
    assert e.right.op == "=="


def test_not_binds_tighter_than_comparison() -> None:
    e = only("not a == b")
    assert isinstance(e, ast.Binary) and e.op == "==" and isinstance(e.left, ast.Unary)


def test_not_minus_does_not_parse() -> None:
    with pytest.raises(CompileError):
        parse("not -x")
    assert isinstance(only("not (-x)"), ast.Unary)


def test_left_associative_and_mixed_levels() -> None:
    e = only("1 - 2 - 3 * 4")
    assert isinstance(e, ast.Binary) and e.op == "-"
    assert isinstance(e.left, ast.Binary) and e.left.op == "-"
    assert isinstance(e.right, ast.Binary) and e.right.op == "*"


def test_paths() -> None:
    p = only("$a.b[0][1:2]")
    assert isinstance(p, ast.Path) and p.root == "meta"
    assert [type(s).__name__ for s in p.segments] == [
        "FieldSeg",
        "FieldSeg",
        "IndexSeg",
        "RangeSeg",
    ]
    c = only("m::n::C.x")
    assert (
        isinstance(c, ast.Path) and c.root == "const" and c.module == ("m", "n") and c.name == "C"
    )
    x = only("f(1).a")
    assert isinstance(x, ast.Path) and x.root == "expr" and isinstance(x.expr, ast.Call)
    assert only("$") == ast.Path(root="meta")


def test_strings_heredoc_interpolation() -> None:
    s = only('"a\\n#{ "b#{1}" }\\#{x}"')
    assert isinstance(s, ast.StringInterp)
    assert s.parts[0] == "a\n" and s.parts[-1] == "#{x}"
    h = only('"""\n  x "q"\n  """')
    assert h == ast.Literal(value='  x "q"\n  ')


def test_use_group_expansion() -> None:
    uses = parse("use std::{a, b as c, d::{e}}").items
    assert [(u.path, u.alias) for u in uses] == [
        (("std", "a"), "a"),
        (("std", "b"), "c"),
        (("std", "d", "e"), "e"),
    ]


def test_fn_forms_and_docs() -> None:
    items = parse(
        "## doc\nfn f(a, ...) with let x = a; x end;\nfn g(a) of case (1) => 2 case _ => 3 end"
    ).items
    f, g = items
    assert isinstance(f, ast.FnDef) and f.varargs and f.doc == "doc" and len(f.body) == 2
    assert isinstance(g, ast.FnDef) and len(g.cases) == 2
    assert isinstance(g.cases[1].pattern, ast.AnyPattern)


def test_patterns() -> None:
    m = only(
        "match event of case r = %{ a ~= re|x|, present b, c > 1 } when true => 1 "
        "case %( 1, ... ) => 2 case %[ _ ] => 3 case ~ glob|a*| => 4 case _ => drop end"
    )
    assert isinstance(m, ast.Match) and m.mutable
    first = m.cases[0].pattern
    assert isinstance(first, ast.AssignPattern) and isinstance(first.pattern, ast.RecordPattern)
    assert [f.kind for f in first.pattern.fields] == ["extract", "present", "cmp"]
    assert m.cases[1].pattern == ast.TuplePattern(
        elements=(ast.ExprPattern(expr=ast.Literal(value=1)),), open=True
    )
    assert isinstance(m.cases[4].body[0], ast.Drop)


def test_for_patch_merge_emit() -> None:
    f = only("for event of case (k, v) => v into 0 use + end")
    assert isinstance(f, ast.For) and f.fold_op == "+" and f.into == ast.Literal(value=0)
    p = only(
        'patch event of insert "a" => 1; erase "b"; move "c" => "d"; merge => {}; '
        'default "e" => 2 end'
    )
    assert [o.kind for o in p.ops] == ["insert", "erase", "move", "merge_record", "default"]
    e = only('emit event => "out"')
    assert isinstance(e, ast.Emit) and e.port == ast.Literal(value="out")
    assert isinstance(only("merge event of {} end"), ast.Merge)


def test_binary_literal() -> None:
    b = only("<< event:16/signed-integer, 1 >>")
    assert isinstance(b, ast.BinaryLit) and b.parts[0].bits == 16
    assert b.parts[0].kind == "signed_integer"


def test_errors_never_escape_as_other_exceptions() -> None:
    for text in ["(" * 3000, "\udcff", "", "let", "{" * 500, "#!config x = 1"]:
        try:
            parse(text)
        except CompileError:
            pass
