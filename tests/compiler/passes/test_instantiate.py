"""The instantiation passes: trickle/troy programs → compiler.ir, every error before codegen."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.ir import Checked, Deployment, PipelineGraph
from compiler.ir import flow as F
from compiler.ir import graph as G
from compiler.pipeline import check_program, check_source
from compiler.source import Source
from tests.support.paths import ROOT

QUERY = """\
define script add
args
  amount = 1
script
  event + args.amount
end;
define window two from tumbling with size = 2 end;
create script add with amount = 40 + 2 end;
select event from in into add;
select {"n": aggr::stats::count()} from add[two] group by set(event) into out;
"""


def _query(text: str) -> Checked:
    return check_program(Source("t.trickle", text), "query")


def _deploy(text: str) -> Checked:
    return check_program(Source("t.troy", text), "deploy")


def test_query_graph_resolves_args_windows_and_links() -> None:
    graph = _query(QUERY).ir
    assert isinstance(graph, PipelineGraph)
    assert graph.inputs == (("in", "in"),)
    assert graph.outputs == (("out", "out"), ("err", "err"))
    script = next(n for n in graph.nodes if isinstance(n, G.ScriptNode))
    assert script.args == {"amount": 42}
    select = next(n for n in graph.nodes if isinstance(n, G.SelectNode))
    assert select.name == "#select1"
    assert select.aggregates == ("aggr::stats::count",)
    assert [(w.name, w.kind, w.amount) for w in select.windows] == [("two", "size", 2)]
    assert [link.dump() for link in graph.links] == [
        "in/out -> add/in",
        "add/out -> #select1/in",
        "#select1/out -> out/in",
    ]
    assert graph.errors == (("#select1", "error"),)


def test_query_dump_is_stable() -> None:
    assert _query(QUERY).ir.dump() == _query(QUERY).ir.dump()  # type: ignore[union-attr]
    assert "SelectNode '#select1'" in _query(QUERY).ir.dump()  # type: ignore[union-attr]


def test_sub_pipelines_are_inlined_with_their_prefix() -> None:
    text = """\
define pipeline inner
pipeline
  select event + 1 from in into out;
end;
create pipeline p from inner;
select event from in into p;
select event from p into out;
"""
    graph = _query(text).ir
    assert isinstance(graph, PipelineGraph)
    names = [n.name for n in graph.nodes]
    assert names == ["in", "out", "err", "p/in", "p/out", "p/err", "p/#select1"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("select event from in into nowhere;", "Stream used in `from` or `into` is not defined"),
        ("create script s from nope;", "script `nope` not found"),
        ("select aggr::stats::count() from in[w] into out;", "Unknown window: w"),
    ],
)
def test_query_instantiation_errors_surface_at_check(text: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        check_source(Source("t.trickle", text), "query")
    assert message in info.value.message


FLOW = """\
define flow main
flow
  define pipeline p
  pipeline
    {body}
  end;
  define connector c from metronome
  with config = {{"interval": 1}} end;
  create connector c;
  create pipeline p;
  connect /connector/c to /pipeline/p;
  connect /pipeline/{pipe}/{port} to /connector/c;
end;
deploy flow main;
"""
GOOD_BODY = "select event from in into out;"


def test_deployment_resolves_connections() -> None:
    deployment = _deploy(FLOW.format(body=GOOD_BODY, pipe="p", port="out")).ir
    assert isinstance(deployment, Deployment)
    (flow,) = deployment.flows
    assert flow.connector("c").params == {"config": {"interval": 1}}
    (pipe,) = flow.pipelines
    assert pipe.graph.inputs == (("in", "main/p/in"),)
    first, second = flow.connections
    assert first.source == F.ConnectorEnd(connector="c", port="out")
    assert first.target == F.PipelineEnd(pipeline="p", port="in", node="main/p/in")
    assert second.source == F.PipelineEnd(pipeline="p", port="out", node="main/p/out")


@pytest.mark.parametrize(
    ("body", "pipe", "port", "message"),
    [
        ("select event from in into nowhere;", "p", "out", "is not defined: nowhere/in"),
        (GOOD_BODY, "p", "nope", "Query `p` does not have port `nope`"),
        (GOOD_BODY, "q", "out", "The pipeline `q` is not created"),
    ],
)
def test_flow_pipeline_errors_surface_at_check(
    body: str, pipe: str, port: str, message: str
) -> None:
    with pytest.raises(CompileError) as info:
        check_source(Source("t.troy", FLOW.format(body=body, pipe=pipe, port=port)), "deploy")
    assert message in info.value.message


def _imports(path: Path) -> set[str]:
    """Absolute names of the compiler modules ``path`` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            name = f"{base}.{node.module}" if node.level and node.module else node.module or base
            found.add(name)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("folder", ["passes", "ir"])
def test_passes_and_ir_do_not_import_codegen(folder: str) -> None:
    later = ("compiler.codegen", "compiler.lowering", "compiler.testing", "compiler.pipeline")
    for path in sorted((ROOT / "compiler" / folder).glob("*.py")):
        for name in _imports(path):
            assert not name.startswith(later), f"{path.name} imports {name}"


@pytest.mark.parametrize("module", ["query.py", "query_select.py", "deploy.py", "graph.py"])
def test_graph_codegen_raises_no_user_errors(module: str) -> None:
    path = ROOT / "compiler" / "codegen" / module
    assert "compiler.diagnostics" not in _imports(path)
    assert "compiler.passes.deploy_checks" not in _imports(path)


def test_script_ports_and_computed_port_error_at_check() -> None:
    checked = check_program(Source("t.tremor", 'emit event => "side";\nstate'), "script")
    assert checked.ir == G.ScriptGraph(ports=("out", "err", "side"), stateful=True)
    with pytest.raises(CompileError) as info:
        check_source(Source("t.tremor", "emit event => event.port"), "script")
    assert "computed at run time" in info.value.message
