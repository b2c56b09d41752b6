"""Module front end on programs outside the corpus: nested-module consts in flow defaults, module
files of any extension holding any definitions, and Tremor's bundled modules.

Expected values follow Tremor's semantics (tremor-script/lib, ast/module.rs, deploy/raw.rs):
a module file is one grammar (``ModuleFile``) whatever uses it; a flow's args defaults are
evaluated in the module that defines the flow; ``tremor::connectors`` defines ``exit``,
``metrics`` and ``console``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program, compile_path, compile_source, read_source
from compiler.source import Source
from compiler.testing.loader import load_job
from compiler.testing.runner import run_job_on_lines
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "front"


def _deployment(path: Path) -> Any:
    return check_program(read_source(path), "deploy").ir


def _run_flow(
    spark: Any, path: Path, tmp_path: Path, ticks: int = 0, stdin: str | None = None
) -> list[str]:
    """Run the troy file at ``path`` (metronomes emit ``ticks`` events, stdio reads ``stdin``);
    the lines written to stdout."""
    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    module = load_job(compile_path(path).job, path.stem)
    out, given = tmp_path / "stdout.txt", tmp_path / "stdin.txt"
    given.write_text(stdin or "")
    context = RunContext(
        ingest_ns="index", ticks=ticks, stdout_path=str(out), stdin_path=str(given)
    )
    assert run_flow(spark, module.FLOW, module.run_pipeline, context) == 0
    context.close()
    return out.read_text().splitlines()


def _connectors(flow: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    return {c.alias: (c.kind, c.params) for c in flow.connectors}


# -- 1. consts of nested modules in flow defaults -------------------------------------------------


def test_module_flow_defaults_read_nested_module_consts() -> None:
    """``x = values::c::K`` where ``values`` itself ``use``s the module holding ``K``."""
    deployment = _deployment(DATA / "modules" / "flow.troy")
    assert [f.alias for f in deployment.flows] == ["main", "other"]
    assert _connectors(deployment.flows[0])["console"][0] == "stdio"


def test_flow_defaults_with_nested_module_consts_in_the_deploy_file() -> None:
    deployment = _deployment(DATA / "modules" / "inline.troy")
    assert _connectors(deployment.flows[0])["tick"] == ("metronome", {"config": {"interval": 42}})


def test_an_undefined_nested_const_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.tremor").write_text("use lib::n;\n")
    (tmp_path / "lib" / "n.tremor").write_text("const K = 1;\n")
    flow = tmp_path / "f.troy"
    flow.write_text("use lib::m;\ndefine flow main\nargs x = m::n::NOPE\nflow\nend;\n")
    with pytest.raises(CompileError, match=r"The constant m::n::NOPE \(absolute path\)"):
        _deployment(flow)


@pytest.mark.spark
def test_module_flow_defaults_reach_the_running_job(spark: Any, tmp_path: Path) -> None:
    got = [
        json.loads(line) for line in _run_flow(spark, DATA / "modules" / "flow.troy", tmp_path, 1)
    ]
    assert sorted(got, key=lambda v: v["y"]) == [{"x": 42, "y": 1}, {"x": 42, "y": 7}]


@pytest.mark.spark
def test_inline_flow_defaults_reach_the_running_job(spark: Any, tmp_path: Path) -> None:
    assert _run_flow(spark, DATA / "modules" / "inline.troy", tmp_path, ticks=1) == ["[43,42]"]


@pytest.mark.spark
def test_project_template_layout_runs(spark: Any, tmp_path: Path) -> None:
    """``tremor new``'s layout: a flow, a pipeline and a script each in a ``.tremor`` module;
    ``console`` reads and writes lines."""
    got = _run_flow(spark, DATA / "template" / "main.troy", tmp_path, stdin="hello\nworld\n")
    assert got == ["HELLO!", "WORLD!"]


# -- 2. a .tremor module holding troy or trickle definitions -------------------------------------


def test_tremor_module_with_flow_definitions_is_used_from_troy() -> None:
    """``lib/flows.tremor`` holds ``define flow`` (it was parsed as a script and rejected)."""
    assert _deployment(DATA / "modules" / "flow.troy").flows


def test_module_with_troy_definitions_still_serves_scripts() -> None:
    """A script sees a module's consts and fns; its ``define``s are not part of a script."""
    source = read_source(DATA / "modules" / "script.tremor")
    assert check_program(source, "script").tree


@pytest.mark.spark
def test_script_reads_consts_of_a_definitions_module(spark: Any) -> None:
    job = compile_path(DATA / "modules" / "script.tremor").job
    assert [v for _, v in run_job_on_lines(job, "front_script", ["{}"])] == [[7, 42]]


@pytest.mark.spark
def test_tremor_module_with_query_definitions_is_used_from_trickle(spark: Any) -> None:
    """``define script``/``define window`` in a ``.tremor`` module, args defaults from another
    module's const (10): events 1..4 become 11..14 in windows of two."""
    job = compile_path(DATA / "query" / "query.trickle").job
    got = run_job_on_lines(job, "front_query", ["1", "2", "3", "4"])
    assert [v for _, v in got] == [[11, 12], [13, 14]]


def test_a_module_may_not_hold_top_level_expressions(tmp_path: Path) -> None:
    """Tremor's module grammar has no expressions: the error is the module file's."""
    (tmp_path / "m.tremor").write_text("const A = 1;\nevent.x\n")
    main = tmp_path / "main.tremor"
    main.write_text("use m;\nm::A\n")
    with pytest.raises(CompileError) as info:
        check_program(read_source(main), "script")
    assert "m.tremor" in str(info.value.source.name)


# -- 3. Tremor's bundled modules -----------------------------------------------------------------

BUNDLED_FLOW = """
define flow main
flow
  use tremor::connectors;
  use tremor::pipelines;
  create connector console from connectors::console;
  create connector exit from connectors::exit;
  create pipeline pass from pipelines::passthrough;
  connect /connector/console to /pipeline/pass;
  connect /pipeline/pass to /connector/console;
end;
deploy flow main;
"""


def test_tremor_connectors_defines_console_and_exit() -> None:
    deployment = check_program(Source("t.troy", BUNDLED_FLOW), "deploy").ir
    assert _connectors(deployment.flows[0]) == {
        "console": (
            "stdio",
            {"codec": "string", "preprocessors": ["separate"], "postprocessors": ["separate"]},
        ),
        "exit": ("exit", {}),
    }


def _created(text: str, create: str) -> str:
    """The error of adding ``create`` to the flow of ``text``."""
    with pytest.raises(CompileError) as info:
        check_program(Source("t.troy", text.replace("flow\n", f"flow\n{create}\n", 1)), "deploy")
    return info.value.message


def test_tremor_connectors_defines_metrics() -> None:
    """``metrics`` resolves to the bundled definition: a ``metrics`` connector."""
    line = "  create connector m from connectors::metrics;"
    text = BUNDLED_FLOW.replace("flow\n", f"flow\n{line}\n", 1)
    flow = check_program(Source("t.troy", text), "deploy")
    assert _connectors(flow.ir.flows[0])["m"][0] == "metrics"


def test_axiom_connectors_are_defined() -> None:
    """``axiom::http`` and ``axiom::syslog`` resolve and bind their args: the first is an
    ``http_client`` with its interpolated config; the second a ``tcp_client`` over TLS, which the
    registry rejects (tremorc's socket clients have no TLS)."""
    text = "use axiom;\n" + BUNDLED_FLOW
    http = '  create connector a from axiom::http with dataset = "d", token = "t" end;'
    flow = check_program(Source("t.troy", text.replace("flow\n", f"flow\n{http}\n", 1)), "deploy")
    kind, params = _connectors(flow.ir.flows[0])["a"]
    assert kind == "http_client"
    assert params["config"]["url"] == "https://api.axiom.co/v1/datasets/d/ingest"
    assert params["config"]["headers"] == {"Authorization": "Bearer t"}
    syslog = '  create connector s from axiom::syslog with endpoint_hostport = "h:1" end;'
    message = _created(text, syslog)
    assert message == "Config key `tls` of connector `tcp_client` must be one of false, got true"
    missing = '  create connector a from axiom::http with dataset = "d" end;'
    assert _created(text, missing) == "Missing required argument: token"


def test_bundled_artefacts_through_the_tremor_namespace_module() -> None:
    """``use tremor;`` reaches ``tremor::connectors`` through the bundled ``tremor`` module."""
    text = """
    use tremor;
    define flow main
    flow
      use tremor as t;
      create connector console from t::connectors::console;
      create pipeline p from tremor::pipelines::passthrough;
      connect /pipeline/p to /connector/console;
    end;
    deploy flow main;
    """
    flow = check_program(Source("t.troy", text), "deploy").ir.flows[0]
    assert _connectors(flow)["console"][0] == "stdio"
    assert [p.alias for p in flow.pipelines] == ["p"]


def test_missing_bundled_artefact_is_reported() -> None:
    text = BUNDLED_FLOW.replace("connectors::exit", "connectors::nope")
    with pytest.raises(CompileError, match="Artefact `connectors::nope` is not defined"):
        check_program(Source("t.troy", text), "deploy")


def test_every_module_of_tremor_script_lib_can_be_used() -> None:
    """Each module file of tremor-script/lib (as of tremor 0.13) resolves with ``use``."""
    modules = """
    aggr aggr::stats aggr::win axiom cncf cncf::otel cncf::otel::logs
    cncf::otel::logs::severity cncf::otel::logs::traceflags cncf::otel::metrics
    cncf::otel::metrics::temporality cncf::otel::span_id cncf::otel::trace
    cncf::otel::trace::spankind cncf::otel::trace::status cncf::otel::trace::status::code
    cncf::otel::trace::status::deprecated cncf::otel::trace_id google google::cloud
    google::cloud::logging google::cloud::logging::severity http::content_types http::headers
    http::methods http::status std std::array std::base64 std::binary std::datetime
    std::datetime::formats std::datetime::timezones std::float std::integer
    std::integer::signed std::integer::unsigned std::json std::math std::path std::random
    std::range std::re std::record std::size std::string std::test std::time
    std::time::nanos std::type std::url std::win tremor tremor::chash tremor::connectors
    tremor::mime tremor::origin tremor::pipelines tremor::system tremor::windows
    """.split()
    text = "".join(f"use {m} as m{i};\n" for i, m in enumerate(modules)) + "null\n"
    check_program(Source("/nonexistent/t.tremor", text), "script")


BUNDLED_SCRIPT = """
use cncf::otel;
use cncf::otel::trace::status;
use cncf::otel::logs::traceflags;
use cncf::otel::trace_id;
use cncf::otel::span_id;
use cncf::otel::metrics;
use http::headers;
use http::content_types;
[
  status::ok(),
  status::error("bad"),
  otel::trace::spankind::make_default(),
  otel::trace::spankind::CLIENT,
  otel::trace::status::deprecated::UNAUTHENTICATED,
  otel::logs::severity::INFO,
  metrics::temporality::CUMULATIVE,
  traceflags::from_int(129),
  traceflags::is_valid(128),
  traceflags::make_default(),
  trace_id::is_valid("0123456789abcdef0123456789abcdef"),
  trace_id::is_valid(1),
  span_id::is_valid("0000000000000000"),
  span_id::is_valid(<<1:64>>),
  headers::CONTENT_TYPE,
  headers::X_FORWARDED_PROTO,
  content_types::JSON
]
"""

_FLAGS_129 = {"sampled": " true", "unused7": " true"} | {
    f"unused{i}": " false" for i in range(1, 7)
}


@pytest.mark.spark
def test_bundled_cncf_and_http_modules_compute_tremors_values(spark: Any) -> None:
    job = compile_source(Source("t.tremor", BUNDLED_SCRIPT), "script").job
    [(port, value)] = run_job_on_lines(job, "front_bundled", ["{}"])
    assert port == "out"
    assert value == [
        {"code": 1, "deprecated_code": 0, "message": "Ok"},
        {"code": 2, "deprecated_code": 2, "message": "bad"},
        1,
        3,
        16,
        9,
        2,
        _FLAGS_129,
        True,
        0,
        {"kind": "string", "valid": True, "value": "0123456789abcdef0123456789abcdef"},
        False,
        {"string": False, "value": "0000000000000000"},
        {"binary": True, "value": "AAAAAAAAAAE="},
        "Content-Type",
        "X-Forwarded-Proto",
        "application/json",
    ]
