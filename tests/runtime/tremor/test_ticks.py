"""Ticks: Tremor's on_tick rule for windowed selects and ``generic::batch``, and the final
end-of-input tick (now = u64::MAX) that batch jobs send unless told not to."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from compiler.testing.runner import run_job_on_lines
from runtime_support.tremor.graph import END_OF_INPUT, Graph, GraphSpec, run_events

INTERVAL = """\
define window w from tumbling with interval = 3 end;
select {"g": group[0], "xs": aggr::win::collect_flattened(event.x)} from in[w]
group by event.g into out;
"""

TICK_SCRIPT = """\
define window w from tumbling
state 0
script from tick
  state > 0
script
  let state = state + 1;
  false
end;
select {"n": aggr::stats::count(), "w": window} from in[w] into out;
"""

BATCH = """\
define operator b from generic::batch with count = 10, timeout = 100 end;
create operator b;
select event from in into b;
select event from b into out;
"""

SIZE = """\
define window w from tumbling with size = 2 end;
select aggr::win::collect_flattened(event) from in[w] into out;
"""


def _job(program: str) -> str:
    return compile_source(Source("t.trickle", program), "query").job


def _graph(program: str) -> GraphSpec:
    return load_job(_job(program), "t").GRAPH


def _run(spec: GraphSpec, values: list[Any], now: int | None = END_OF_INPUT):
    """Outputs of the events (ingest_ns = index), then of one tick at ``now``."""
    graph = Graph(spec)
    events = [("in", i, value, i, None) for i, value in enumerate(values)]
    during = [value for _, _, _, value in run_events(spec, events, graph)]
    ticked = [value for _, value in graph.tick(now)] if now is not None else []
    return during, ticked


def test_end_tick_closes_the_last_interval_window_of_every_group() -> None:
    values = [{"g": i % 2, "x": i} for i in range(8)]
    during, ticked = _run(_graph(INTERVAL), values)
    # group 0 starts at 0 (next 3): 4 closes [0, 2]; group 1 starts at 1 (next 4): 5 closes [1, 3]
    assert during == [{"g": 0, "xs": [0, 2]}, {"g": 1, "xs": [1, 3]}]
    # groups tick in creation order
    assert ticked == [{"g": 0, "xs": [4, 6]}, {"g": 1, "xs": [5, 7]}]


def test_a_tick_before_the_interval_ends_emits_nothing() -> None:
    spec = _graph(INTERVAL)
    graph = Graph(spec)
    list(run_events(spec, [("in", 0, {"g": 0, "x": 0}, 10, None)], graph))
    assert graph.tick(12) == []
    assert graph.tick(13) == [("out", {"g": 0, "xs": [0]})]
    assert graph.tick(END_OF_INPUT) == []  # the group left with its last emission


def test_tick_script_window() -> None:
    during, ticked = _run(_graph(TICK_SCRIPT), [1, 2, 3])
    assert during == []
    assert ticked == [{"n": 3, "w": "w"}]


def test_timed_batch_flushes_on_a_tick_past_the_timeout() -> None:
    spec = _graph(BATCH)
    assert _run(spec, [{"n": i} for i in range(3)], now=99) == ([], [])
    assert _run(spec, [{"n": i} for i in range(3)], now=100) == ([], [{"n": 0}, {"n": 1}, {"n": 2}])
    assert _run(spec, [{"n": 0}]) == ([], [{"n": 0}])


def test_size_windows_ignore_ticks() -> None:
    assert _run(_graph(SIZE), [0, 1, 2]) == ([[0, 1]], [])


@pytest.mark.spark
def test_jobs_flush_at_end_unless_told_not_to(spark) -> None:
    from runtime_support.spark.plan import ordered_union

    module = load_job(_job(INTERVAL), "t")
    rows = [(i, f'{{"g":0,"x":{i}}}', i) for i in range(5)]
    df = spark.createDataFrame(rows, "seq long, value string, ingest_ns long")

    def values(flush: bool) -> list[str]:
        out = ordered_union(module.run_pipeline(spark, {"in": df}, flush_at_end=flush))
        return [row.value for row in out.collect()]

    assert values(False) == ['{"g":0,"xs":[0,1,2]}']
    assert values(True) == ['{"g":0,"xs":[0,1,2]}', '{"g":0,"xs":[3,4]}']
    # the conformance runner never ticks, as Tremor's harness
    lines = [f'{{"g":0,"x":{i}}}' for i in range(5)]
    assert run_job_on_lines(_job(INTERVAL), "t", lines) == [("out", {"g": 0, "xs": [0, 1, 2]})]


@pytest.mark.spark
def test_job_cli_no_flush(spark, tmp_path) -> None:
    module = load_job(_job(INTERVAL), "t")
    source = tmp_path / "in.json"
    source.write_text("".join(f'{{"g":0,"x":{i}}}\n' for i in range(5)))

    def run(*flags: str) -> list[str]:
        target = tmp_path / "out"
        args = ["-i", str(source), "-o", str(target), "--ingest-ns", "index", *flags]
        assert module.main(args) == 0
        return [line for part in sorted(target.glob("out/part-*")) for line in part.open()]

    assert run() == ['{"g":0,"xs":[0,1,2]}\n', '{"g":0,"xs":[3,4]}\n']
    assert run("--no-flush") == ['{"g":0,"xs":[0,1,2]}\n']
