"""The job's command line as a user runs it (real subprocesses, real Spark): Spark configuration
from the job (``--master``, ``--conf``, ``--partitions``; spark-submit's options win) and ``-i``
read by Spark (several files, folders, globs, .gz/.bz2) in an exact global order."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.paths import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
PASSTHROUGH = "select event from in into out;\n"


def _job(folder: Path, text: str = PASSTHROUGH) -> Path:
    job = folder / "job.py"
    source = Source("input.trickle", text)
    job.write_text(compile_source(source, kind_of(Path("input.trickle"))).job, encoding="utf-8")
    return job


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env={**ENV, "PYSPARK_PYTHON": sys.executable},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=600,
    )


def test_bad_conf_is_a_usage_error(tmp_path: Path) -> None:
    result = _run([sys.executable, str(_job(tmp_path)), "--conf", "novalue"], tmp_path)
    assert result.returncode == 2
    assert "expected KEY=VALUE, got 'novalue'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.spark
def test_master_conf_and_partitions_configure_the_embedded_session(tmp_path: Path) -> None:
    args = ["--master", "local[1]", "--conf", "spark.app.name=mine", "--conf", "a.b=c=d"]
    args += ["--conf", "spark.sql.shuffle.partitions=7", "--partitions", "3", "--show-conf"]
    result = _run([sys.executable, str(_job(tmp_path)), *args], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "spark.master=local[1]",
        "a.b=c=d",
        "spark.app.name=mine",
        "spark.sql.shuffle.partitions=3",
    ]


@pytest.mark.spark
def test_spark_submit_options_win(tmp_path: Path) -> None:
    submit = ["spark-submit", "--master", "local[1]", "--conf", "spark.app.name=launcher"]
    job = ["--master", "local[2]", "--conf", "spark.app.name=job", "--partitions", "5"]
    job += ["--conf", "spark.driver.memory=1g", "--show-conf"]
    result = _run([*submit, str(_job(tmp_path)), *job], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # spark-submit's PythonRunner merges the driver's stderr into its stdout
    lines = (result.stdout + result.stderr).splitlines()
    assert [line for line in lines if "=" in line and " " not in line] == [
        "spark.master=local[1]",
        "spark.app.name=launcher",
        "spark.driver.memory=None",
        "spark.sql.shuffle.partitions=5",
    ]
    said = [line for line in lines if line.startswith("tremorc:")]
    assert said == [
        "tremorc: --master local[2] ignored: spark-submit's master is used",
        "tremorc: --conf spark.app.name ignored: spark-submit set it",
        "tremorc: --conf spark.driver.memory ignored: give it to spark-submit (it is read at "
        "start-up)",
    ]


WINDOWS = """\
define window by_three from tumbling
with
  size = 3
end;
define window two_ns from tumbling
with
  interval = 2
end;
select aggr::win::collect_flattened(event.n) from in[by_three] into out;
select aggr::win::collect_flattened(event.n) from in[two_ns] into err;
"""


def _inputs(folder: Path) -> None:
    """Events n = 1..9 spread over a file (with a blank line), a folder, a .gz and a .bz2 file."""
    (folder / "a.json").write_text('{"n":1}\n{"n":2}\n\n{"n":3}\n')
    (folder / "dir").mkdir()
    (folder / "dir" / "2.json").write_text('{"n":5}\n')
    (folder / "dir" / "1.json").write_text('{"n":4}\n')
    (folder / "dir" / "_SUCCESS").write_text("")
    (folder / "c.json.gz").write_bytes(gzip.compress(b'{"n":6}\n{"n":7}\n'))
    (folder / "d.json.bz2").write_bytes(bz2.compress(b'{"n":8}\n{"n":9}\n'))


@pytest.mark.spark
def test_inputs_read_by_spark_in_argument_path_and_line_order(tmp_path: Path) -> None:
    # tiny file splits (8 bytes) and 3 input partitions: the order must not depend on them
    _inputs(tmp_path)
    args = ["-i", "a.json", "dir", "c*.gz", "-i", "d.json.bz2", "--ingest-ns", "index"]
    args += ["--partitions", "3", "--conf", "spark.sql.files.maxPartitionBytes=8"]
    args += ["--conf", "spark.sql.files.openCostInBytes=1"]
    result = _run([sys.executable, str(_job(tmp_path, WINDOWS)), *args], tmp_path)
    assert result.returncode == 0, result.stderr
    # by_three: events in order 1..9 by threes; two_ns: ingest_ns = the line's global position
    # 0..8, so pairs (n=1,2 are ns 0,1), closed by the next pair's first event; the last one
    # flushed by the end-of-input tick
    assert result.stdout.splitlines() == [
        "[1,2,3]",
        "[1,2]",
        "[3,4]",
        "[4,5,6]",
        "[5,6]",
        "[7,8,9]",
        "[7,8]",
        "[9]",
    ]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["nomatch*.json"], "Error: can not read nomatch*.json: no file matches"),
        (["a.json", "empty"], "Error: can not read empty: a folder with no file in it"),
        (["a.json", "missing.json"], "Error: can not read missing.json: No such file or directory"),
    ],
)
def test_an_input_that_can_not_be_read_is_one_line(
    tmp_path: Path, args: list[str], error: str
) -> None:
    (tmp_path / "a.json").write_text('{"n":1}\n')
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".hidden").write_text('{"n":1}\n')
    result = _run([sys.executable, str(_job(tmp_path)), "-i", *args], tmp_path)
    assert (result.returncode, result.stderr) == (2, error + "\n")


def test_stdin_and_files_together_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"n":1}\n')
    result = _run([sys.executable, str(_job(tmp_path)), "-i", "-", "a.json"], tmp_path)
    assert result.returncode == 2
    assert "stdin can not be read together with files" in result.stderr


def _parts(folder: Path) -> list[list[str]]:
    """The lines of each part file of one port's folder, in part-file name order."""
    return [part.read_text().splitlines() for part in sorted(folder.glob("part-*"))]


@pytest.mark.spark
def test_output_folder_per_port_in_emission_order(tmp_path: Path) -> None:
    _inputs(tmp_path)
    (tmp_path / "res" / "out").mkdir(parents=True)
    (tmp_path / "res" / "out" / "part-stale.txt").write_text("replaced\n")
    args = ["-i", "a.json", "dir", "c*.gz", "d.json.bz2", "--ingest-ns", "index", "-o", "res"]
    result = _run(
        [sys.executable, str(_job(tmp_path, WINDOWS)), *args, "--partitions", "2"], tmp_path
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert sorted(path.name for path in (tmp_path / "res").iterdir()) == ["err", "error_log", "out"]
    # both windows keep state (one partition); `err` also reads the source stage's rows
    # (undecodable lines): a port may get an empty part file
    nonempty = [part for part in _parts(tmp_path / "res" / "err") if part]
    assert _parts(tmp_path / "res" / "out") == [["[1,2,3]", "[4,5,6]", "[7,8,9]"]]
    assert nonempty == [["[1,2]", "[3,4]", "[5,6]", "[7,8]", "[9]"]]
    assert [line for part in _parts(tmp_path / "res" / "error_log") for line in part] == []


@pytest.mark.spark
def test_partitions_give_part_files_each_in_order(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text("".join(f'{{"n":{n}}}\n' for n in range(30)))
    args = ["-i", "in.json", "-o", "res", "--partitions", "3"]
    result = _run([sys.executable, str(_job(tmp_path)), *args], tmp_path)
    assert result.returncode == 0, result.stderr
    parts = [[json.loads(line)["n"] for line in part] for part in _parts(tmp_path / "res" / "out")]
    assert len(parts) == 3
    assert all(part == sorted(part) for part in parts), parts
    assert sorted(n for part in parts for n in part) == list(range(30))
