"""tremorc's window extensions (README "Window extensions"): sliding, session and event-time
windows, through compiled programs. Every expected output below is worked out by hand in the
comments, from the definitions in the README, not from the code under test."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program, compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import END_OF_INPUT, Graph, run_events
from runtime_support.tremor.windows import WindowSpec
from runtime_support.tremor.windows_ext import ExtWindow
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "windows_ext"
COLLECT = "select aggr::win::collect_flattened(event.x) from in[w] into out;\n"
GROUPED = (
    'select {"g": group[0], "xs": aggr::win::collect_flattened(event.x)} from in[w] '
    "group by event.g into out;\n"
)


def _job(program: str) -> Any:
    return load_job(compile_source(Source("t.trickle", program), "query").job, "t")


def _run(program: str, rows: list[tuple[int, Any]], ticks: tuple[int, ...] = (END_OF_INPUT,)):
    """``rows`` are ``(ingest_ns, value)``; the outputs ``(port, value)`` of the events, then
    of each tick in turn."""
    spec = _job(program).GRAPH
    graph = Graph(spec)
    events = [("in", i, value, ns, None) for i, (ns, value) in enumerate(rows)]
    during = [(name, value) for _, _, name, value in run_events(spec, events, graph)]
    return during, [graph.tick(now) for now in ticks]


def _xs(values: list[int]) -> list[tuple[int, Any]]:
    """Events ``{"x": v}`` with ingest time ``v``."""
    return [(v, {"x": v}) for v in values]


# -- sliding, by count --------------------------------------------------------------------------

SLIDING_COUNT = "define window w from sliding with size = 3, slide = 2 end;\n" + COLLECT


def test_sliding_count_opens_every_slide_and_emits_full_windows_with_the_event() -> None:
    # windows start at events 0, 2, 4, 6: [0,1,2] emits on 2, [2,3,4] on 4, [4,5,6] on 6;
    # [6] (and [6, 7] after it) is not full: ticks never flush count windows
    during, (ticked,) = _run(SLIDING_COUNT, _xs(list(range(8))))
    assert during == [("out", [0, 1, 2]), ("out", [2, 3, 4]), ("out", [4, 5, 6])]
    assert ticked == []


def test_sliding_count_is_per_group() -> None:
    program = "define window w from sliding with size = 2, slide = 1 end;\n" + GROUPED
    rows = [(i, {"g": g, "x": i}) for i, g in enumerate("abaab")]
    # a: 0, 2, 3 -> [0,2] on 2, [2,3] on 3; b: 1, 4 -> [1,4] on 4
    during, _ = _run(program, rows)
    assert [v for _, v in during] == [
        {"g": "a", "xs": [0, 2]},
        {"g": "a", "xs": [2, 3]},
        {"g": "b", "xs": [1, 4]},
    ]


# -- sliding, by time ---------------------------------------------------------------------------

SLIDING_TIME = "define window w from sliding with interval = 4, slide = 2 end;\n" + COLLECT


def test_sliding_time_windows_are_aligned_and_close_earliest_first() -> None:
    # windows [2k, 2k+4); t=0,1 -> [-2,2) and [0,4); t=2 closes [-2,2) = [0,1] (the closing
    # event excluded); t=4 closes [0,4) = [0,1,2,3]; the end tick closes [2,6) then [4,8)
    during, (ticked,) = _run(SLIDING_TIME, _xs([0, 1, 2, 3, 4, 5]))
    assert during == [("out", [0, 1]), ("out", [0, 1, 2, 3])]
    assert ticked == [("out", [2, 3, 4, 5]), ("out", [4, 5])]


def test_sliding_time_ticks_close_what_they_passed() -> None:
    # after t=0..5 the open windows are [2,6) and [4,8): a tick at 5 closes none, at 6 [2,6)
    _, ticked = _run(SLIDING_TIME, _xs([0, 1, 2, 3, 4, 5]), ticks=(5, 6, END_OF_INPUT))
    assert ticked == [[], [("out", [2, 3, 4, 5])], [("out", [4, 5])]]


def test_one_event_closes_several_windows_earliest_start_first() -> None:
    # t=0 is in [-2,2) and [0,4); t=10 closes both: [-2,2) first
    during, _ = _run(SLIDING_TIME, _xs([0, 10]), ticks=())
    assert during == [("out", [0]), ("out", [0])]


# -- sessions -----------------------------------------------------------------------------------

SESSION = "define window w from session with gap = 2 end;\n" + COLLECT


def test_session_closes_on_an_event_more_than_gap_after_the_last() -> None:
    # 0, 1, 3 (3 - 1 = 2 is not more than the gap) | 6, 7 | 10 (closed by the end tick)
    during, (ticked,) = _run(SESSION, _xs([0, 1, 3, 6, 7, 10]))
    assert during == [("out", [0, 1, 3]), ("out", [6, 7])]
    assert ticked == [("out", [10])]


def test_session_closes_on_a_tick_past_last_plus_gap() -> None:
    # last = 10: a tick at 12 is not past 10 + 2, one at 13 is
    _, ticked = _run(SESSION, _xs([10]), ticks=(12, 13, END_OF_INPUT))
    assert ticked == [[], [("out", [10])], []]


# -- event time ---------------------------------------------------------------------------------

EVENT_TUMBLING = (
    "define window w from tumbling with interval = 10, lateness = 5 script event.t end;\n"
    "select aggr::win::collect_flattened(event.t) from in[w] into out;\n"
)


def _ts(times: list[int]) -> list[tuple[int, Any]]:
    """Events ``{"t": t}`` arriving in this order (ingest time = position)."""
    return [(i, {"t": t}) for i, t in enumerate(times)]


def test_event_time_tumbling_with_watermark_and_a_late_event() -> None:
    # windows [0,10), [10,20), [20,30); watermark = max t - 5
    # 1 (wm -4), 12 (wm 7), 8 -> [0,10) still open (10 > 7), 16 (wm 11) closes [0,10) = [1, 8],
    # 3 -> [0,10) closed (10 <= 11): late; 25 (wm 20) closes [10,20) = [12, 16]; end: [25]
    during, (ticked,) = _run(EVENT_TUMBLING, _ts([1, 12, 8, 16, 3, 25]))
    late = {"window": "w", "time": 3, "watermark": 11, "closed": [[0, 10]], "event": {"t": 3}}
    assert during == [("out", [1, 8]), ("late", late), ("out", [12, 16])]
    assert ticked == [("out", [25])]


def test_event_time_ignores_wall_clock_ticks() -> None:
    _, ticked = _run(EVENT_TUMBLING, _ts([1]), ticks=(10**12, END_OF_INPUT))
    assert ticked == [[], [("out", [1])]]


def test_event_time_sliding_late_for_closed_windows_only() -> None:
    program = (
        "define window w from sliding with interval = 10, slide = 5, lateness = 2 "
        "script event.t end;\n"
        "select aggr::win::collect_flattened(event.t) from in[w] into out;\n"
    )
    # windows [5k, 5k+10); 7 (wm 5) closes [-5,5) = [1]; 12 (wm 10) closes [0,10) = [1, 7];
    # 6: its windows [0,10) closed, [5,15) open -> counted there, late for [0,10)
    during, (ticked,) = _run(program, _ts([1, 7, 12, 6]))
    late = {"window": "w", "time": 6, "watermark": 10, "closed": [[0, 10]], "event": {"t": 6}}
    assert during == [("out", [1]), ("out", [1, 7]), ("late", late)]
    assert ticked == [("out", [7, 12, 6]), ("out", [12])]


EVENT_SESSION = (
    "define window w from session with gap = 5, lateness = {lateness} script event.t end;\n"
    "select aggr::win::collect_flattened(event.t) from in[w] into out;\n"
)


def test_event_time_sessions_late_and_out_of_order() -> None:
    # wm = max t - 10. 0; 20 (wm 10): [0] closes (0 + 5 < 10); 3: no session near, its own
    # [3, 8] is over (8 < 10): late; 12: own session (17 >= 10); 40 (wm 30): [12] then [20]
    during, (ticked,) = _run(EVENT_SESSION.format(lateness=10), _ts([0, 20, 3, 12, 40]))
    late = {"window": "w", "time": 3, "watermark": 10, "closed": [[3, 8]], "event": {"t": 3}}
    assert during == [("out", [0]), ("late", late), ("out", [12]), ("out", [20])]
    assert ticked == [("out", [40])]


def test_event_time_sessions_merge_when_an_event_bridges_them() -> None:
    # 0 and 10 are 10 apart (two sessions); 5 is within 5 of both: one session [0, 5, 10]
    during, (ticked,) = _run(EVENT_SESSION.format(lateness=20), _ts([0, 10, 5]))
    assert during == []
    assert ticked == [("out", [0, 5, 10])]


def test_a_bad_time_is_the_events_error_and_leaves_the_windows_alone() -> None:
    # "x" is no u64: that event goes to error_log; 0 and 1 still share one session
    during, (ticked,) = _run(EVENT_SESSION.format(lateness=0), _ts([0, "x", 1]))
    assert [port for port, _ in during] == ["error_log"]
    assert "Data based window didn't provide a valid value" in during[0][1]["error"]
    assert ticked == [("out", [0, 1])]


# -- compile-time checks ------------------------------------------------------------------------

BAD = [
    ("sliding with size = 3 end", "sliding", "Missing required config key `slide`"),
    ("sliding with size = 3, slide = 4 end", "4", "`slide` (4) must not exceed `size` (3)"),
    ("sliding with size = 3, slide = 0 end", "0", "`slide` must be at least 1"),
    ("sliding with interval = 10001, slide = 1 end", "1", "at most 10000"),
    ("sliding with size = 2, interval = 2, slide = 1 end", "interval", "exactly one of"),
    ("sliding with slide = 1 end", "sliding", "exactly one of"),
    ("session with gap = 0 end", "0", "`gap` must be at least 1"),
    ("session with gap = 5, lateness = 3 end", "lateness", "`lateness` needs event time"),
    ("tumbling with interval = 3, lateness = 3 end", "lateness", "`lateness` needs event time"),
    ("tumbling with size = 3, lateness = 3 end", "lateness", "needs `interval`"),
    ("sliding with size = 3, slide = 1, lateness = 1 end", "lateness", "no time"),
    ("sliding with size = 3, slide = 1 script event.t end", "event.t", "takes no `script`"),
    ("session with gap = 2 state 0 end", "0", "takes no `state`"),
    ("session with gap = 2, size = 2 end", "size", "Unknown config key"),
]


@pytest.mark.parametrize(("window", "under", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_combinations_are_compile_errors_at_their_key(
    window: str, under: str, message: str
) -> None:
    text = f"define window w from {window};\n" + COLLECT
    with pytest.raises(CompileError) as info:
        check_program(Source("t.trickle", text), "query")
    err = info.value
    assert message in err.message
    assert text[err.span.start : err.span.end] == under


def test_extension_windows_are_not_tilt_frames() -> None:
    text = (
        "define window s from session with gap = 3 end;\n"
        "define window t from tumbling with size = 3 end;\n"
        "select aggr::stats::count() from in[t, s] into out;\n"
    )
    with pytest.raises(CompileError, match="must be the select's only window"):
        check_program(Source("t.trickle", text), "query")


def test_a_defined_pipeline_must_declare_its_late_port() -> None:
    body = (
        "define window w from session with gap = 3 script event.t end;\n"
        "select aggr::stats::count() from in[w] into out;\n"
    )
    text = f"define pipeline p\n{{ports}}pipeline\n{body}end;\ncreate pipeline p;\n"
    text += "select event from in into p;\nselect event from p into out;\n"
    with pytest.raises(CompileError, match="declare it"):
        check_program(Source("t.trickle", text.format(ports="")), "query")
    check_program(Source("t.trickle", text.format(ports="into out, err, late\n")), "query")


def test_session_is_not_reserved_outside_a_window_kind() -> None:
    text = 'select {"session": event.session} from in into out;\n'
    check_program(Source("t.trickle", text), "query")


# -- state and plan -----------------------------------------------------------------------------


def test_window_state_pickles_between_events() -> None:
    """A group's window state survives a pickle round trip mid-stream (streaming keeps it in a
    state store): the continued run emits what an uninterrupted one does."""

    class Sink:
        def __init__(self) -> None:
            self.out: list[Any] = []
            self.value = 0

        def aggr_args(self, frame: Any) -> list[tuple[Any, ...]]:
            return [(self.value,)]

        def emit(self, frame: Any) -> None:
            self.out.append(frame.aggrs[0].emit())

    from runtime_support.tremor.context import EventContext

    spec = WindowSpec(name="w", kind="sliding_interval", amount=4, slide=2)
    times = [0, 1, 2, 3, 4, 5, 9]

    def feed(window: ExtWindow, sink: Sink, ts: list[int]) -> ExtWindow:
        for t in ts:
            sink.value = t
            window.on_event(None, {}, EventContext(ingest_ns=t), sink)
        return window

    whole = Sink()
    feed(ExtWindow(spec, ("aggr::win::collect_flattened",)), whole, times)
    split = Sink()
    half = feed(ExtWindow(spec, ("aggr::win::collect_flattened",)), split, times[:3])
    feed(pickle.loads(pickle.dumps(half)), split, times[3:])
    assert split.out == whole.out == [[0, 1], [0, 1, 2, 3], [2, 3, 4, 5], [4, 5]]


def test_planner_keys_by_group_or_runs_global() -> None:
    grouped = _job("define window w from session with gap = 2 end;\n" + GROUPED)
    single = _job(SESSION)
    assert "hash" in [s.partitioning for s in grouped.STAGES]
    assert "single" in [s.partitioning for s in single.STAGES]


@pytest.mark.parametrize("program", sorted(FIXTURES.glob("*.trickle")), ids=lambda p: p.stem)
def test_fixtures_compile_and_run(program: Path) -> None:
    lines = (program.parent / f"{program.stem}.in.jsonl").read_text().splitlines()
    import json

    rows = [(i, json.loads(line)) for i, line in enumerate(lines)]
    during, ticked = _run(program.read_text(), rows)
    assert during or ticked[0]


@pytest.mark.spark
def test_late_events_reach_the_jobs_late_port(spark, tmp_path: Path) -> None:
    """Through Spark, as a user runs it: ``-o DIR`` writes ``DIR/late/`` beside ``DIR/out/``
    (the same events as :func:`test_event_time_tumbling_with_watermark_and_a_late_event`)."""
    module = _job(EVENT_TUMBLING)
    source = tmp_path / "in.json"
    source.write_text("".join(f'{{"t":{t}}}\n' for t in [1, 12, 8, 16, 3, 25]))
    target = tmp_path / "out"
    assert module.main(["-i", str(source), "-o", str(target), "--ingest-ns", "index"]) == 0

    def lines(port: str) -> list[str]:
        return [line for part in sorted(target.glob(f"{port}/part-*")) for line in part.open()]

    assert lines("out") == ["[1,8]\n", "[12,16]\n", "[25]\n"]
    late = '{"window":"w","time":3,"watermark":11,"closed":[[0,10]],"event":{"t":3}}\n'
    assert lines("late") == [late]


@pytest.mark.spark
@pytest.mark.parametrize("program", sorted(FIXTURES.glob("*.trickle")), ids=lambda p: p.stem)
def test_streaming_equals_batch(program: Path, stream_spark, tmp_path: Path) -> None:
    """The fixture as a streaming query over 3 micro-batches (ingest time = position, end of
    input flushed) gives the batch job's rows, every port."""
    from tests.support.stream_harness import batch_rows, stream_rows

    module = load_job(compile_source(Source(program.name, program.read_text()), "query").job, "s")
    lines = (program.parent / f"{program.stem}.in.jsonl").read_text().splitlines()
    streamed = [row for _, row in stream_rows(stream_spark, module, lines, tmp_path, files=3)]
    assert streamed == batch_rows(stream_spark, module, lines)
    assert any(port == "out" for port, *_ in streamed)
