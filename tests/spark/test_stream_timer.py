"""Ticks are timers: a streaming job with a continuous trigger (``--trigger 1s --tick 100ms``,
``--ingest-ns wallclock``) reads one file of events and then nothing more; its 2 s interval
windows still close, on a processing-time timer, in a later micro-batch than the one that read
the events, within a bound. SIGINT then stops the job cleanly: exit code 130, its JVM and Python
workers gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.paths import ROOT
from tests.support.proc_tree import alive, descendants, kill_tree

PIPELINE = """
define window two_seconds from tumbling
with
  interval = 2000000000
end;

select {"key": group[0], "count": aggr::stats::count(), "sum": aggr::stats::sum(event.n)}
from in[two_seconds]
group by event.k
into out;
"""
EVENTS = 40
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
START_TIMEOUT = 300  # a JVM starting on a busy 2-core machine
CLOSE_BOUND = 60  # seconds from the events' commit to the window's output (2 s + ticks + load)


def _wait_for(check, timeout: float, process: subprocess.Popen):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        assert process.poll() is None, process.communicate()[1].decode(errors="replace")[-3000:]
        time.sleep(0.05)
    return None


def _outputs(folder: Path) -> list[str]:
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def test_interval_window_closes_on_a_timer_without_further_events(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    compiled = compile_source(Source("timer.trickle", PIPELINE), kind_of(Path("timer.trickle")))
    job.write_text(compiled.job, encoding="utf-8")
    (tmp_path / "in").mkdir()
    events = [{"k": f"k{n % 2}", "n": n} for n in range(EVENTS)]
    text = "".join(json.dumps(event) + "\n" for event in events)
    (tmp_path / "in" / "events.json").write_text(text, encoding="utf-8")
    args = [sys.executable, str(job), "--stream", "--checkpoint", str(tmp_path / "ck")]
    args += ["-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--trigger", "1s"]
    args += ["--tick", "100ms", "--ingest-ns", "wallclock", "--partitions", "2"]
    process = subprocess.Popen(
        args, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        first = tmp_path / "ck" / "query" / "commits" / "0"
        assert _wait_for(first.exists, START_TIMEOUT, process), "no micro-batch committed"
        assert _outputs(tmp_path / "out" / "out") == []  # the window is still open
        parts = _wait_for(lambda: _outputs(tmp_path / "out" / "out"), CLOSE_BOUND, process)
        assert parts, f"the window did not close within {CLOSE_BOUND} s of the events' batch"
        tree = descendants(process.pid)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            kill_tree(process.pid)
    assert process.returncode == 130, err.decode(errors="replace")[-3000:]
    # the window closed in a later micro-batch than its events' (no wall-clock bound: noisy)
    assert all(int(name.split("-")[1]) >= 1 for name in parts), parts
    rows = [json.loads(line) for name in parts for line in (tmp_path / "out" / "out" / name).open()]
    assert sorted((r["key"], r["count"], r["sum"]) for r in rows) == [
        ("k0", EVENTS // 2, float(sum(range(0, EVENTS, 2)))),
        ("k1", EVENTS // 2, float(sum(range(1, EVENTS, 2)))),
    ]
    _gone_within(tree, 60)


def _gone_within(pids: list[int], timeout: float) -> None:
    """Every process of the job exits after the driver does (no orphaned JVM)."""
    deadline = time.monotonic() + timeout
    left = pids
    while time.monotonic() < deadline:
        left = [pid for pid in pids if alive(pid)]
        if not left:
            return
        time.sleep(0.2)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"processes {left} outlived the stopped job")
