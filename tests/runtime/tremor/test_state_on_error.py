"""``state`` changes made before a runtime error persist, as in Tremor (state mutates in place)."""

from __future__ import annotations

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events

PROGRAM = """\
let state = match state of
  case null => {"n": 0}
  case _ => state
end;
let state.n = state.n + 1;
match event of
  case "boom" => event.missing
  case _ => state.n
end
"""


def _outputs(program: str, events: list[object]) -> list[tuple[str, object]]:
    graph = load_job(compile_source(Source("s.tremor", program), "script").job, "s").GRAPH
    stream = [("in", i, e, i, None) for i, e in enumerate(events)]
    return [(port, value) for _, _, port, value in run_events(graph, stream)]


def test_state_survives_an_error() -> None:
    out = _outputs(PROGRAM, ["a", "boom", "b"])
    assert out[0] == ("out", 1)
    assert out[1][0] == "err" and out[1][1]["event"] == "boom"
    assert out[2] == ("out", 3)  # the failed event's increment is kept


def test_scripts_that_never_assign_state_are_not_wrapped() -> None:
    job = compile_source(Source("p.tremor", "event"), "script").job
    assert "err.state" not in job
