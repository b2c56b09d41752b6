"""One fixture file per script pass and per elaboration step (tests/fixtures/passes/<name>.txt):
hand-written input and expected output (or expected error) pairs, run through the real pass.

Format: ``=== title``, the input, then ``--- output`` and the expected text, or ``--- error`` and
``LINE:COLUMN message`` (where the error's caret starts). A script pass runs after the passes
before it in :data:`compiler.pipeline.PASSES` and its output is printed one top-level item a
line in the notation of :func:`show` (``use`` items omitted). Elaboration steps print their IR
with :func:`show_ir`. Lines before the first case are the file's comment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compiler.ast import script as S
from compiler.diagnostics import CompileError
from compiler.ir import flow as F
from compiler.ir import graph as G
from compiler.parse.script import parse_script
from compiler.pipeline import PASSES, check_program, new_elaboration
from compiler.source import Source
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "passes"
PASS_NAMES = tuple(name for name, _ in PASSES)
STEPS = {"elab_script": "script", "elab_query": "query", "elab_deploy": "deploy"}
SUFFIX = {"script": ".tremor", "query": ".trickle", "deploy": ".troy"}


@dataclass(frozen=True)
class Case:
    title: str
    text: str
    kind: str  # "output" or "error"
    expected: str


def read_cases(path: Path) -> list[Case]:
    """The cases of one fixture file (see the module docstring)."""
    cases: list[Case] = []
    title, lines, mode, expected = "", [], "", []
    for line in [*path.read_text(encoding="utf-8").splitlines(), "=== "]:
        if line.startswith("=== "):
            if title:
                cases.append(Case(title, "\n".join(lines), mode, "\n".join(expected).strip()))
            title, lines, mode, expected = line[4:].strip(), [], "", []
        elif not title:
            continue  # the file's header comment
        elif line in ("--- output", "--- error"):
            mode = line[4:]
        elif mode:
            expected.append(line)
        else:
            lines.append(line)
    return cases


def show(node: Any) -> str:
    """A compact, readable rendering of a (resolved, folded) script node: calls print their
    absolute module, constants ``const X`` (or ``const m::X``), other nodes their repr."""
    if isinstance(node, S.Literal):
        return json.dumps(node.value)
    if isinstance(node, S.ArrayLit):
        return "[" + ", ".join(show(i) for i in node.items) + "]"
    if isinstance(node, S.RecordLit):
        return "{" + ", ".join(f"{show(f.key)}: {show(f.value)}" for f in node.fields) + "}"
    if isinstance(node, S.StringInterp):
        parts = (json.dumps(p)[1:-1] if type(p) is str else f"#{{{show(p)}}}" for p in node.parts)
        return '"' + "".join(parts) + '"'
    if isinstance(node, S.Path):
        return _path(node)
    if isinstance(node, S.Call):
        return "::".join((*node.module, node.name)) + "(" + ", ".join(map(show, node.args)) + ")"
    if isinstance(node, S.Binary):
        return f"({show(node.left)} {node.op} {show(node.right)})"
    if isinstance(node, S.Unary):
        return f"({node.op} {show(node.operand)})"
    if isinstance(node, S.Let):
        return f"let {show(node.target)} = {show(node.value)}"
    if isinstance(node, S.Const):
        return f"const {'::'.join((*node.module, node.name))} = {show(node.value)}"
    if isinstance(node, S.Emit):
        port = f" => {show(node.port)}" if node.port is not None else ""
        return f"emit {show(node.value) if node.value is not None else 'event'}{port}"
    if isinstance(node, S.Drop):
        return "drop"
    return repr(node)


def _path(node: S.Path) -> str:
    segs = "".join(_segment(s) for s in node.segments)
    if node.root == "local":
        return f"{node.name}{segs}"
    if node.root == "const":
        return f"const {'::'.join((*node.module, node.name or ''))}{segs}"
    if node.root == "expr":
        return f"({show(node.expr)}){segs}"
    return f"{node.root}{segs}"


def _segment(seg: S.Segment) -> str:
    if isinstance(seg, S.FieldSeg):
        return f".{seg.name}"
    if isinstance(seg, S.IndexSeg):
        return f"[{show(seg.index)}]"
    assert isinstance(seg, S.RangeSeg)
    return f"[{show(seg.start)}:{show(seg.end)}]"


def show_ir(ir: Any) -> str:
    """Ports, nodes (name and kind, plus args/config values), links and connections."""
    if isinstance(ir, G.ScriptGraph):
        return f"ports {' '.join(ir.ports)}\nstateful {str(ir.stateful).lower()}"
    if isinstance(ir, G.PipelineGraph):
        return "\n".join(_graph_lines(ir, ""))
    assert isinstance(ir, F.Deployment)
    lines: list[str] = []
    for flow in ir.flows:
        lines.append(f"flow {flow.alias}")
        for c in flow.connectors:
            lines.append(f"  connector {c.alias} {c.kind} {json.dumps(c.params, sort_keys=True)}")
        for p in flow.pipelines:
            lines.append(f"  pipeline {p.alias}")
            lines.extend(_graph_lines(p.graph, "    "))
        for conn in flow.connections:
            lines.append(f"  connect {_end(conn.source)} -> {_end(conn.target)}")
    return "\n".join(lines)


def _end(end: Any) -> str:
    if isinstance(end, F.ConnectorEnd):
        return f"connector {end.connector}/{end.port}"
    return f"pipeline {end.pipeline}/{end.port}"


def _graph_lines(graph: G.PipelineGraph, indent: str) -> list[str]:
    lines = [f"{indent}in {' '.join(p for p, _ in graph.inputs)}"]
    lines.append(f"{indent}out {' '.join(p for p, _ in graph.outputs)}")
    for node in graph.nodes:
        lines.append(indent + _node(node))
    for link in graph.links:
        (a, ap), (b, bp) = link.source, link.target
        lines.append(f"{indent}link {a}/{ap} -> {b}/{bp}")
    return lines


def _node(node: G.GraphNode) -> str:
    if isinstance(node, G.PortNode):
        return f"node {node.name} port {node.direction}"
    if isinstance(node, G.ScriptNode):
        state = f" state {json.dumps(node.state.value)}" if node.state is not None else ""
        return f"node {node.name} script args {json.dumps(node.args, sort_keys=True)}{state}"
    if isinstance(node, G.OperatorNode):
        routes = " routes-only" if node.routes_only else ""
        routes += " assumes-no-input-meta" if node.assumes_no_input_meta else ""
        routes += " flush-transparent" if node.flush_transparent else ""
        config = json.dumps(node.config, sort_keys=True)
        return f"node {node.name} operator {node.kind}{routes} {config}"
    if isinstance(node, G.SelectNode):
        windows = "".join(f" [{w.name} {w.kind} {json.dumps(w.amount)}]" for w in node.windows)
        target = show(node.target.script.items[-1])
        return f"node {node.name} select {target}{windows}"
    return f"node {node.name} {type(node).__name__}"


def run_pass(name: str, text: str) -> str:
    """``text`` as a .tremor file through the passes up to and including ``name``."""
    source = Source("t.tremor", text)
    elab = new_elaboration()
    script = parse_script(source)
    for pass_name, run in PASSES:
        script = run(script, source, elab)
        if pass_name == name:
            break
    if name == "warnings":
        return "\n".join(
            f"{_position(source, w.span.start)} {w.kind}: {w.message}"
            for w in elab.sorted_warnings(source)
        )
    return "\n".join(show(i) for i in script.items if not isinstance(i, S.Use))


def run_step(step: str, text: str) -> str:
    """``text`` through one language's elaboration step; its IR rendered by :func:`show_ir`."""
    kind = STEPS[step]
    return show_ir(check_program(Source("t" + SUFFIX[kind], text), kind).ir)


def _position(source: Source, offset: int) -> str:
    line = source.text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (source.text.rfind(chr(10), 0, offset) + 1) + 1}"


def _all_cases() -> list[Any]:
    params = []
    for name in (*PASS_NAMES, *STEPS):
        for case in read_cases(FIXTURES / f"{name}.txt"):
            params.append(pytest.param(name, case, id=f"{name}: {case.title}"))
    return params


def test_every_pass_and_step_has_a_fixture_file() -> None:
    names = {p.stem for p in FIXTURES.glob("*.txt")}
    assert names == {*PASS_NAMES, *STEPS}
    for name in names:
        cases = read_cases(FIXTURES / f"{name}.txt")
        assert len(cases) >= 3, name
        assert all(c.kind in ("output", "error") for c in cases), name


@pytest.mark.parametrize(("name", "case"), _all_cases())
def test_fixture(name: str, case: Case) -> None:
    run = run_step if name in STEPS else run_pass
    if case.kind == "output":
        assert run(name, case.text).strip() == case.expected
        return
    with pytest.raises(CompileError) as info:
        run(name, case.text)
    err = info.value
    assert err.span is not None and err.source is not None
    got = f"{_position(err.source, err.span.start)} {err.message}"
    assert got == case.expected
