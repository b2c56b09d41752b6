"""Trickle parser: the conformance corpus parses, parse errors render like Tremor's, and the AST
has the shape and spans later passes rely on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.ast import query as q
from compiler.ast import script as s
from compiler.diagnostics import CompileError
from compiler.parse.deploy import parse_module
from compiler.parse.query import parse_query
from compiler.source import Source
from tests.support.paths import CONFORMANCE

# Messages only the lexer or parser produce (everything else is a later, semantic error).
SYNTAX_MESSAGES = ("Found the token", "It looks like you forgot to terminate")


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (CONFORMANCE / kind).glob("*") if (p / "query.trickle").exists())


def _modules(*kinds: str) -> list[Path]:
    found = []
    for kind in kinds:
        for path in sorted((CONFORMANCE / kind).glob("*/*/**/*")):
            if path.suffix in (".trickle", ".tremor", ".troy"):
                found.append(path)
    return found


def parse(text: str) -> q.Query:
    return parse_query(Source("test.trickle", text))


def error_of(text: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        parse(text)
    return info.value


# --- corpus ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", _cases("queries") + _cases("query_runtime_errors"), ids=lambda p: p.name
)
def test_corpus_query_parses(case: Path) -> None:
    text = (case / "query.trickle").read_text()
    query = parse_query(Source.from_path(case / "query.trickle"))
    selects = [st for st in query.walk() if isinstance(st, q.Select)]
    assert len(selects) == len(re.findall(r"\bselect\b", text))


@pytest.mark.parametrize("path", _modules("queries", "query_errors"), ids=lambda p: p.name)
def test_corpus_module_parses(path: Path) -> None:
    module = parse_module(Source.from_path(path))
    assert module.items


@pytest.mark.parametrize("case", _cases("query_errors"), ids=lambda p: p.name)
def test_corpus_query_errors(case: Path) -> None:
    source = Source.from_path(case / "query.trickle")
    txt, regex = case / "error.txt", case / "error.re"
    expected = txt.read_text().strip() if txt.exists() else None
    pattern = regex.read_text().strip() if regex.exists() else None
    if (expected and any(m in expected for m in SYNTAX_MESSAGES)) or pattern:
        with pytest.raises(CompileError) as info:
            parse_query(source)
        if expected is not None:
            assert info.value.render().strip() == expected
        else:
            assert re.search(pattern, info.value.message)
    else:
        parse_query(source)  # semantic errors are found by later passes


# --- statements --------------------------------------------------------------------------------


def test_select_all_clauses_and_helpers() -> None:
    text = (
        'select {"g": group[0]} from in/p[w1, m::w2] where event.a > 1 '
        "group by set(event.g, each(event.xs)) into out/q having event.g != null;"
    )
    (sel,) = parse(text).stmts
    assert isinstance(sel, q.Select)
    assert (sel.from_stream, sel.from_port, sel.into_stream, sel.into_port) == (
        "in",
        "p",
        "out",
        "q",
    )
    assert sel.window_names == ("w1", "m::w2")
    assert isinstance(sel.where, s.Binary) and sel.where.op == ">"
    assert isinstance(sel.having, s.Binary) and sel.having.op == "!="
    group = sel.group_by
    assert isinstance(group, q.GroupSet)
    assert isinstance(group.items[0], q.GroupExpr) and isinstance(group.items[1], q.GroupEach)
    assert text[sel.from_.stream.span.start : sel.from_.stream.span.end] == "in"
    assert text[sel.into.port.span.start : sel.into.port.span.end] == "q"


def test_select_default_ports_and_plain_group() -> None:
    (sel,) = parse("select event from s group by event.g into t").stmts
    assert (sel.from_port, sel.into_port, sel.windows) == ("out", "in", ())
    assert isinstance(sel.group_by, q.GroupExpr)


def test_nested_group_set_each() -> None:
    (sel,) = parse("select 1 from in group by set(each(record::keys(event.g))) into out").stmts
    (inner,) = sel.group_by.items
    assert isinstance(inner, q.GroupEach) and isinstance(inner.expr, s.Call)


def test_config_directives_and_use() -> None:
    query = parse(
        '#!config id = "x"\n#!config metrics_interval_s = 5\nuse std::{a, b as c};\ncreate stream s'
    )
    assert [c.key.name for c in query.config] == ["id", "metrics_interval_s"]
    assert [(u.path, u.alias) for u in query.stmts[:2]] == [
        (("std", "a"), "a"),
        (("std", "b"), "c"),
    ]
    assert isinstance(query.stmts[2], q.CreateStream) and query.stmts[2].name.name == "s"


def test_define_window_full() -> None:
    text = (
        "## docs\ndefine window w from sliding with size = 3, max_groups = 10 state {} "
        "script from tick\n  let state = 1; true\nscript\n  false\nend"
    )
    (win,) = parse(text).stmts
    assert isinstance(win, q.DefineWindow)
    assert (win.name.name, win.kind.name, win.doc) == ("w", "sliding", "docs")
    assert [e.key.name for e in win.config] == ["size", "max_groups"]
    assert isinstance(win.state, s.RecordLit)
    (tick,) = win.named
    assert tick.port.name == "tick" and len(tick.script.items) == 2
    assert win.script is not None and win.script.items == (s.Literal(value=False),)


def test_define_window_minimal_and_backticked_name() -> None:
    (win,) = parse("define window `20ns` from tumbling with interval = 20 end").stmts
    assert win.name.name == "20ns" and win.script is None and win.state is None


def test_define_operator_args_with() -> None:
    text = 'define operator h from debug::history args op = "x", name with op = args.op, end'
    (op,) = parse(text).stmts
    assert isinstance(op, q.DefineOperator)
    assert (op.kind.module, op.kind.name) == (("debug",), "history")
    assert [(a.name.name, a.default) for a in op.args] == [
        ("op", s.Literal(value="x")),
        ("name", None),
    ]
    assert [e.key.name for e in op.config] == ["op"]
    assert not parse("define operator b from grouper::bucket").stmts[0].config


def test_operator_args_without_with_is_a_parse_error() -> None:
    err = error_of("define operator h from debug::history args op;")
    assert err.message.startswith("Found the token `;` but expected")


def test_define_script_named_sections_and_state() -> None:
    text = (
        'define script s args a = 1 state 0 script from odd emit "o" script from x 1 '
        "script event end"
    )
    (scr,) = parse(text).stmts
    assert isinstance(scr, q.DefineScript)
    assert [n.port.name for n in scr.named] == ["odd", "x"]
    assert scr.state == s.Literal(value=0)
    assert isinstance(scr.script.items[0], s.Path)
    assert [a.name.name for a in scr.args] == ["a"]


def test_define_pipeline_ports_args_config_nested() -> None:
    text = (
        'define pipeline p from a, b into c args x = 1, y, pipeline #!config id = "i"\n'
        "define pipeline inner pipeline select event from in into out; end;\n"
        "create pipeline inner; select args.x from a into c; end"
    )
    (pipe,) = parse(text).stmts
    assert isinstance(pipe, q.DefinePipeline)
    assert [p.name for p in pipe.from_ports] == ["a", "b"]
    assert [p.name for p in pipe.into_ports] == ["c"]
    assert [a.name.name for a in pipe.args] == ["x", "y"]
    assert [c.key.name for c in pipe.config] == ["id"]
    assert [type(st).__name__ for st in pipe.stmts] == [
        "DefinePipeline",
        "CreatePipeline",
        "Select",
    ]


def test_create_targets_and_with() -> None:
    stmts = parse(
        "create script a; create operator b from m::n::op with x = 1 end; "
        "create pipeline c from d with end"
    ).stmts
    a, b, c = stmts
    assert isinstance(a, q.CreateScript) and a.target == q.Target(
        module=(), name="a", explicit=False
    )
    assert isinstance(b, q.CreateOperator) and b.target.qualified == "m::n::op"
    assert [e.key.name for e in b.params] == ["x"]
    assert isinstance(c, q.CreatePipeline) and c.params == ()


def test_spans_cover_names_and_statements() -> None:
    text = "create script process from pass;\nselect event from in into process;"
    create, sel = parse(text).stmts
    assert text[create.span.start : create.span.end] == "create script process from pass"
    assert text[create.name.span.start : create.name.span.end] == "process"
    assert text[sel.into.stream.span.start : sel.into.stream.span.end] == "process"


# --- errors ------------------------------------------------------------------------------------


def test_error_after_create_lists_kinds() -> None:
    err = error_of("create window x;")
    assert err.message == (
        "Found the token `window` but expected one of `operator`, `pipeline`, `script`, `stream`"
    )


def test_error_select_missing_into() -> None:
    err = error_of("select event from in;")
    assert err.message.startswith("Found the token `;` but expected one of")
    assert "`into`" in err.message and "`where`" in err.message and "`[`" in err.message


def test_error_file_start_offers_config() -> None:
    err = error_of("dark horse")
    assert err.message.startswith("Found the token `dark` but expected one of `#!config`, ")


def test_error_statement_start_offers_doc_comment() -> None:
    err = error_of("create stream a;\ndark horse")
    assert err.message == (
        "Found the token `dark` but expected one of `<doc-comment>`, `create`, `define`, "
        "`select`, `use`"
    )
