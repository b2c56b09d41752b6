"""Troy parser: the flow corpus parses, parse errors render like Tremor's, and flow / connector /
connect / deploy nodes carry the names and spans later passes need."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.ast import deploy as d
from compiler.ast import query as q
from compiler.ast import script as s
from compiler.diagnostics import CompileError
from compiler.parse.deploy import parse_deploy, parse_module
from compiler.source import Source
from tests.support.paths import CONFORMANCE

SYNTAX_MESSAGES = ("Found the token", "It looks like you forgot to terminate")


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (CONFORMANCE / kind).glob("*") if (p / "flow.troy").exists())


def parse(text: str) -> d.Deploy:
    return parse_deploy(Source("test.troy", text))


def error_of(text: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        parse(text)
    return info.value


FLOW = """\
define flow main
args
  ival,
  other = 3
flow
  use std::time::nanos;
  define connector metro from metronome
  args
    ival
  with
    codec = "json",
    config = {"interval": args.ival}
  end;
  define connector exit from exit;
  define pipeline identity
  pipeline
    select event from in into out;
  end;
  create connector metro with ival = args.ival end;
  create connector exit from tremor::connectors::exit;
  create pipeline identity;
  connect /connector/metro to /pipeline/identity;
  connect /pipeline/identity/err to /connector/exit/stderr;
  connect /pipeline/identity to /pipeline/other/in2;
end;
deploy flow main with ival = 5 end;
deploy flow second from lib::main;
"""


# --- corpus ------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("flows"), ids=lambda p: p.name)
def test_corpus_flow_parses(case: Path) -> None:
    deploy = parse_deploy(Source.from_path(case / "flow.troy"))
    flows = [st for st in deploy.stmts if isinstance(st, d.DefineFlow)]
    assert flows and all(f.connects() for f in flows)


@pytest.mark.parametrize("case", _cases("flow_errors"), ids=lambda p: p.name)
def test_corpus_flow_errors(case: Path) -> None:
    source = Source.from_path(case / "flow.troy")
    expected = (case / "error.txt").read_text().strip()
    if any(m in expected for m in SYNTAX_MESSAGES):
        with pytest.raises(CompileError) as info:
            parse_deploy(source)
        assert info.value.render().strip() == expected
    else:
        parse_deploy(source)  # semantic errors are found by later passes


# --- statements --------------------------------------------------------------------------------


def test_flow_structure() -> None:
    deploy = parse(FLOW)
    flow, dep1, dep2 = deploy.stmts
    assert isinstance(flow, d.DefineFlow) and flow.name.name == "main"
    assert [(a.name.name, a.default) for a in flow.args] == [
        ("ival", None),
        ("other", s.Literal(value=3)),
    ]
    kinds = [type(st).__name__ for st in flow.stmts]
    assert kinds == [
        "Use",
        "DefineConnector",
        "DefineConnector",
        "DefinePipeline",
        "CreateConnector",
        "CreateConnector",
        "CreatePipeline",
        "Connect",
        "Connect",
        "Connect",
    ]
    assert [c.name.name for c in flow.creates()] == ["metro", "exit", "identity"]
    assert isinstance(dep1, d.DeployFlow) and dep1.target.explicit is False
    assert [e.key.name for e in dep1.params] == ["ival"]
    assert isinstance(dep2, d.DeployFlow) and dep2.target.qualified == "lib::main"


def test_connector_definition() -> None:
    flow = parse(FLOW).stmts[0]
    metro = flow.stmts[1]
    assert isinstance(metro, d.DefineConnector)
    assert (metro.name.name, metro.kind.name) == ("metro", "metronome")
    assert [a.name.name for a in metro.args] == ["ival"]
    assert [e.key.name for e in metro.config] == ["codec", "config"]
    exit_ = flow.stmts[2]
    assert exit_.args == () and exit_.config == ()
    assert set(d.CONNECTOR_WITH_KEYS) >= {e.key.name for e in metro.config}


def test_connect_endpoints_and_default_ports() -> None:
    c1, c2, c3 = parse(FLOW).stmts[0].connects()
    assert (c1.from_.kind, c1.from_.alias.name, c1.to.kind, c1.to.alias.name) == (
        "connector",
        "metro",
        "pipeline",
        "identity",
    )
    assert (c1.from_port, c1.to_port) == ("out", "in")
    assert (c2.from_port, c2.to_port, c2.to.kind) == ("err", "stderr", "connector")
    assert (c3.to.kind, c3.to_port) == ("pipeline", "in2")


def test_create_pipeline_in_flow_is_the_query_node() -> None:
    flow = parse(FLOW).stmts[0]
    create = flow.stmts[6]
    assert isinstance(create, q.CreatePipeline) and create.target.name == "identity"
    assert isinstance(flow.stmts[5], d.CreateConnector)
    assert flow.stmts[5].target.qualified == "tremor::connectors::exit"


def test_spans_point_at_names_and_with_keys() -> None:
    deploy = parse(FLOW)
    flow = deploy.stmts[0]
    metro = flow.stmts[1]
    key = metro.config[0].key
    assert FLOW[key.span.start : key.span.end] == "codec"
    assert FLOW[metro.kind.span.start : metro.kind.span.end] == "metronome"
    dep = deploy.stmts[1]
    assert FLOW[dep.name.span.start : dep.name.span.end] == "main"
    conn = flow.connects()[1]
    assert FLOW[conn.span.start : conn.span.end] == (
        "connect /pipeline/identity/err to /connector/exit/stderr"
    )


def test_config_directive_and_empty_flow() -> None:
    deploy = parse("#!config k = 1\ndefine flow f flow end; use x::y as z")
    assert [c.key.name for c in deploy.config] == ["k"]
    flow, use = deploy.stmts
    assert flow.stmts == () and isinstance(use, s.Use) and use.alias == "z"


def test_doc_comments_are_attached() -> None:
    deploy = parse("## the main flow\ndefine flow f flow end;\n## go\ndeploy flow f")
    assert deploy.stmts[0].doc == "the main flow"
    assert deploy.stmts[1].doc == "go"


# --- modules -----------------------------------------------------------------------------------


def test_module_with_every_kind_of_item() -> None:
    text = (
        "use std;\nconst C = 1;\nfn f(a) with a end;\n"
        "define window w from tumbling with size = 2 end;\n"
        "define operator o from generic::counter;\n"
        "define script sc script event end;\n"
        "define pipeline p pipeline select event from in into out; end;\n"
        "define connector k from stdio;\n"
        "define flow fl flow create pipeline p; end"
    )
    module = parse_module(Source("m.troy", text))
    assert [type(i).__name__ for i in module.items] == [
        "Use",
        "Const",
        "FnDef",
        "DefineWindow",
        "DefineOperator",
        "DefineScript",
        "DefinePipeline",
        "DefineConnector",
        "DefineFlow",
    ]


def test_module_rejects_select() -> None:
    with pytest.raises(CompileError) as info:
        parse_module(Source("m.trickle", "select event from in into out"))
    assert info.value.message.startswith("Found the token `select` but expected")


# --- errors ------------------------------------------------------------------------------------


def test_connector_to_connector_does_not_parse() -> None:
    err = error_of("define flow f flow connect /connector/a to /connector/b end")
    assert err.message == "Found the token `connector` but expected `pipeline`"


def test_connector_args_need_with() -> None:
    err = error_of("define flow f flow define connector c from x args a; end")
    assert err.message.startswith("Found the token `;` but expected")
    assert "`with`" in err.message


def test_select_is_not_a_flow_statement() -> None:
    err = error_of("define flow f flow select event from in into out; end")
    assert err.message == (
        "Found the token `select` but expected one of `<doc-comment>`, `connect`, `create`, "
        "`define`, `end`, `use`"
    )
