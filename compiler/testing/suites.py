"""Std-lib style unit suites: ``test::suite({"name", "tags", "tests": [test::test({...})]})``.

Like ``tremor test unit``, suites are found statically among the top-level expressions. Every test
becomes its own script node in one generated job (``in`` fans out to all of them), so a failing
test only affects itself; a test passes when its value is exactly ``true``.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from ..ast import script as S
from ..blackfmt import black_format
from ..codegen.build import SCRIPT_NODE_IMPORTS
from ..codegen.graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from ..codegen.job import JobParts, render_job
from ..codegen.stages import job_graph, plan_context
from ..diagnostics import CompileError
from ..pipeline import parse, read_source, script_passes
from ..plan import plan_of
from ..source import Source
from .runner import CaseResult, run_job_on_lines


def _is_call(node: object, module: str, name: str) -> bool:
    return isinstance(node, S.Call) and node.module[-1:] == (module,) and node.name == name


def _field(record: S.RecordLit, key: str) -> S.Expr | None:
    for f in record.fields:
        if isinstance(f.key, S.Literal) and f.key.value == key:
            return f.value
    return None


def find_tests(script: S.Script) -> list[tuple[str, str, S.Expr]]:
    """``(suite name, test name, test expression)`` for every statically declared test."""
    found = []
    for item in script.items:
        if not _is_call(item, "test", "suite") or not item.args:
            continue
        suite = item.args[0]
        if not isinstance(suite, S.RecordLit) or _field(suite, "tags") is None:
            continue
        suite_name = _field(suite, "name")
        tests = _field(suite, "tests")
        if not isinstance(tests, S.ArrayLit):
            continue
        for test in tests.items:
            if not _is_call(test, "test", "test") or not test.args:
                continue
            spec = test.args[0]
            if not isinstance(spec, S.RecordLit):
                continue
            name, body = _field(spec, "name"), _field(spec, "test")
            if isinstance(name, S.Literal) and body is not None:
                label = suite_name.value if isinstance(suite_name, S.Literal) else "suite"
                found.append((str(label), str(name.value), body))
    return found


def build_suite_job(script: S.Script, source: Source) -> tuple[str, list[tuple[str, str]]]:
    """One job with a script node per test; returns the job text and ``(suite, test)`` labels."""
    from ..codegen.pyscript import generate_script

    prelude = tuple(i for i in script.items if not isinstance(i, S.Expr) or isinstance(i, S.Const))
    tests = find_tests(script)
    nodes, links, blocks, sources, imports = [], [], [], [("SOURCE", repr(source.text))], set()
    ports: list[str] = []
    for index, (_, _, body) in enumerate(tests):
        program = dataclasses.replace(script, items=(*prelude, body))
        checked = script_passes(program, source)
        generated = generate_script(checked, source, prefix=f"test{index}")
        imports.update(generated.imports)
        blocks.append(generated.code)
        sites = f"TEST{index}_SITES"
        sources.append((sites, repr(generated.sites)))
        node = f"test{index}"
        factory = f"partial(script_operator, {generated.entry}, SOURCE, {sites})"
        nodes.append(NodeCode(name=node, factory=factory, stateful=False))
        links.append((("in", "out"), (node, "in")))
        for port, out in (("out", f"t{index}"), ("err", f"e{index}")):
            links.append(((node, port), (output_node(out), "in")))
            ports.append(out)
    graph = graph_expr(
        inputs=("in",), output_ports=tuple(ports), nodes=tuple(nodes), links=tuple(links)
    )
    parts = JobParts(
        source_name=source.name,
        imports=(*sorted(imports), *GRAPH_IMPORTS, *SCRIPT_NODE_IMPORTS),
        sources=tuple(sources),
        blocks=tuple(blocks),
        graph=graph,
        plan=plan_context(
            plan_of(
                job_graph(
                    streams=("in",),
                    output_ports=tuple(ports),
                    nodes=tuple(nodes),
                    links=tuple(links),
                )
            )
        ),
    )
    return black_format(render_job(parts, "suite.py")), [(suite, name) for suite, name, _ in tests]


def run_suite_file(path: Path, pattern: str | None = None) -> list[CaseResult]:
    """Run every test of the suite file; one CaseResult per test."""
    category = path.stem
    try:
        source = read_source(path)
        script = parse(source, "script")
        assert isinstance(script, S.Script)
        job, labels = build_suite_job(script, source)
    except CompileError as err:
        return [CaseResult(path.name, category, "suite", False, "compile error:\n" + err.render())]
    started = time.perf_counter()
    emitted = run_job_on_lines(job, path.name, ["{}"])
    seconds = round((time.perf_counter() - started) / max(1, len(labels)), 3)
    by_port = dict(emitted)
    results = []
    for index, (suite, name) in enumerate(labels):
        if pattern and pattern not in name:
            continue
        value = by_port.get(f"t{index}", by_port.get(f"e{index}"))
        passed = value is True
        reason = "" if passed else f"got {value!r}"
        results.append(CaseResult(f"{suite}: {name}", category, "suite", passed, reason, seconds))
    return results
