"""A stream whose fused run is a chain (``fused.fused_chains``) runs through the stage's
chain loop (``stages._Runner._feed_chain``); its rows are the rows the graph's general run gives
for the same input rows: events that emit, drop, fail, go to ``err``, lines that are no events,
a codec's error mark, a connector's ``err`` record, the end-of-input signal."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.fused import ForwardStep, SelectStep
from runtime_support.spark.input_lines import CODEC_ERROR, SOURCE_ERROR
from runtime_support.spark.stages import _Runner
from runtime_support.tremor.builtin_operators import BucketRoute

TWO_SCRIPTS = """
define script classify
script
  match event of
    case %{ kind == "drop" } => drop
    case %{ kind == "error" } => emit event => "err"
    case %{ present n } => let event.n = event.n + 1; emit event
    case _ => event.missing
  end
end;
define script count
script
  use tremor::system;
  match event of
    case %{ kind == "late" } => emit event => "err"
    case _ => {"event": event, "at": system::ingest_ns()}
  end
end;
create script classify;
create script count;
select event from in into classify;
select event from classify into count;
select event from classify/err into err;
select event from count into out;
select event from count/err into err;
"""

ONE_SCRIPT = """
define script s
script
  match event of
    case %{ kind == "drop" } => drop
    case %{ kind == "error" } => emit event => "err"
    case %{ present n } => patch event of upsert "n" => event.n * 2 end
    case _ => event.missing
  end
end;
create script s;
select event from in into s;
select event from s into out;
select event from s/err into err;
"""

ROUTED = """
define script classify
script
  match event of
    case %{ kind == "drop" } => drop
    case %{ kind == "error" } => emit event => "err"
    case %{ present n } => let $class = "c"; let $rate = 10; let event.n = event.n + 1; emit event
    case _ => event
  end
end;
define operator bucket from grouper::bucket;
create script classify;
create operator bucket;
select event from in into classify;
select event from classify into bucket;
select event from classify/err into err;
select event from bucket into out;
select event from bucket/overflow into out;
select event from bucket/err into err;
"""

SELECTED = """
define script s
script
  match event of
    case %{ kind == "error" } => emit event => "err"
    case %{ kind == "drop" } => drop
    case _ => {"in": event}
  end
end;
create script s;
select event from in where event.n > 1 group by event.kind into s having event.n != 3;
select event from s into out;
select event from s/err into err;
"""

FORWARD = "select event from in into out;"  # no node left: the stream links to `out`

GROUPED = """
define script s
script
  match event of
    case %{ kind == "error" } => emit event => "err"
    case _ => event
  end
end;
create script s;
select event from in group by event.kind into s;
select event from s into out;
select event from s/err into err;
"""  # the select only checks its group (SelectStep._checked_event)

LINES: list[Any] = [
    b'{"n": 1}',
    b'{"kind": "drop"}',
    b'{"kind": "error", "n": 3}',
    b'{"kind": "late", "n": 3}',
    b'{"other": true}',
    b'{"n": "x"}',
    b"not json",
    b"",
    b"\xff\xfe",
    b'{"n": 18446744073709551616}',
    b"[" * 300 + b"]" * 300,
    (CODEC_ERROR + '{"error": "bad chunk", "event": "x"}').encode(),
    b'{"n": 18446744073709551615}',
    b"[1, 2.5, -0]",
    None,
    b'{"n": 4}',
    b'{"kind": "error", "n": 5}',
    b'{"kind": "a", "n": 2}',
    b'{"kind": "drop", "n": 7}',
]


def _runner(program: str) -> _Runner:
    job = load_job(compile_source(Source("chain.trickle", program), "query").job, "chain")
    return _Runner(job.GRAPH, job.STAGES, 0)


def _columns(lines: list[Any], origins: list[Any]) -> dict[str, list[Any]]:
    count = len(lines)
    return {
        "stream": ["in"] * count,
        "seq": list(range(count)),
        "value": lines,
        "ingest_ns": [None if i % 3 == 0 else 1000 + i for i in range(count)],
        "origin": origins,
    }


@pytest.mark.parametrize(
    "program",
    [TWO_SCRIPTS, ONE_SCRIPT, ROUTED, SELECTED, GROUPED, FORWARD],
    ids=["two scripts", "one script", "routed", "select first", "group only", "forward"],
)
@pytest.mark.parametrize("with_source_error", [False, True], ids=["lines", "source error"])
def test_a_chain_gives_the_general_run_s_rows(program: str, with_source_error: bool) -> None:
    origins: list[Any] = [None] * len(LINES)
    lines = list(LINES)
    if with_source_error:
        origins[3] = SOURCE_ERROR
        lines[3] = b'{"error": "connector failed", "event": "x"}'
    chained, general = _runner(program), _runner(program)
    assert "in" in chained.chains
    if program is ROUTED:  # the bucket, proven routing-only, is the chain's second step
        assert type(chained.chains["in"][1].op) is BucketRoute
    if program in (SELECTED, GROUPED):  # the select (one group per event) is the first step
        assert type(chained.chains["in"][0].op) is SelectStep
    if program is FORWARD:
        assert type(chained.chains["in"][0].op) is ForwardStep
    general.fused, general.chains = {}, {}
    for runner in (chained, general):
        for _ in range(2):
            runner.feed_source(_columns(lines, origins))
    got, expected = chained.take().to_pydict(), general.take().to_pydict()  # the rows emitted
    assert got == expected
    assert {"out", "err"} <= set(got["target"])
    if program in (SELECTED, GROUPED):  # failed in `where` (no `n`) or `group by` (no `kind`)
        assert "error_log" in got["target"]
    assert chained.seen and general.seen


def test_a_fan_out_or_a_select_of_several_groups_is_no_chain() -> None:
    fan_out = ONE_SCRIPT + "select event from s into err;\n"
    assert _runner(fan_out).chains == {}
    each = "select event from in group by each(event.tags) into out;"
    assert _runner(each).chains == {}
