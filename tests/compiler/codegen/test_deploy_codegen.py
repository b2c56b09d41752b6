"""Troy code generation: deterministic jobs, graph/FlowSpec shape, connect errors."""

from __future__ import annotations

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from tests.support.paths import CONFORMANCE, ROOT


def _job(text: str) -> str:
    return compile_source(Source("t.troy", text), "deploy").job


def test_build_is_deterministic() -> None:
    text = (ROOT / "examples" / "file_flow" / "flow.troy").read_text()
    assert _job(text) == _job(text)


def test_flow_spec_and_graph() -> None:
    text = (CONFORMANCE / "flows" / "pipeline_with" / "flow.troy").read_text()
    module = load_job(_job(text), "pipeline_with")
    kinds = [c.kind for c in module.FLOW.connectors]
    assert kinds == ["metronome", "exit"]
    assert module.FLOW.sources == ((0, "out", "main/metronome/out"),)
    assert module.FLOW.sinks == (("main/exit/in", 1, "in"),)
    assert module.GRAPH.inputs == ("main/metronome/out",)
    assert callable(module.main)


def test_connect_to_unknown_port() -> None:
    text = (
        "define flow f flow define connector e from exit; define pipeline p pipeline "
        "select event from in into out; end; create connector e; create pipeline p; "
        "connect /pipeline/p/nope to /connector/e; end; deploy flow f;"
    )
    with pytest.raises(CompileError) as info:
        _job(text)
    assert info.value.message == "Query `p` does not have port `nope`"
