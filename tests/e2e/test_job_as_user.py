"""A generated job as a user runs it: ``python job.py`` in a subprocess.

An input that cannot be read is one line naming it and exit code 2 (never a traceback); stderr
stays quiet unless ``--verbose``; on a terminal (a pty) a status line shows the progress, and
nothing of the sort when stderr is a pipe.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.paths import ROOT

QUERY = 'select {"n": event.n} from in where event.n > 1 into out;\n'
FLOW = """define flow main
flow
  define connector input from file
  with
    codec = "json",
    preprocessors = ["separate"],
    config = {{"path": "{path}", "mode": "read"}}
  end;
  define connector output from stdio
  with
    postprocessors = ["separate"]
  end;
  define pipeline pass
  pipeline
    select event from in into out;
  end;
  create connector input;
  create connector output;
  create pipeline pass;
  connect /connector/input to /pipeline/pass;
  connect /pipeline/pass to /connector/output;
end;
deploy flow main;
"""
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _job(folder: Path, text: str, extension: str) -> Path:
    name = f"input.{extension}"
    job = folder / "job.py"
    job.write_text(compile_source(Source(name, text), kind_of(Path(name))).job, encoding="utf-8")
    return job


def _run(job: Path, *args: str, stderr=subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(job), *args],
        cwd=job.parent,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=stderr,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=600,
    )


def _one_line_error(result: subprocess.CompletedProcess[str], path: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"Error: can not read {path}: "), result.stderr


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("missing.json", "No such file"),
        ("folder", "a folder with no file in it"),
        ("in.json/x", "Not a"),
    ],
)
def test_unreadable_input_is_one_line_and_exit_2(tmp_path: Path, name: str, reason: str) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "in.json").write_text('{"n": 2}\n')
    result = _run(_job(tmp_path, QUERY, "trickle"), "-i", name)
    _one_line_error(result, name)
    assert reason in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_input_without_read_permission(tmp_path: Path) -> None:
    (tmp_path / "locked.json").write_text('{"n": 2}\n')
    (tmp_path / "locked.json").chmod(0)
    result = _run(_job(tmp_path, QUERY, "trickle"), "-i", "locked.json")
    _one_line_error(result, "locked.json")


@pytest.mark.parametrize("name", ["missing.json", "folder"])
def test_flow_with_unreadable_file_source(tmp_path: Path, name: str) -> None:
    (tmp_path / "folder").mkdir()
    result = _run(_job(tmp_path, FLOW.format(path=name), "troy"))
    _one_line_error(result, name)


def _events(n: int) -> str:
    return "".join(f'{{"n": {i}}}\n' for i in range(n))


@pytest.mark.spark
def test_quiet_stderr_and_no_progress_when_not_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(_events(4))
    result = _run(_job(tmp_path, QUERY, "trickle"), "-i", "in.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout == '{"n":2}\n{"n":3}\n'
    assert result.stderr == ""


@pytest.mark.spark
def test_verbose_lets_spark_talk(tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text(_events(3))
    result = _run(_job(tmp_path, QUERY, "trickle"), "-i", "in.json", "--verbose")
    assert result.returncode == 0, result.stderr
    assert result.stdout == '{"n":2}\n'
    assert result.stderr.strip(), "the JVM's own start-up output reaches stderr"


@pytest.mark.spark
def test_progress_on_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "flow.json").write_text(_events(50))
    job = _job(tmp_path, FLOW.format(path="flow.json"), "troy")
    controller, terminal = pty.openpty()
    chunks: list[bytes] = []
    reader = threading.Thread(target=_drain, args=(controller, chunks), daemon=True)
    reader.start()  # read while the job writes: a full pty buffer would block it
    try:
        result = _run(job, stderr=terminal)
    finally:
        os.close(terminal)
    reader.join(timeout=30)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert result.returncode == 0, shown
    assert result.stdout.splitlines() == [f'{{"n":{i}}}' for i in range(50)]
    lines = shown.replace("\x1b[K", "").replace("\r", "\n").splitlines()
    status = [line for line in lines if line.startswith("tremorc: ")]
    assert any("running" in line for line in status), shown  # redrawn while the job runs
    assert status[-1].endswith(" s") and "50 events written in" in status[-1], shown
    assert "stages done" in status[-1]
    assert "Traceback" not in shown and "WARN" not in shown


def _drain(fd: int, chunks: list[bytes]) -> None:
    """Read the terminal's output until its other end is closed."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end is closed and everything has been read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
