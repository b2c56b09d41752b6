"""The ``crononome`` source: Tremor's cron expressions (the cron crate's own test expectations,
transcribed) and the connector in batch and streaming flows.

Ported from tremor-runtime ``tremor-cli/tests/integration/crononome``: an entry ``* * * * * *``
with payload ``{"snot": "badger"}``, ``select event.trigger`` into a file and the first event
into ``exit``: the file holds ``{"name":"test","payload":{"snot":"badger"}}``.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, part_lines

croniter = pytest.importorskip("croniter", reason="croniter is absent: run .ci/install.d/ws.sh")

from runtime_support.io.connectors.cron_expr import CronError, to_croniter  # noqa: E402
from runtime_support.io.connectors.crononome import firings, parse_entries  # noqa: E402


def utc(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=timezone.utc).timestamp()) * 1_000_000_000


def upcoming(expr: str, after: int, count: int) -> list[int]:
    entries = parse_entries([{"name": "e", "expr": expr}], "t")
    return [ns for ns, _ in firings(entries, after, None, count)][:count]


# The cron crate's tests (tests/lib.rs of cron 0.12, which Tremor uses): after, then the next.
CRATE_CASES = [
    ("@yearly", (2017, 6, 15, 14, 29, 36), [(2018, 1, 1), (2019, 1, 1), (2020, 1, 1)]),
    ("@monthly", (2017, 10, 15, 14, 29, 36), [(2017, 11, 1), (2017, 12, 1), (2018, 1, 1)]),
    ("@weekly", (2016, 12, 23, 14, 29, 36), [(2016, 12, 25), (2017, 1, 1), (2017, 1, 8)]),
    ("@daily", (2016, 12, 29, 14, 29, 36), [(2016, 12, 30), (2016, 12, 31), (2017, 1, 1)]),
    (
        "@hourly",
        (2017, 2, 25, 22, 29, 36),
        [(2017, 2, 25, 23), (2017, 2, 26, 0), (2017, 2, 26, 1)],
    ),
    (
        "0/20 0/5 0 1 1 * *",
        (2017, 6, 15, 14, 29, 36),
        [(2018, 1, 1, 0, 0, s) for s in (0, 20, 40)]
        + [(2018, 1, 1, 0, 5, s) for s in (0, 20, 40)]
        + [(2018, 1, 1, 0, 10, s) for s in (0, 20, 40)],
    ),
]


@pytest.mark.parametrize(("expr", "after", "want"), CRATE_CASES)
def test_cron_crate_expectations(expr: str, after: tuple, want: list[tuple]) -> None:
    assert upcoming(expr, utc(*after), len(want)) == [utc(*w) for w in want]


def test_day_fields_follow_the_crate() -> None:
    # Days of the week 1-7 from Sunday: 2 is Monday (croniter alone would read Tuesday).
    # 2024-01-01 is a Monday.
    assert upcoming("0 0 12 * * 2", utc(2024, 1, 1), 2) == [
        utc(2024, 1, 1, 12),
        utc(2024, 1, 8, 12),
    ]
    assert upcoming("0 0 12 * * Mon", utc(2024, 1, 1), 1) == [utc(2024, 1, 1, 12)]
    # Both day fields must match (the crate ANDs them): the 1st of a month that is a Monday.
    assert upcoming("0 0 0 1 * Mon", utc(2024, 1, 2), 2) == [utc(2024, 4, 1), utc(2024, 7, 1)]
    # A year field; ranges, lists, named ranges with a step.
    assert upcoming("0 0 0 1 1 * 2030-2031", utc(2024, 1, 1), 3) == [
        utc(2030, 1, 1),
        utc(2031, 1, 1),
    ]
    assert upcoming("0 0 9 * * Mon-Fri/2", utc(2024, 1, 1), 3) == [
        utc(2024, 1, 1, 9), utc(2024, 1, 3, 9), utc(2024, 1, 5, 9)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "expr",
    [
        "1 2 3 4 5 6 7 8 9 2019",  # the crate's test_parse_too_many_fields
        "1 2 3 2019",  # test_not_enough_fields
        "0/0 * * * * *",  # test_invalid_step (range step cannot be zero)
        "* * * * *",  # Vixie cron's 5 fields: the crate wants seconds
        "0 0 0 L * *",  # croniter's L / W / # extensions are not the crate's
        "0 0 0 * * 5#2",
        "0 0 0 * * 0",  # days of the week are 1-7
        "60 * * * * *",
        "0 0 0 * * Mon/2",  # a name can not start a period
        "0 0 0 * Foo *",
        "0 0 0 5-3 * *",
        "? * * * * *",  # `?` only in the day fields
    ],
)
def test_rejected_as_the_crate_rejects(expr: str) -> None:
    with pytest.raises(CronError):
        to_croniter(expr)


def test_the_crates_accepted_forms() -> None:
    accepted = (
        "1 2 3 4 5 6 2015",
        "1,30,40 2 3 4 5 Mon-Fri",
        "1 2,17,51 1-3,6,9-11 4,29 2,3,7 Tues",
        "0   30   9,12,15     1,15       May-Aug  Mon,Wed,Fri  2018/2",
        "* * * * * * *",
        "0 0 0 ? * ?",
    )
    for expr in accepted:
        to_croniter(expr)


CRONONOME = """
define flow main
flow
  use tremor::connectors;
  define connector crononome from crononome
  with config = {"entries": @ENTRIES@}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline main pipeline select event.trigger from in into out; end;
  define pipeline exit pipeline select {"exit": 0, "delay": 1} from in into out; end;
  create connector crononome; create connector out; create connector exit from connectors::exit;
  create pipeline main; create pipeline exit;
  connect /connector/crononome to /pipeline/main;
  connect /connector/crononome to /pipeline/exit;
  connect /pipeline/main to /connector/out;
  connect /pipeline/exit to /connector/exit;
end;
deploy flow main;
"""

TREMOR_ENTRIES = [{"name": "test", "expr": "* * * * * *", "payload": {"snot": "badger"}}]


def flow_text(entries: list, out: Path, exit_too: bool = True) -> str:
    text = CRONONOME.replace("@ENTRIES@", json.dumps(entries)).replace(
        "@OUT@", json.dumps(str(out))
    )
    if not exit_too:
        text = text.replace("  connect /pipeline/exit to /connector/exit;\n", "")
    return text


@pytest.mark.spark
def test_tremor_integration_test(spark, tmp_path: Path) -> None:
    module = build(flow_text(TREMOR_ENTRIES, tmp_path / "out"))
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext())
    # Tremor's expected_out.json
    assert part_lines(tmp_path / "out") == [{"name": "test", "payload": {"snot": "badger"}}]


@pytest.mark.spark
def test_batch_firings_in_time_then_entry_order(spark, tmp_path: Path) -> None:
    entries = [
        {"name": "minute", "expr": "0 * * * * *", "payload": [1, "x"]},
        {"name": "five", "expr": "*/5 * * * * *"},
    ]
    text = flow_text(entries, tmp_path / "out", exit_too=False)
    text = text.replace(
        "select event.trigger from",
        "select [event.id, event.ingest_ns, event.trigger, $crononome] from",
    )
    module = build(text)
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index", ticks=14))
    got = part_lines(tmp_path / "out")
    # From the epoch (--ingest-ns index): every 5 s; at 60 s the minute entry first.
    five = [{"name": "five"}]
    want_times = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 60, 65]
    want_triggers = five * 11 + [{"name": "minute", "payload": [1, "x"]}] + five * 2
    assert [g[0] for g in got] == list(range(14))
    assert [g[1] for g in got] == [t * 1_000_000_000 for t in want_times]
    assert [g[2] for g in got] == want_triggers
    assert [g[3] for g in got] == [{"trigger": t["name"]} for t in want_triggers]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"name": "a", "expr": "* * * * *"}], "6 or 7 fields"),
        ([{"name": "a", "expr": "0 0 0 L * *"}], "'L' is not a valid Days of Month name"),
        ([{"name": "a"}], "needs a string `name` and `expr`"),
    ],
)
def test_compile_errors_at_entries(entries: list, message: str) -> None:
    text = flow_text(entries, Path("out"))
    with pytest.raises(CompileError) as err:
        compile_source(Source("t.troy", text), "deploy")
    assert message in str(err.value)
    span = err.value.span
    assert text[span.start : span.end] == '"entries"'  # the key in config


def start_stream(tmp_path: Path) -> Any:
    import os
    import subprocess
    import sys

    from tests.support.paths import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    job = tmp_path / "job.py"
    if not job.exists():
        text = flow_text([{"name": "tick", "expr": "* * * * * *"}], tmp_path / "out", False)
        text = text.replace("select event.trigger from", "select event from")
        (tmp_path / "flow.troy").write_text(text)
        command = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
        subprocess.run([*command, "-o", str(job)], check=True, env=env, cwd=ROOT)
    command = [sys.executable, str(job), "--stream", "--checkpoint", str(tmp_path / "ck")]
    with open(tmp_path / "job.log", "ab") as log:
        return subprocess.Popen(
            [*command, "--trigger", "1s"], env=env, stdout=log, stderr=subprocess.STDOUT
        )


def stream_until(tmp_path: Path, count: int) -> None:
    from tests.support.servers.net_peer import wait_until

    job = start_stream(tmp_path)
    try:
        wait_until(
            lambda: len(part_lines(tmp_path / "out")) >= count or job.poll() is not None,
            240,
            f"{count} firings",
            tmp_path / "job.log",
        )
        assert job.poll() is None, (tmp_path / "job.log").read_text()[-3000:]
    finally:
        job.terminate()
        job.wait(60)


@pytest.mark.spark
def test_stream_fires_every_second_and_resumes(tmp_path: Path) -> None:
    stream_until(tmp_path, 3)
    first = len(part_lines(tmp_path / "out"))
    stream_until(tmp_path, first + 2)  # restarted from the checkpoint
    got = sorted(part_lines(tmp_path / "out"), key=lambda e: e["id"])
    # Numbered on across the restart, once each; one firing per second, on the second.
    assert [e["id"] for e in got] == list(range(len(got)))
    times = [e["ingest_ns"] for e in got]
    assert all(t % 1_000_000_000 == 0 for t in times)
    assert [b - a for a, b in zip(times, times[1:], strict=False)] == [1_000_000_000] * (
        len(times) - 1
    )
    assert {e["connector"] for e in got} == {"crononome"}
    assert {json.dumps(e["trigger"]) for e in got} == {'{"name": "tick"}'}
