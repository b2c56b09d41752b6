"""Tests for compiler.passes.const_fold on hand-built ASTs (spans located in real text)."""

from pathlib import Path

import pytest

from compiler.ast import script as ast
from compiler.diagnostics import CompileError
from compiler.passes.const_fold import fold_constants
from compiler.source import NO_SPAN, Source, Span
from tests.support.paths import CONFORMANCE

CORPUS = CONFORMANCE / "script_errors"


class Text:
    """A source text plus helpers that find spans of substrings in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.source = Source("script.tremor", text)

    def span(self, needle: str, nth: int = 0) -> Span:
        start = -1
        for _ in range(nth + 1):
            start = self.text.index(needle, start + 1)
        return Span(start, start + len(needle))


def lit(v, span=NO_SPAN):
    return ast.Literal(value=v, span=span)


def fold_expr(expr, source=None):
    script = ast.Script(items=(expr,))
    return fold_constants(script, source or Source("t", "")).items[0]


def test_arithmetic_folds_to_literal():
    e = ast.Binary(op="/", left=lit(4), right=lit(2))
    out = fold_expr(e)
    assert out == lit(2.0) and type(out.value) is float


def test_nested_literals_and_interpolation():
    rec = ast.RecordLit(
        fields=(
            ast.RecordField(
                key=ast.StringInterp(parts=("k", lit(1))),
                value=ast.ArrayLit(items=(ast.Unary(op="-", operand=lit(1)), lit(2.0))),
            ),
        )
    )
    path = ast.Path(root="expr", expr=rec, segments=(ast.FieldSeg(name="k1"),))
    interp = ast.StringInterp(parts=("x=", path, "!"))
    assert fold_expr(interp) == lit("x=[-1,2.0]!")


def test_const_reference_and_path_into_const():
    value = ast.RecordLit(
        fields=(ast.RecordField(key=lit("a"), value=ast.ArrayLit(items=(lit(1), lit(2)))),)
    )
    const = ast.Const(name="C", value=value)
    use = ast.Path(
        root="const",
        name="C",
        segments=(ast.FieldSeg(name="a"), ast.IndexSeg(index=lit(1))),
    )
    whole = ast.Path(root="const", name="C")
    script = fold_constants(ast.Script(items=(const, use, whole)), Source("t", ""))
    assert script.items[0] == const
    assert script.items[1] == lit(2)
    assert script.items[2] == value


def test_non_constant_parts_stay():
    event = ast.Path(root="event", segments=(ast.FieldSeg(name="x"),))
    e = ast.Binary(op="+", left=event, right=ast.Binary(op="+", left=lit(1), right=lit(2)))
    assert fold_expr(e) == ast.Binary(op="+", left=event, right=lit(3))


def test_logical_ops_fold_only_for_two_bools():
    assert fold_expr(ast.Binary(op="or", left=lit(True), right=lit(False))) == lit(True)
    assert fold_expr(ast.Binary(op="xor", left=lit(True), right=lit(True))) == lit(False)
    bad = ast.Binary(op="and", left=lit(1), right=lit(True))
    assert fold_expr(bad) == bad  # a runtime error in Tremor, not a compile-time one


def test_let_target_and_present_path_stay_paths():
    target = ast.Path(root="const", name="C")
    let = ast.Let(target=target, value=ast.Binary(op="+", left=lit(1), right=lit(1)))
    const = ast.Const(name="C", value=lit(1))
    present = ast.Present(path=ast.Path(root="const", name="C"))
    script = fold_constants(ast.Script(items=(const, let, present)), Source("t", ""))
    assert script.items[1] == ast.Let(target=target, value=lit(2))
    assert script.items[2] == present


def test_binary_value_and_non_finite_stay_unfolded():
    e = ast.Binary(op="/", left=lit(1.0), right=lit(0.0))
    assert fold_expr(e) == e


def _render(t: Text, expr) -> str:
    with pytest.raises(CompileError) as info:
        fold_constants(ast.Script(items=(expr,)), t.source)
    return info.value.render()


def _corpus(case: str) -> tuple[Text, str]:
    d = CORPUS / case
    return Text((d / "script.tremor").read_text()), (d / "error.txt").read_text()


def test_corpus_invalid_const_binary():
    t, expected = _corpus("invalid_const_binary")
    left = ast.ArrayLit(items=(lit(1, t.span("1")),), span=t.span("[1]"))
    right = ast.ArrayLit(items=(lit(2, t.span("2")),), span=t.span("[2]"))
    expr = ast.Binary(op="/", left=left, right=right, span=t.span("[1] / [2]"))
    assert _render(t, expr) == expected.rstrip("\n")


def test_corpus_invalid_const_unary():
    t, expected = _corpus("invalid_const_unary")
    expr = ast.Unary(op="-", operand=lit(False, t.span("false")), span=t.span("- false"))
    assert _render(t, expr) == expected.rstrip("\n")


def test_corpus_arith_bad_shift():
    t, expected = _corpus("arith_bad_shift_1")
    expr = ast.Binary(
        op=">>", left=lit(42, t.span("42")), right=lit(64, t.span("64")), span=t.span("42 >> 64")
    )
    assert _render(t, expr) == expected.rstrip("\n")


def test_corpus_script_without_newline():
    t, expected = _corpus("script_without_newline")
    expr = ast.Binary(
        op="+",
        left=lit("string", t.span('"string"')),
        right=lit(1, t.span("1")),
        span=t.span('"string" + 1'),
    )
    assert _render(t, expr) == expected.rstrip("\n")


def _snot_record(t: Text, items: int, value_text: str):
    """``{"snot": [0,1,...]}`` or ``{"snot": 42}`` with spans."""
    if items:
        value = ast.ArrayLit(items=tuple(lit(i) for i in range(items)), span=t.span(value_text))
    else:
        value = lit(42, t.span(value_text))
    rec_text = t.text[: t.text.index("}") + 1]
    field = ast.RecordField(key=lit("snot", t.span('"snot"')), value=value)
    return ast.RecordLit(fields=(field,), span=t.span(rec_text))


def test_corpus_const_expr_index_out_of_bounds():
    t, expected = _corpus("const_expr_index_out_of_bounds")
    rec = _snot_record(t, 7, "[0,1,2,3,4,5,6]")
    segs = (
        ast.FieldSeg(name="snot", span=t.span("snot", 1)),
        ast.IndexSeg(index=lit(8, t.span("8"))),
    )
    expr = ast.Path(root="expr", expr=rec, segments=segs, span=t.span(t.text.strip()))
    assert _render(t, expr) == expected.rstrip("\n")


def test_corpus_const_expr_index_into_int():
    t, expected = _corpus("const_expr_index_into_int")
    rec = _snot_record(t, 0, "42")
    segs = (
        ast.FieldSeg(name="snot", span=t.span("snot", 1)),
        ast.IndexSeg(index=lit(5, t.span("5"))),
    )
    expr = ast.Path(root="expr", expr=rec, segments=segs, span=t.span(t.text.strip()))
    assert _render(t, expr) == expected.rstrip("\n")


def test_corpus_const_expr_range_bad_start():
    t, expected = _corpus("const_expr_range_bad_start")
    rec = _snot_record(t, 7, "[0,1,2,3,4,5,6]")
    rng = ast.RangeSeg(start=lit("bad", t.span('"bad"')), end=lit(2, t.span("2", 1)))
    segs = (ast.FieldSeg(name="snot", span=t.span("snot", 1)), rng)
    expr = ast.Path(root="expr", expr=rec, segments=segs, span=t.span(t.text.strip()))
    assert _render(t, expr) == expected.rstrip("\n")


def test_std_constant_overflow_when_registry_available():
    registry = pytest.importorskip("runtime_support.tremor.stdlib.registry", exc_type=ImportError)
    assert registry.constant("std::integer::unsigned::MAX") == 2**64 - 1
    t, expected = _corpus("add_overflow")
    const = ast.Path(
        root="const",
        module=("std", "integer", "unsigned"),
        name="MAX",
        span=t.span("unsigned::MAX"),
    )
    expr = ast.Binary(
        op="+", left=const, right=lit(1, t.span("1")), span=t.span("unsigned::MAX + 1")
    )
    assert _render(t, expr) == expected.rstrip("\n")


# -- corpus checks through the real parser and resolver -------------------------------------


def _front_end(path: Path):
    """Parse and resolve a corpus script; None when an earlier phase rejects it."""
    parse = pytest.importorskip("compiler.parse.script", exc_type=ImportError)
    from compiler.passes.resolve import resolve_script

    src = Source("script.tremor", path.read_text())
    try:
        return resolve_script(parse.parse_script(src), src).flat(), src
    except CompileError:
        return None


def _cases(sub: str) -> list[Path]:
    root = CONFORMANCE / sub
    return (
        sorted(d for d in root.iterdir() if (d / "script.tremor").exists()) if root.exists() else []
    )


@pytest.mark.parametrize("case", _cases("script_errors"), ids=lambda p: p.name)
def test_corpus_fold_errors_render_like_tremor(case):
    front = _front_end(case / "script.tremor")
    if front is None:
        pytest.skip("rejected before constant folding")
    script, src = front
    try:
        fold_constants(script, src)
    except CompileError as e:
        assert e.render() == (case / "error.txt").read_text().rstrip("\n")


@pytest.mark.parametrize(
    "case", _cases("scripts") + _cases("script_runtime_errors"), ids=lambda p: p.name
)
def test_corpus_valid_scripts_fold_without_compile_errors(case):
    front = _front_end(case / "script.tremor")
    if front is None:
        pytest.skip("rejected before constant folding")
    script, src = front
    fold_constants(script, src)
