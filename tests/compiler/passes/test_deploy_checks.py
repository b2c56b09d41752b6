"""Troy checks: flow_errors renders, the args model, connector configs after substitution."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.parse.deploy import parse_deploy
from compiler.passes.deploy_checks import check_deploy, instantiate
from compiler.pipeline import check_source, new_elaboration, read_source
from compiler.source import Source
from tests.support.paths import CONFORMANCE

FLOW_ERRORS = sorted(p for p in (CONFORMANCE / "flow_errors").glob("*") if p.is_dir())
FLOWS = sorted(p for p in (CONFORMANCE / "flows").glob("*") if p.is_dir())
# The module path listing names Tremor's own test directories.
KNOWN_DIFFERENT = {"module_not_found"}


@pytest.mark.parametrize("case", FLOW_ERRORS, ids=lambda p: p.name)
def test_flow_errors_render_exactly(case: Path) -> None:
    if case.name in KNOWN_DIFFERENT:
        pytest.xfail("module path listing differs")
    with pytest.raises(CompileError) as info:
        check_source(read_source(case / "flow.troy"), "deploy")
    assert info.value.render().strip() == (case / "error.txt").read_text().strip()


def _instances(text: str):
    source = Source("t.troy", text)
    return instantiate(parse_deploy(source), source, new_elaboration())


def _flow(case: str, deploy: str) -> str:
    return (CONFORMANCE / "flows" / case / "flow.troy").read_text() + "\n" + deploy


def test_nested_with_substitutes_flow_connector_and_pipeline_args() -> None:
    (flow,) = _instances(_flow("nested_with", "deploy flow main with ival = 1000000 end;"))
    source = next(c for c in flow.connectors if c.alias == "source")
    assert source.params == {"metrics_interval_s": 1, "config": {"interval": 1000000}}
    assert flow.pipelines[0].args == {"snot": 7}


def test_std_functions_run_at_deploy_time() -> None:
    (flow,) = _instances(_flow("pipeline_identity", ""))  # implicit `deploy flow main`
    metronome = next(c for c in flow.connectors if c.alias == "metronome")
    assert metronome.params["config"] == {"interval": 1_000_000}


def test_main_with_required_args_is_not_deployed_implicitly() -> None:
    # Tremor takes such args from an archive config; a plain file only gets its definitions checked.
    assert _instances(_flow("nested_with", "")) == ()


def test_pipeline_with_overrides_default() -> None:
    (flow,) = _instances(_flow("pipeline_with", ""))
    assert flow.pipelines[0].args == {"snot": "snot"}


@pytest.mark.parametrize(
    ("deploy", "message"),
    [
        ("deploy flow main;", "Missing required argument: ival"),
        ("deploy flow main with ival = 1, x = 2 end;", "Unknown argument: x"),
        (
            "deploy flow nope;",
            "Artefact `nope` is not defined or not found, the following are defined: main",
        ),
    ],
)
def test_deploy_arg_errors(deploy: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        _instances(_flow("args_in_create", deploy))
    assert info.value.message == message


def test_create_with_unknown_param() -> None:
    text = (
        "define flow f flow define connector e from exit; create connector e with x = 1 end; "
        "end; deploy flow f;"
    )
    with pytest.raises(CompileError) as info:
        _instances(text)
    assert info.value.message.startswith('`with` parameter "x" does not correspond')


def test_create_of_undefined_artefact() -> None:
    with pytest.raises(CompileError) as info:
        _instances("define flow f flow create connector nope; end; deploy flow f;")
    assert "Artefact `nope` is not defined" in info.value.message


def test_builtin_artefacts() -> None:
    text = (
        "define flow f flow use tremor::connectors; use tremor::pipelines; "
        "create connector stop from connectors::exit; create connector console from "
        "connectors::console; create pipeline pass from pipelines::passthrough; "
        "connect /connector/console to /pipeline/pass; connect /pipeline/pass to /connector/stop;"
        " end; deploy flow f;"
    )
    (flow,) = _instances(text)
    assert [(c.alias, c.kind) for c in flow.connectors] == [("stop", "exit"), ("console", "stdio")]
    assert flow.pipelines[0].alias == "pass"


@pytest.mark.parametrize("case", FLOWS, ids=lambda p: p.name)
def test_conformance_flows_check(case: Path) -> None:
    source = read_source(case / "flow.troy")
    tree = parse_deploy(source)
    if (case / "config.json").exists():
        return  # needs its args (the runner appends them)
    assert check_deploy(tree, source, new_elaboration()) is tree
