"""Exactly once through crashes: a streaming job (``python job.py --stream``, a subprocess) is
killed with SIGKILL, driver, JVM and Python workers at once, at 2 seeded random points
mid-stream and restarted from its checkpoint each time until it has read every file. Its output
equals that of an uninterrupted run of the same job over the same files: the same part files per
micro-batch, byte for byte, and the same multiset of lines per port read back with Spark (no event
lost, none duplicated). A kill lands at a random delay after the attempt's first new commit
(``CHECKPOINT/query/commits``), so each attempt makes progress and dies inside a later batch."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.paths import ROOT
from tests.support.proc_tree import kill_tree

# A script, then a keyed tilt frame: a 3-event size window feeding a 25-unit interval window
# (``--ingest-ns index``: event i is at time i, so every run sees the same times).
PIPELINE = """
define script tag
script
  let event.rest = event.n % 3;
  event
end;
create script tag;

define window three from tumbling
with
  size = 3
end;

define window span from tumbling
with
  interval = 25
end;

select event from in into tag;

select {
  "key": group[0],
  "count": aggr::stats::count(),
  "sum": aggr::stats::sum(event.n),
  "rests": aggr::stats::max(event.rest)
}
from tag[three, span]
group by event.k
into out;
"""
# 30 files, two per micro-batch: 15 batches, enough that two kills (each after at least one
# commit and at most a second more) land before the stream runs out on a fast machine too (with
# 20 files a quiet machine finished in four attempts). Each attempt costs a driver's start and a
# first micro-batch (~20 s on a busy machine): two kills, not three, keep the test at about a
# minute and a half (a third kill tested nothing the second does not).
FILES, PER_FILE, KEYS = 30, 6, 5
KILLS, SEED = 2, 20261124
PORTS = ("out", "err", "error_log")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
RUN_TIMEOUT = 600


def _inputs(folder: Path) -> None:
    """``FILES`` JSON-lines files, modification times one second apart (the read order)."""
    folder.mkdir()
    number = 0
    for index in range(FILES):
        path = folder / f"events-{index:04d}.json"
        with path.open("w", encoding="utf-8") as handle:
            for _ in range(PER_FILE):
                handle.write(json.dumps({"k": f"k{(number * 7) % KEYS}", "n": number}) + "\n")
                number += 1
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))


def _start(job: Path, work: Path, out: str) -> subprocess.Popen:
    args = [sys.executable, str(job), "--stream", "--checkpoint", str(work / f"ck-{out}")]
    args += ["-i", str(work / "in"), "-o", str(work / out), "--trigger", "available-now"]
    args += ["--files-per-batch", "2", "--partitions", "2", "--ingest-ns", "index"]
    return subprocess.Popen(
        args,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the driver and its JVM
    )


def _commits(work: Path) -> int:
    folder = work / "ck-crashed" / "query" / "commits"
    return sum(name.isdigit() for name in os.listdir(folder)) if folder.is_dir() else 0


def _run_with_kills(job: Path, work: Path, rng: random.Random) -> int:
    """Kill ``KILLS`` attempts, then let one finish; the number of kills done."""
    kills = 0
    while True:
        process = _start(job, work, "crashed")
        if kills == KILLS:
            _finish(process)
            return kills
        before = _commits(work)
        while _commits(work) == before and process.poll() is None:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 1.0))
        if process.poll() is not None:  # ran out of files before the kill: no more kills
            _finish(process)
            return kills
        kill_tree(process.pid)
        process.wait()
        kills += 1


def _finish(process: subprocess.Popen) -> None:
    _, err = process.communicate(timeout=RUN_TIMEOUT)
    assert process.returncode == 0, err.decode(errors="replace")[-3000:]


def _part_files(folder: Path) -> dict[str, dict[str, bytes]]:
    """Per port, each part file's name and bytes; nothing else in a port's folder."""
    found: dict[str, dict[str, bytes]] = {}
    for port in PORTS:
        names = sorted(os.listdir(folder / port))
        assert all(n.startswith("part-") and n.endswith(".json") for n in names), names
        found[port] = {name: (folder / port / name).read_bytes() for name in names}
    return found


def _read_back(spark, folder: Path) -> dict[str, Counter]:
    """Each port's lines as Spark reads the folder (a plain reader's view)."""
    lines: dict[str, Counter] = {}
    for port in PORTS:
        rows = spark.read.text(str(folder / port)).collect() if os.listdir(folder / port) else []
        lines[port] = Counter(row.value for row in rows)
    return lines


def test_sigkill_mid_stream_loses_and_duplicates_nothing(spark, tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    compiled = compile_source(Source("crash.trickle", PIPELINE), kind_of(Path("crash.trickle")))
    job.write_text(compiled.job, encoding="utf-8")
    _inputs(tmp_path / "in")
    plain = _start(job, tmp_path, "plain")  # alongside: the machine idles while a JVM starts
    kills = _run_with_kills(job, tmp_path, random.Random(SEED))
    _finish(plain)
    assert kills == KILLS

    crashed, uninterrupted = tmp_path / "crashed", tmp_path / "plain"
    files = _part_files(crashed)
    assert files == _part_files(uninterrupted)
    assert len({name.split("-")[1] for name in files["out"]}) >= 7  # many micro-batches
    lines = _read_back(spark, crashed)
    assert lines == _read_back(spark, uninterrupted)
    counts = Counter(json.loads(line)["key"] for line in lines["out"].elements())
    assert sorted(counts) == [f"k{i}" for i in range(KEYS)]
    # What else is left: only folders a reader skips (underscore: an interrupted batch's
    # ``_tmp-<batch>``) beside the port folders.
    extra = [n for n in os.listdir(crashed) if n not in PORTS]
    assert all(name.startswith("_tmp-") for name in extra), extra
