"""The ``exit`` connector in real flows: what each sink keeps when an event reaches ``exit``
without and with ``delay``, ``graceful`` true and false, the event's own ``delay`` winning over
the config, in a batch run (file → pipeline → exit + file) and a stream (metronome → pipeline →
exit + file)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import run_stream_flow
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.simple import ExitSink
from tests.runtime.flows.test_stream_flow import METRONOME_FLOW, build, part_lines, stream_args

BATCH_FLOW = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dst from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define connector stop from exit EXIT_WITH;
  define pipeline p
  pipeline
    select event.i from in where event.i != 5 into out;
    select event from in where event.i == 5 into err;
  end;
  create connector src; create connector dst; create connector stop; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
  connect /pipeline/p/err to /connector/stop;
end;
deploy flow main;
"""


def with_config(text: str, config: str | None) -> str:
    return text.replace(" EXIT_WITH", "" if config is None else f" with config = {config} end")


def test_settle_reads_the_event_fields_over_the_config() -> None:
    sink = ExitSink(ConnectorSpec("f::stop", "exit", {"config": {"delay": 7, "graceful": False}}))
    assert sink.settle({"i": 1}) == (7, False)
    assert sink.settle({"delay": 0, "graceful": True}) == (0, True)
    assert sink.settle({"delay": -1, "graceful": "no"}) == (7, False)  # wrong types: ignored
    assert sink.settle({"delay": True}) == (7, False)
    assert sink.settle([{"delay": 1}]) == (7, False)  # only a record has fields
    assert ExitSink(ConnectorSpec("f::stop", "exit")).settle("x") == (0, True)


def batch_run(spark, tmp_path: Path, config: str | None, exit_event: dict) -> list[int]:
    events = [{"i": i} for i in range(20)]
    events[5] = exit_event
    source = tmp_path / "in.json"
    source.write_text("".join(json.dumps(e) + "\n" for e in events))
    module = build(with_config(BATCH_FLOW, config), IN=source, OUT=tmp_path / "out")
    ctx = RunContext(ingest_ns="index")
    assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    assert ctx.exited
    return sorted(int(x) for x in part_lines(tmp_path / "out"))


BEFORE = [0, 1, 2, 3, 4]  # the events before the exit event (5)
ALL = [i for i in range(20) if i != 5]  # every event of the input that reaches the sink


@pytest.mark.spark
@pytest.mark.parametrize(
    ("config", "exit_event", "want"),
    [
        (None, {"i": 5}, BEFORE),
        ('{"graceful": false}', {"i": 5}, BEFORE),  # nothing in flight: the same events
        ('{"delay": 1000000}', {"i": 5}, ALL),  # the delay lets the finite input through
        ('{"delay": 1000000, "graceful": false}', {"i": 5}, ALL),
        (None, {"i": 5, "delay": 1}, [*BEFORE, 6]),  # its own delay: lines are 1 ns apart
        ('{"delay": 1000000}', {"i": 5, "delay": 0}, BEFORE),  # wins over the config
    ],
)
def test_batch_exit(spark, tmp_path: Path, config, exit_event, want) -> None:
    assert batch_run(spark, tmp_path, config, exit_event) == want


METRONOME_BATCH = """
define flow main
flow
  define connector tick from metronome with config = {"interval": 100000000} end;
  define connector dst from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define connector stop from exit EXIT_WITH;
  define pipeline p
  pipeline
    select event.id from in into out;
    select event from in where event.id == 2 into err;
  end;
  create connector tick; create connector dst; create connector stop; create pipeline p;
  connect /connector/tick to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
  connect /pipeline/p/err to /connector/stop;
end;
deploy flow main;
"""


@pytest.mark.spark
@pytest.mark.parametrize(
    ("config", "want"),
    [
        (None, [0, 1, 2]),  # id 2 goes to `out` first (link order), then reaches the exit
        ('{"delay": 250000000}', [0, 1, 2, 3, 4]),  # ticks 100 ms apart: 2 more in 250 ms
        ('{"delay": 99999999}', [0, 1, 2]),  # the next tick is 100 ms away
    ],
)
def test_batch_metronome_delay_in_tick_time(spark, tmp_path: Path, config, want) -> None:
    module = build(with_config(METRONOME_BATCH, config), OUT=tmp_path / "out")
    ctx = RunContext(ingest_ns="index", ticks=10)
    assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    assert ctx.exited
    assert sorted(int(x) for x in part_lines(tmp_path / "out")) == want


def stream_ids(spark, tmp_path: Path, config: str, select: str | None = None) -> list[int]:
    """Run the metronome flow (ticks of 100 ms, micro-batches of 500 ms: ids 0-4, 5-9, …; id 8
    reaches the exit) with the exit's ``config``; the ids on the ``all`` sink. A restart from
    the exited checkpoint writes nothing."""
    text = METRONOME_FLOW.replace(
        "define connector stop from exit;",
        f"define connector stop from exit with config = {config} end;",
    )
    if select is not None:
        text = text.replace("select event from in where event.id == 8 into err;", select)
    module = build(text, WIN=tmp_path / "win", ALL=tmp_path / "all")
    args = stream_args(tmp_path / "ck", trigger="500ms", flush=False)
    sink = run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert sink.exited
    ids = sorted(json.loads(x)["id"] for x in part_lines(tmp_path / "all"))
    again = run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert again.exited
    assert sorted(json.loads(x)["id"] for x in part_lines(tmp_path / "all")) == ids
    return ids


@pytest.mark.spark
def test_stream_graceful_delay_writes_whole_micro_batches_until_it_passes(
    spark, tmp_path: Path
) -> None:
    started = time.monotonic()
    ids = stream_ids(spark, tmp_path, '{"delay": 2000000000}')
    assert time.monotonic() - started >= 2
    # The exit's micro-batch (5-9) is written whole, id 9 too; later ones until the delay
    # passed, each whole (5 ticks), none after.
    count = len(ids) + 1  # id 8 went to the exit
    assert ids == [i for i in range(count) if i != 8]
    assert count % 5 == 0 and count >= 15, ids


@pytest.mark.spark
def test_stream_forceful_delay_stops(spark, tmp_path: Path) -> None:
    ids = stream_ids(spark, tmp_path, '{"delay": 1000000000, "graceful": false}')
    assert set(range(10)) - {8} <= set(ids) and 8 not in ids


@pytest.mark.spark
def test_stream_event_delay_wins_over_the_config(spark, tmp_path: Path) -> None:
    select = 'select {"id": event.id, "delay": 0} from in where event.id == 8 into err;'
    ids = stream_ids(spark, tmp_path, '{"delay": 60000000000}', select)
    assert ids == list(range(8))  # cut at the exit event, as without a delay


@pytest.mark.spark
def test_tremor_kv_integration_with_its_delay(spark, tmp_path: Path) -> None:
    # Tremor's kv integration test as written: its exit connector waits 100 ms, so the answer
    # to the command after `put exit` (`get exit`) reaches out.log too (its expected.json).
    from tests.runtime.flows import test_kv_flow as kv

    text = kv.TREMOR_FLOW.replace(
        "define connector exit from exit;",
        'define connector exit from exit with config = {"delay": 100000000} end;',
    )
    (tmp_path / "data").mkdir()
    (tmp_path / "in.json").write_text(kv.TREMOR_IN)
    paths = {"OUT": tmp_path / "out.log", "ERR": tmp_path / "err.log"}
    module = build(text, DATA=tmp_path / "data", IN=tmp_path / "in.json", **paths)
    ctx = RunContext(ingest_ns="index")
    run_flow(spark, module.FLOW, module.run_pipeline, ctx)
    assert ctx.exited
    assert kv.lines(tmp_path / "out.log") == [
        *kv.EXPECTED_OUT,
        kv.line("exit", "19", "get", "exit"),
    ]
    assert kv.lines(tmp_path / "err.log") == kv.EXPECTED_ERR


def test_the_job_says_what_a_batch_does_with_a_delay() -> None:
    from compiler.pipeline import compile_source
    from compiler.source import Source

    def job(config: str | None) -> str:
        text = with_config(BATCH_FLOW, config).replace("@IN@", '"in"').replace("@OUT@", '"out"')
        return compile_source(Source("t.troy", text), "deploy").job

    note = "stops the run `delay` after its first event (batch: by the events' ingest_ns)"
    assert note in job('{"delay": 1000}')
    assert note not in job(None) and note not in job('{"delay": 0}')
    assert "its first event stops the run: the events before it reach the sinks" in job(None)
