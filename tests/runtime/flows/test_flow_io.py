"""Flow sinks as Spark writers: a ``file`` sink's path is a folder of part files, each in Tremor's
emission order, no event through the driver; ``single_file: true`` is the one ordered file;
``exit`` cuts every sink at the first event reaching it. Real generated jobs, real Spark; the
expected outputs are worked out here from the inputs, never by the code under test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.paths import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}

KEYED = """
define flow main
flow
  define connector logs from file
  args
    path = "logs.json"
  with
    codec = "json",
    preprocessors = ["separate"],
    config = {"path": args.path, "mode": "read"}
  end;
  define connector output from file
  with
    codec = "json",
    postprocessors = ["separate"],
    config = {"path": "counts", "mode": "truncate"}
  end;
  define pipeline per_host
  pipeline
    define window three from tumbling with size = 3 end;
    select {
      "host": group[0], "n": aggr::stats::count(), "ids": aggr::win::collect_flattened(event.i)
    }
    from in[three]
    group by event.host
    into out;
  end;
  create connector web from logs with path = "web.json" end;
  create connector db from logs with path = "db.json" end;
  create connector output;
  create pipeline per_host;
  connect /connector/web to /pipeline/per_host;
  connect /connector/db to /pipeline/per_host;
  connect /pipeline/per_host to /connector/output;
end;
deploy flow main;
"""

EXIT = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "in.json", "mode": "read"}
  end;
  define connector output from file
  with codec = "string", postprocessors = [{"name": "separate", "config": {"separator": "|"}}],
    config = {"path": "OUT", "mode": "MODE"SINGLE}
  end;
  define connector stop from exit;
  define pipeline p
  pipeline
    select event.i from in where event.i % 5 != 3 into out;
    select event from in where event.i == STOP into err;
  end;
  create connector input; create connector output; create connector stop; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p/out to /connector/output;
  connect /pipeline/p/err to /connector/stop;
end;
deploy flow main;
"""


def _exit_flow(out: str, mode: str = "truncate", single: bool = False, stop: int = 73) -> str:
    single_text = ', "single_file": true' if single else ""
    text = EXIT.replace("OUT", out).replace("MODE", mode).replace("SINGLE", single_text)
    return text.replace("STOP", str(stop))


def _job(text: str) -> str:
    return compile_source(Source("flow.troy", text), "deploy").job


def _run(spark, text: str, **ctx: object) -> RunContext:
    module = load_job(_job(text), "flow")
    context = RunContext(ingest_ns="index", **ctx)  # type: ignore[arg-type]
    assert run_flow(spark, module.FLOW, module.run_pipeline, context) == 0
    return context


def _parts(folder: Path) -> list[str]:
    """The text of each non-empty part file (Spark's ``part-*`` names, in name order)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("part-*"))]
    return [text for text in texts if text]


def _write_events(path: Path, events: list[dict]) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


# --- compile-time: what part files can and cannot do ------------------------------------------


def _check(text: str) -> None:
    compile_source(Source("flow.troy", text), "deploy")


def test_part_files_need_a_separator() -> None:
    text = _exit_flow("o").replace(
        'postprocessors = [{"name": "separate", "config": {"separator": "|"}}],', ""
    )
    with pytest.raises(CompileError, match=r'postprocessors = \["separate"\]'):
        _check(text)
    _check(text.replace('"mode": "truncate"', '"mode": "truncate", "single_file": true'))


def test_overwrite_needs_one_file() -> None:
    with pytest.raises(CompileError, match="`overwrite`.*single_file"):
        _check(_exit_flow("o", mode="overwrite"))
    _check(_exit_flow("o", mode="overwrite", single=True))


def test_single_file_is_a_boolean() -> None:
    text = _exit_flow("o").replace('"mode": "truncate"', '"mode": "truncate", "single_file": 1')
    with pytest.raises(CompileError, match="single_file.*must be a boolean"):
        _check(text)


def test_main_says_how_each_sink_is_written() -> None:
    job = _job(_exit_flow("o"))
    assert "Spark's text writer: part files in the folder at path, each in emission order" in job
    assert "its first event stops the run: the events before it reach the sinks" in job
    single = _job(_exit_flow("o", single=True))
    assert "on the driver, every event in the whole emission order (small outputs)" in single
    assert "Sinks written on the driver" not in job


# --- exit with part files ---------------------------------------------------------------------


@pytest.mark.spark
def test_exit_cuts_part_files_at_the_first_exit_event(spark, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write_events(tmp_path / "in.json", [{"i": i} for i in range(200)])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "part-00009-old.txt").write_text("stale|")  # replaced: Spark output
    ctx = _run(spark, _exit_flow("out"), partitions=4)
    assert ctx.exited
    parts = _parts(tmp_path / "out")
    assert len(parts) >= 2, "the sink was written by several tasks"
    # Events 0..72 reach the sink (not those with i % 5 == 3); 73 (which emits nothing on
    # `out`) stops the run; no later event (74..199 exist) is delivered.
    want = [str(i) for i in range(73) if i % 5 != 3]
    got = [chunk for part in parts for chunk in part.split("|")[:-1]]
    assert sorted(got, key=int) == want
    for part in parts:
        assert part.endswith("|")
        ids = [int(x) for x in part.split("|")[:-1]]
        assert ids == sorted(ids), "each part file is in emission order"


@pytest.mark.spark
def test_exit_cuts_the_single_file_too(spark, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write_events(tmp_path / "in.json", [{"i": i} for i in range(40)])
    (tmp_path / "one.txt").write_text("kept|")
    ctx = _run(spark, _exit_flow("one.txt", mode="append", single=True, stop=13), partitions=3)
    assert ctx.exited
    want = "kept|" + "".join(f"{i}|" for i in range(13) if i % 5 != 3)
    assert (tmp_path / "one.txt").read_text() == want


@pytest.mark.spark
def test_overwrite_single_file_keeps_the_tail(spark, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write_events(tmp_path / "in.json", [{"i": i} for i in range(3)])
    (tmp_path / "one.txt").write_text("abcdefghij")
    _run(spark, _exit_flow("one.txt", mode="overwrite", single=True, stop=99))
    assert (tmp_path / "one.txt").read_text() == "0|1|2|ghij"  # Tremor: no truncation


@pytest.mark.spark
def test_append_adds_part_files(spark, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write_events(tmp_path / "in.json", [{"i": i} for i in range(6)])
    _run(spark, _exit_flow("out", mode="append", stop=99))
    _run(spark, _exit_flow("out", mode="append", stop=99))
    got = [x for part in _parts(tmp_path / "out") for x in part.split("|")[:-1]]
    assert sorted(got) == sorted(["0", "1", "2", "4", "5"] * 2)


@pytest.mark.spark
def test_a_folder_that_is_not_spark_output_is_not_replaced(spark, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _write_events(tmp_path / "in.json", [{"i": 1}])
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.csv").write_text("x")
    module = load_job(_job(_exit_flow("data", stop=99)), "flow")
    with pytest.raises(ValueError, match="will not replace data: the folder holds 'precious.csv'"):
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext())
    assert (tmp_path / "data" / "precious.csv").read_text() == "x"


# --- a keyed windowed pipeline, run as a user runs it -----------------------------------------


def _expected_windows(web: list[dict], db: list[dict]) -> dict[str, list[list[int]]]:
    """Tumbling windows of 3 per host over the two sources interleaved round-robin (web's
    event k, then db's event k, as the flow numbers them); only full windows are emitted
    (size windows are not flushed at the end)."""
    merged: list[dict] = []
    for k in range(max(len(web), len(db))):
        merged += [e for e in (web[k : k + 1] + db[k : k + 1])]
    per_host: dict[str, list[int]] = {}
    for event in merged:
        per_host.setdefault(event["host"], []).append(event["i"])
    return {h: [ids[j : j + 3] for j in range(0, len(ids) - 2, 3)] for h, ids in per_host.items()}


@pytest.mark.spark
def test_keyed_windows_from_file_sources_to_part_files(tmp_path: Path) -> None:
    web = [{"host": f"h{(i * 7) % 5}", "i": i} for i in range(0, 120)]
    db = [{"host": f"h{(i * 3) % 4}", "i": 1000 + i} for i in range(0, 90)]
    _write_events(tmp_path / "web.json", web)
    _write_events(tmp_path / "db.json", db)
    job = tmp_path / "job.py"
    job.write_text(_job(KEYED), encoding="utf-8")
    # Adaptive execution would merge this small keyed stage's partitions into one task.
    no_merge = "spark.sql.adaptive.coalescePartitions.enabled=false"
    command = [sys.executable, str(job), "--partitions", "4", "--master", "local[2]"]
    result = subprocess.run(
        [*command, "--conf", no_merge],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    parts = _parts(tmp_path / "counts")
    assert len(parts) >= 2, "keyed output written by several tasks"
    expected = _expected_windows(web, db)
    got: dict[str, list[list[int]]] = {}
    for part in parts:
        assert part.endswith("\n")
        for line in part.splitlines():
            record = json.loads(line)
            assert record["n"] == 3
            got.setdefault(record["host"], []).append(record["ids"])
    assert got == expected  # every window, each host's in Tremor's order


# --- a file source of JSON lines reads folders and globs, in exact order ----------------------

FOLDER = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "IN", "mode": "read"}
  end;
  define connector output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": "all.json", "mode": "truncate", "single_file": true}
  end;
  define pipeline p
  pipeline
    select event.i from in into out;
  end;
  create connector input; create connector output; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p to /connector/output;
end;
deploy flow main;
"""


@pytest.mark.spark
@pytest.mark.parametrize("where", ["logs", "logs/*.json*"])
def test_file_source_reads_a_folder_in_path_order(spark, tmp_path, monkeypatch, where) -> None:
    import gzip

    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    with gzip.open(tmp_path / "logs" / "a.json.gz", "wt") as handle:
        handle.write("".join(json.dumps({"i": i}) + "\n" for i in range(0, 50)))
    _write_events(tmp_path / "logs" / "b.json", [{"i": i} for i in range(50, 80)])
    _write_events(tmp_path / "logs" / "_skipped.json", [{"i": -1}])
    (tmp_path / "logs" / "c.json").write_text('{"i": 80}\n\n   \n{"i": 81}')  # blank: no event
    _run(spark, FOLDER.replace("IN", where), partitions=3)
    assert (tmp_path / "all.json").read_text() == "".join(f"{i}\n" for i in range(82))
