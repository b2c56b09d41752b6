"""The job graph run in one thread (runtime_support/tremor/graph.py): a failing operator ends its
event as in ``tremor-pipeline/src/executable_graph.rs`` (an operator error clears the event's
stack); a script port named ``error`` is no failure."""

from __future__ import annotations

from typing import Any

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events


def _run(program: str, events: list[Any], kind: str = "query") -> list[tuple[str, Any]]:
    job = compile_source(Source(f"p.{'trickle' if kind == 'query' else 'tremor'}", program), kind)
    graph = load_job(job.job, "p").GRAPH
    stream = [("in", i, e, i, None) for i, e in enumerate(events)]
    return [(port, value) for _, _, port, value in run_events(graph, stream)]


def test_where_error_then_success() -> None:
    # Tremor's branch_error_then_ok: the last-connected select runs first; its error clears the
    # stack, so the first select never sees the failed event; the next event is unaffected.
    program = (
        'select event from in where event.format == "valid" into out;\n'
        'select event from in where event.format != "valid" into err;\n'
    )
    out = _run(program, [{}, {"format": "valid"}])
    assert [p for p, _ in out] == ["error_log", "out"]
    assert "    2 | select event from in where event.format != " in out[0][1]["error"]
    assert out[1] == ("out", {"format": "valid"})


def test_outputs_before_the_failure_are_kept_later_branches_dropped() -> None:
    program = (
        "select event from in into out;\n"
        "select event.x + 1 from in into out;\n"
        'select {"third": event} from in into out;\n'
    )
    out = _run(program, [{"x": "a"}, {"x": 1}])
    # event 1: branch 3 ran (first), branch 2 failed, branch 1 never ran
    assert out[0] == ("out", {"third": {"x": "a"}})
    assert out[1][0] == "error_log" and "    2 | " in out[1][1]["error"]
    # event 2: all three, in link order
    assert out[2:] == [("out", {"x": 1}), ("out", 2), ("out", {"third": {"x": 1}})]


def test_a_script_port_named_error_is_not_a_failure() -> None:
    program = (
        'define script s script emit event => "error" end;\n'
        "create script s;\n"
        "select event from in into out;\n"
        "select event from in into s;\n"
        'select {"via": event} from s/error into out;\n'
    )
    assert _run(program, [1]) == [("out", 1), ("out", {"via": 1})]
