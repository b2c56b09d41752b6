"""Troy flows as streaming queries (runtime_support/flows/streaming.py): a metronome flow stopped by
an exit, a file-folder flow over several micro-batches equal to its batch run, a restart from
the checkpoint, and the sources and sinks that can not stream."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import StreamingQueryException

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import await_query, run_stream_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.paths import ROOT

METRONOME_FLOW = """
define flow main
flow
  define connector tick from metronome with config = {"interval": 100000000} end;
  define connector windows from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @WIN@, "mode": "truncate"}
  end;
  define connector events from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @ALL@, "mode": "truncate"}
  end;
  define connector stop from exit;
  define pipeline p
  into out, err, all
  pipeline
    define window pair from tumbling with size = 2 end;
    select {"g": group[0], "ids": aggr::win::collect_flattened(event.id)} from in[pair]
    group by event.id % 2 into out;
    select event from in where event.id != 8 into all;
    select event from in where event.id == 8 into err;
  end;
  create connector tick; create connector windows; create connector events;
  create connector stop; create pipeline p;
  connect /connector/tick to /pipeline/p;
  connect /pipeline/p/out to /connector/windows;
  connect /pipeline/p/all to /connector/events;
  connect /pipeline/p/err to /connector/stop;
end;
deploy flow main;
"""

FILE_FLOW = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dst from file
  with codec = {"name": "json", "config": {"mode": "sorted"}}, postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    define window pair from tumbling with size = 2 end;
    select {"k": group[0], "xs": aggr::win::collect_flattened(event.x)} from in[pair]
    group by event.k into out;
    select {"big": event.x} from in where event.x > 8 into out;
  end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def build(text: str, **paths: Path) -> Any:
    for name, path in paths.items():
        text = text.replace(f"@{name}@", json.dumps(str(path)))
    return load_job(compile_source(Source("t.troy", text), "deploy").job, "t")


def stream_args(checkpoint: Path, **overrides: Any) -> argparse.Namespace:
    values = {
        "checkpoint": str(checkpoint),
        "trigger": "available-now",
        "tick": "100ms",
        "files_per_batch": 1,
        "flush": True,
        "state_ttl": None,
        "ingest_ns": "index",
        "partitions": None,
        "ticks": None,
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def part_lines(folder: Path) -> list[str]:
    return [line for part in sorted(folder.glob("part-*")) for line in part.read_text().split()]


def write_file(folder: Path, number: int, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"f{number:03d}.json"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))


def events(start: int, count: int) -> list[str]:
    return [json.dumps({"k": ["a", "b", "c"][i % 3], "x": i}) for i in range(start, start + count)]


@pytest.mark.spark
def test_metronome_keyed_window_until_exit(spark, tmp_path: Path) -> None:
    module = build(METRONOME_FLOW, WIN=tmp_path / "win", ALL=tmp_path / "all")
    # 500 ms micro-batches of 100 ms ticks: ids 0-4, then 5-9, where id 8 reaches the exit.
    args = stream_args(tmp_path / "ck", trigger="500ms", flush=False)
    sink = run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert sink.exited
    windows = [json.loads(x) for x in part_lines(tmp_path / "win")]
    # Worked by hand: groups id % 2, tumbling windows of 2 events each; id 8 opens a window.
    assert sorted(windows, key=lambda w: w["ids"]) == [
        {"g": 0, "ids": [0, 2]},
        {"g": 1, "ids": [1, 3]},
        {"g": 0, "ids": [4, 6]},
        {"g": 1, "ids": [5, 7]},
    ]
    # Every tick before the exit (id 9, same micro-batch, is cut); ingest_ns = (id + 1) * 100 ms.
    ticks = sorted((json.loads(x) for x in part_lines(tmp_path / "all")), key=lambda t: t["id"])
    assert ticks == [
        {"connector": "metronome", "ingest_ns": (i + 1) * 100_000_000, "id": i} for i in range(8)
    ]
    batches = {p.name.split("-")[2] for p in (tmp_path / "all").glob("part-*")}
    assert len(batches) >= 2
    # A restart from the exited checkpoint runs nothing.
    again = run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert again.exited and len(part_lines(tmp_path / "all")) == 8


def batch_output(spark, tmp_path: Path, lines_per_file: list[list[str]]) -> list[str]:
    folder = tmp_path / "batch_in"
    for number, lines in enumerate(lines_per_file):
        write_file(folder, number, lines)
    module = build(FILE_FLOW, IN=folder, OUT=tmp_path / "batch_out")
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
    return sorted(part_lines(tmp_path / "batch_out"))


class ExitFlag:
    """What ``await_query`` reads of a flow's sink: ``exited`` (and ``due``: no delay), here
    true once the micro-batch ``exit_at`` ran and the query has ended (so the 0.2 s poll never
    stops it first)."""

    graceful, running = True, False

    def __init__(self) -> None:
        self.reached, self.query = False, None

    @property
    def exited(self) -> bool:
        return self.reached and self.query is not None and not self.query.isActive

    def due(self) -> bool:
        return self.exited


def failing_query(spark, tmp_path: Path, flag: ExitFlag, exit_at: int | None, fail_at: int):
    """A rate-source query whose micro-batch ``exit_at`` reaches the exit and whose micro-batch
    ``fail_at`` raises."""

    def each_batch(frame: Any, batch_id: int) -> None:
        frame.count()
        flag.reached = flag.reached or batch_id == exit_at
        if batch_id == fail_at:
            raise RuntimeError(f"batch {batch_id} fails")

    stream = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 2).load()
    flag.query = (
        stream.writeStream.foreachBatch(each_batch)
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(processingTime="50 milliseconds")
        .start()
    )
    return flag.query


@pytest.mark.spark
def test_failure_after_the_exit_ends_the_run_as_exited(
    spark, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    # A micro-batch after the exit fails before the poll stops the query (Spark's own
    # "Exception thrown in awaitResult" did once in CI): the run ends as exited, one line.
    flag = ExitFlag()
    await_query(failing_query(spark, tmp_path, flag, exit_at=0, fail_at=1), flag)
    assert flag.exited
    err = capsys.readouterr().err
    assert "after the exit, Spark failed a micro-batch that wrote nothing" in err
    assert "batch 1 fails" in err


@pytest.mark.spark
def test_failure_before_any_exit_is_raised(spark, tmp_path: Path) -> None:
    flag = ExitFlag()
    with pytest.raises(StreamingQueryException, match="batch 0 fails"):
        await_query(failing_query(spark, tmp_path, flag, exit_at=None, fail_at=0), flag)


@pytest.mark.spark
def test_file_folder_stream_equals_batch(spark, tmp_path: Path) -> None:
    files = [events(0, 5), events(5, 4), events(9, 5)]
    for number, lines in enumerate(files):
        write_file(tmp_path / "in", number, lines)
    module = build(FILE_FLOW, IN=tmp_path / "in", OUT=tmp_path / "out")
    args = stream_args(tmp_path / "ck")
    run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    got = sorted(part_lines(tmp_path / "out"))
    assert got == batch_output(spark, tmp_path, files)
    batches = {p.name.split("-")[2] for p in (tmp_path / "out").glob("part-*")}
    assert len(batches) >= 3  # one micro-batch per file, then the end-of-input one


@pytest.mark.spark
def test_restart_continues_without_duplicates(spark, tmp_path: Path) -> None:
    files = [events(0, 4), events(4, 3), events(7, 5), events(12, 2)]
    module = build(FILE_FLOW, IN=tmp_path / "in", OUT=tmp_path / "out")
    for number in (0, 1):
        write_file(tmp_path / "in", number, files[number])
    first = stream_args(tmp_path / "ck", flush=False)
    run_stream_flow(spark, module.FLOW, module.run_pipeline, first, RunContext())
    for number in (2, 3):
        write_file(tmp_path / "in", number, files[number])
    run_stream_flow(
        spark, module.FLOW, module.run_pipeline, stream_args(tmp_path / "ck"), RunContext()
    )
    assert sorted(part_lines(tmp_path / "out")) == batch_output(spark, tmp_path, files)


STDIO_FLOW = """
define flow main
flow
  @SRC@
  define connector dst from stdio with postprocessors = ["separate"] end;
  define pipeline p
  pipeline
    define window pair from tumbling with size = 2 end;
    select {"k": group[0], "xs": aggr::win::collect_flattened(event.x)} from in[pair]
    group by event.k into out;
    select event.x from in where event.x > 8 into out;
  end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""
FILE_SOURCE = """define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;"""


def test_stdio_source_can_not_stream(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    module = build(STDIO_FLOW.replace("@SRC@", "define connector src from stdio;"))
    assert module.main(["--stream", "--checkpoint", str(tmp_path / "ck")]) == 2
    err = capsys.readouterr().err
    assert "the stdio source `main::src` can not stream: a streaming flow reads file, " in err
    assert module.main(["--stream"]) == 2
    assert "--stream needs --checkpoint DIR" in capsys.readouterr().err
    single = FILE_FLOW.replace('"mode": "truncate"}', '"mode": "truncate", "single_file": true}')
    module = build(single, IN=tmp_path, OUT=tmp_path / "out.json")
    assert module.main(["--stream", "--checkpoint", str(tmp_path / "ck")]) == 2
    assert "`main::dst` has `single_file: true`, which can not stream" in capsys.readouterr().err
    module = build(METRONOME_FLOW, WIN=tmp_path / "win", ALL=tmp_path / "all")
    flush = ["--stream", "--checkpoint", str(tmp_path / "ck"), "--trigger", "once", "--flush"]
    assert module.main(flush) == 2
    assert "a metronome never ends" in capsys.readouterr().err
    assert module.main(["--stream", "--checkpoint", "ck", "--ticks", "5"]) == 2
    assert "--ticks sets a finite run's metronome ticks" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a batch run given a streaming option: argparse's exit 2
        module.main(["--checkpoint", str(tmp_path / "ck")])
    assert "--checkpoint is an option of --stream runs" in capsys.readouterr().err


@pytest.mark.spark
def test_cli_stream_to_stdio_is_the_batch_output(tmp_path: Path) -> None:
    """The job's own command line, streaming a folder to stdio, prints what its batch run
    prints, in the same order."""
    for number, lines in enumerate([events(0, 5), events(5, 4), events(9, 5)]):
        write_file(tmp_path / "in", number, lines)
    troy = tmp_path / "flow.troy"
    troy.write_text(
        STDIO_FLOW.replace("@SRC@", FILE_SOURCE).replace("@IN@", json.dumps(str(tmp_path / "in")))
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    job = tmp_path / "job.py"
    build_cmd = [sys.executable, "-m", "compiler", "build", str(troy), "-o", str(job)]
    subprocess.run(build_cmd, check=True, env=env, cwd=ROOT)
    common = [sys.executable, str(job), "--ingest-ns", "index"]
    batch = subprocess.run(common, check=True, env=env, capture_output=True, text=True)
    stream = [
        *common,
        *("--stream", "--checkpoint", str(tmp_path / "ck"), "--trigger", "available-now"),
        *("--files-per-batch", "1", "--flush"),
    ]
    got = subprocess.run(stream, check=True, env=env, capture_output=True, text=True)
    assert got.stdout.split() == batch.stdout.split()
    # Worked by hand: x 0-13, k cycling a, b, c; count windows of 2 per k (partial ones are not
    # emitted at the end), each before the `x > 8` select of the event that closes it.
    windows = ["a", [0, 3]], ["b", [1, 4]], ["c", [2, 5]], ["a", [6, 9]], ["b", [7, 10]]
    shown = [json.dumps({"k": k, "xs": xs}, separators=(",", ":")) for k, xs in windows]
    last = json.dumps({"k": "c", "xs": [8, 11]}, separators=(",", ":"))
    expected = [*shown[:4], "9", shown[4], "10", last, "11", "12", "13"]
    assert batch.stdout.split() == expected
