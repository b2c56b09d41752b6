"""The hostile-input run and its accounting, shared by ``tests/e2e/test_hostile_input.py`` and
``benchmarks/hostile.py``: the built job of ``tests/fixtures/hostile/hostile.trickle`` run as a
user runs it over labelled hostile lines, and every line's fate checked against its label."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.hostile_events import Hostile, typed, write_folder, write_lines
from tests.support.paths import ROOT

PROGRAM = ROOT / "tests" / "fixtures" / "hostile" / "hostile.trickle"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
MODES = ["batch", "stream"]
# small splits so even the fast test's one file is read by several partitions
SPARK = ["--partitions", "3", "--conf", "spark.sql.files.maxPartitionBytes=1048576"]
ERROR_KINDS = {
    "invalid_utf8": "Invalid UTF-8 input: ",
    "invalid_json": "Invalid JSON input: ",
    "runtime": "Error: ",
}


def build_job(folder: Path) -> Path:
    """The hostile pipeline built into ``folder/job.py``."""
    job = folder / "job.py"
    source = Source(PROGRAM.name, PROGRAM.read_text(encoding="utf-8"))
    job.write_text(compile_source(source, kind_of(PROGRAM)).job, encoding="utf-8")
    return job


def run_job(mode: str, events: list[Hostile], folder: Path) -> dict[str, list[bytes]]:
    """Run the built job over ``events`` in ``mode``; each output port's lines (stderr checked:
    exit 0, no traceback)."""
    folder.mkdir(parents=True, exist_ok=True)
    job, out = build_job(folder), folder / "out"
    if mode == "batch":
        write_lines(folder / "in.json", events)
        args = ["-i", str(folder / "in.json"), "-o", str(out)]
    elif mode == "stream":
        write_folder(folder / "in", events, files=4)
        args = ["--stream", "--checkpoint", str(folder / "checkpoint"), "-i", str(folder / "in")]
        args += ["-o", str(out), "--trigger", "available-now", "--files-per-batch", "1", "--flush"]
    else:
        raise ValueError(f"unknown mode {mode}")
    result = subprocess.run(
        [sys.executable, str(job), *args, *SPARK],
        cwd=folder,
        env={**ENV, "PYSPARK_PYTHON": sys.executable},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=3600,
    )
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    return {port.name: _lines(port) for port in sorted(out.iterdir()) if port.is_dir()}


def _lines(folder: Path) -> list[bytes]:
    return [
        line for part in sorted(folder.glob("part-*")) for line in part.read_bytes().splitlines()
    ]


def account(events: list[Hostile], ports: dict[str, list[bytes]]) -> dict[str, int]:
    """Check every line's fate against its label; the counts (in, out, err, dropped, windows)."""
    assert set(ports) <= {"out", "err", "error_log"}, sorted(ports)
    assert ports.get("error_log", []) == []
    outs = [json.loads(line) for line in ports["out"]]  # the stdlib's parser, not tremorc's
    windows = [v for v in outs if isinstance(v, dict) and "window" in v]
    passed = [v for v in outs if not (isinstance(v, dict) and "window" in v)]
    errors = [json.loads(line) for line in ports["err"]]
    for record in errors:
        assert set(record) == {"error", "event"} and record["error"], record
    want_out = Counter(typed(e.expect) for e in events if e.fate == "out")
    assert Counter(typed(v) for v in passed) == want_out
    want_err = Counter((ERROR_KINDS[e.kind], typed(e.expect)) for e in events if e.fate == "err")
    got_err = Counter((_kind(r["error"]), typed(r["event"])) for r in errors)
    assert got_err == want_err
    _check_windows(events, windows)
    counts = {
        "in": len(events),
        "out": len(passed),
        "err": len(errors),
        "dropped": sum(e.fate == "drop" for e in events),
        "windows": len(windows),
    }
    assert counts["in"] == counts["out"] + counts["err"] + counts["dropped"]
    return counts


def _kind(error: str) -> str:
    return next((p for p in ERROR_KINDS.values() if error.startswith(p)), error)


def _check_windows(events: list[Hostile], windows: list[dict]) -> None:
    """The keyed window counts, summed per key, and the global one's are what reached ``out``."""
    per_key = Counter(e.expect["key"] for e in events if e.fate == "out")
    keyed, total = Counter(), 0
    for window in windows:
        if window["window"] == "keyed":
            keyed[window["key"]] += window["count"]
        else:
            total += window["count"]
    assert keyed == per_key
    assert total == sum(per_key.values())
