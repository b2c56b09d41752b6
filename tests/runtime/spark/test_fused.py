"""Fused runs (runtime_support/spark/fused.py) give what the graph's general run gives: the same
outputs, in the same order, for events that emit, drop, fail, fan out and keep script state."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.fused import fused_runs
from runtime_support.tremor.graph import Event, Graph
from runtime_support.tremor.jsonio import encode_json

CHAIN = """
define script classify
script
  match event of
    case %{ kind == "drop" } => drop
    case %{ kind == "twice" } => emit {"first": event} => "out"
    case %{ kind == "error" } => emit event => "err"
    case %{ present n } => let event.n = event.n + 1; emit event
    case _ => event.missing
  end
end;
define script count
state
  0
script
  let state = state + 1;
  let $class = "all";
  let $rate = 1;
  {"event": event, "seen": state}
end;
define operator limit from grouper::bucket;
create script classify;
create script count;
create operator limit;
select event from in into classify;
select event from classify into count;
select event from classify/err into err;
select event from count into limit;
select event from count/err into err;
select event from limit into out;
select event from limit/overflow into out;
select event from limit/err into err;
"""

FAN_OUT = """
define script s
script
  match event of
    case %{ present bad } => event.bad + 1
    case _ => patch event of insert "seen" => true end
  end
end;
create script s;
select event from in into s;
select event from s into out;
select event from s/err into err;
select event from s/err into out;
"""

SELECT_FIRST = """
define script s
script
  match event of
    case %{ kind == "error" } => emit event => "err"
    case _ => {"in": event}
  end
end;
create script s;
select event from in group by event.kind into s;
select event from s into out;
select event from s/err into err;
"""

SELECT_EACH = """
select {"got": event, "group": group}
from in where event.n > 0 group by each(event.tags)
into out having event.got.n != 3;
"""

NOT_FUSED = """
define script s
script
  event
end;
create script s;
select event from in into s;
select event from s where event.n > 1 into out;
"""

EVENTS: list[Any] = [
    {"kind": "drop"},
    {"kind": "twice", "n": 1},
    {"kind": "error"},
    {"n": 41},
    {"n": "x"},
    {"other": True},
    {"bad": 1},
    {"bad": "one"},
    {"seen": 1},
    {"n": 2, "tags": ["a", "b", "a"]},
    {"n": 3, "tags": ["a"]},
    {"n": 4, "tags": []},
    {"n": 5, "tags": "a"},
    {"n": 0, "tags": ["a"]},
    {"n": True, "tags": ["a"]},
    [1, 2],
    "text",
    3.5,
]


def _graph_of(program: str) -> Any:
    job = compile_source(Source("fused.trickle", program), "query").job
    return load_job(job, "fused_test").GRAPH


def _outputs(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, str]]:
    return [(name, encode_json(value)) for name, value in pairs]


@pytest.mark.parametrize(
    "program",
    [CHAIN, FAN_OUT, SELECT_FIRST, SELECT_EACH],
    ids=["chain", "fan-out", "select first", "select each"],
)
def test_a_fused_run_gives_the_general_run_s_outputs(program: str) -> None:
    spec = _graph_of(program)
    fused_graph, general = Graph(spec), Graph(spec)
    run = fused_runs(fused_graph)["in"]
    seen = set()
    for index, value in enumerate(EVENTS * 2):
        meta: dict[str, Any] = {}
        fused = _outputs(run(_copy(value), meta, index, None))
        expected = _outputs(general.push("in", Event(_copy(value), {}, index, None)))
        assert fused == expected, value
        seen.update(name for name, _ in fused)
    if program is SELECT_EACH:  # emitted, filtered, failed (where, group by, missing key)
        assert {"out", "error_log"} <= seen
        return
    assert {"out", "err"} <= seen  # both ports were reached
    if program is SELECT_FIRST:  # events without `kind` fail the select: its error output
        assert "error_log" in seen


def test_script_state_is_the_graph_s_own() -> None:
    graph = Graph(_graph_of(CHAIN))
    run = fused_runs(graph)["in"]
    for n in range(3):
        run({"n": n}, {}, n, None)
    assert graph.ops["count"].state == 3


def test_a_graph_with_another_node_kind_is_not_fused() -> None:
    assert fused_runs(Graph(_graph_of(NOT_FUSED))) == {}


def test_a_counted_graph_is_not_fused() -> None:
    spec = _graph_of(FAN_OUT)
    counted = type(spec)(**{**spec.__dict__, "counted": True})
    assert fused_runs(Graph(counted)) == {}


def _copy(value: Any) -> Any:
    """A fresh top level (a script may change its event in place)."""
    if isinstance(value, dict):
        return {**value}
    return list(value) if isinstance(value, list) else value
