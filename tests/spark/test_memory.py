"""Jobs over an input 5× the driver's memory complete, and their output is complete.

A user runs ``python job.py -i DIR -o OUT --conf spark.driver.memory=512m`` on local Spark, where
the one JVM (driver and executor) then has a 512 MiB heap; the input is over 2.5 GiB of JSON lines
in several files. Checked: the JVM's heap really was 512 MiB (read back from the event log: the
block manager's on-heap storage is ``0.6 × (heap − 300 MiB)``, Spark's unified memory model), and
every expected event is in the output exactly once (counted by streaming over the part files,
never loading them), a few sampled events compared exactly.

One job (a stateless filter + patch and a keyed count window, both into ``out``), so the input is
generated (~6 s) and read once. Slow: 2-5 minutes on a busy 2-core machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from tests.support.paths import ROOT

MIB = 1 << 20
DRIVER_MEMORY_MIB = 512
INPUT_BYTES = 5 * DRIVER_MEMORY_MIB * MIB + 64 * MIB  # a little over 5× the heap
FILES = 10
PAD = "".join(chr(35 + (i * 7) % 57) for i in range(8000))  # printable ASCII, no JSON escapes
LEVELS = ("debug", "info", "warn", "error", "info")
KEYS = 97
WINDOW = 50

PROGRAM = f"""\
define window by_n from tumbling
with
  size = {WINDOW}
end;

select patch event of upsert "kept" => true end
from in
where event.level != "debug"
into out;

select {{
  "key": group[0],
  "count": aggr::stats::count(),
  "first": aggr::win::first(event.seq),
  "last": aggr::win::last(event.seq)
}}
from in[by_n]
group by event.key
into out;
"""


def line(seq: int) -> str:
    """Input event ``seq``: the level cycles through ``LEVELS``, the key through ``KEYS``."""
    return f'{{"seq":{seq},"key":"k{seq % KEYS}","level":"{LEVELS[seq % 5]}","pad":"{PAD}"}}\n'


def event_count() -> int:
    """How many events make :data:`INPUT_BYTES` (a multiple of ``FILES``)."""
    events = -(-INPUT_BYTES // len(line(10**6)))
    return events + (-events) % FILES


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """:func:`event_count` events in ``FILES`` files (``part00.json``… in input order); removed
    after the module's tests."""
    folder = tmp_path_factory.mktemp("big_input")
    per_file = event_count() // FILES
    for index in range(FILES):
        with open(folder / f"part{index:02d}.json", "w") as handle:
            handle.writelines(line(seq) for seq in range(index * per_file, (index + 1) * per_file))
    assert sum(path.stat().st_size for path in folder.iterdir()) >= 5 * DRIVER_MEMORY_MIB * MIB
    yield folder
    for path in folder.iterdir():
        path.unlink()


def run_job(folder: Path, name: str, program: str, inputs: Path, *options: str) -> Path:
    """Build ``program`` and run it as a user does with a 512m driver and an event log; the
    output folder."""
    source, job = folder / name, folder / "job.py"
    source.write_text(program)
    built = CliRunner().invoke(cli, ["build", str(source), "-o", str(job)])
    assert built.exit_code == 0, built.output
    (folder / "eventlog").mkdir()
    conf = {
        "spark.driver.memory": f"{DRIVER_MEMORY_MIB}m",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": (folder / "eventlog").as_uri(),
        "spark.eventLog.compress": "false",
    }
    command = [sys.executable, str(job), "-i", str(inputs), "-o", str(folder / "out"), *options]
    command += [arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, first_errors(result.stderr) + result.stderr[-2000:]
    assert_heap(folder / "eventlog")
    return folder / "out"


def first_errors(stderr: str) -> str:
    """The first lines of ``stderr`` that name an error (a JVM trace's cause is at its top)."""
    lines = [text for text in stderr.splitlines() if "Error" in text or "Exception" in text]
    return "\n".join(lines[:15]) + "\n…\n"


def assert_heap(events: Path) -> None:
    """The driver's block manager had the on-heap storage of a 512 MiB heap (no more)."""
    files = sorted(events.glob("*/events_*")) or sorted(events.glob("*"))
    storage = [
        record["Maximum Onheap Memory"]
        for path in files
        for record in map(json.loads, path.read_text().splitlines())
        if record["Event"] == "SparkListenerBlockManagerAdded"
    ]
    assert storage and max(storage) <= 0.6 * (DRIVER_MEMORY_MIB - 300) * MIB, storage


def port_lines(out: Path, port: str) -> Iterator[bytes]:
    """Every line of ``out/<port>/part-*``, streamed."""
    for part in sorted((out / port).glob("part-*")):
        with open(part, "rb") as handle:
            for text in handle:
                yield text.rstrip(b"\n")


def other_ports_empty(out: Path, kept: str) -> None:
    for port in sorted(path.name for path in out.iterdir() if path.name != kept):
        assert next(port_lines(out, port), None) is None, f"events on port {port}"


def expected_windows(total: int) -> dict[tuple[int, int], str]:
    """Each full count window of each key (an unfilled one is never emitted), by (key, first
    seq): key ``k`` has the events ``k``, ``k + KEYS``, ``k + 2 KEYS``…"""
    expected = {}
    for key in range(KEYS):
        seqs = range(key, total, KEYS)
        for start in range(0, len(seqs) - WINDOW + 1, WINDOW):
            first, last = seqs[start], seqs[start + WINDOW - 1]
            record = f'{{"key":"k{key}","count":{WINDOW},"first":{first},"last":{last}}}'
            expected[(key, first)] = record
    return expected


@pytest.mark.spark
def test_job_over_five_times_the_driver_memory(big_input: Path, tmp_path: Path) -> None:
    """The filter's events (every non-debug one, patched) and the keyed windows, all on ``out``."""
    out = run_job(
        tmp_path, "job.trickle", PROGRAM, big_input, "--conf", "spark.sql.shuffle.partitions=4"
    )
    total = event_count()
    seen = bytearray(total)
    samples: dict[int, bytes | None] = {0: None, 1: None, total // 2 + 1: None, total - 1: None}
    windows: dict[tuple[int, int], str] = {}
    for text in port_lines(out, "out"):
        if text.startswith(b'{"key":'):
            record = json.loads(text)
            index = (int(record["key"][1:]), record["first"])
            assert index not in windows, f"twice: {text!r}"
            windows[index] = text.decode()
            continue
        seq = int(text[7 : text.index(b",", 7)])
        seen[seq] += 1
        if seq in samples:
            samples[seq] = text
    kept = [seq for seq in range(total) if LEVELS[seq % 5] != "debug"]
    assert sum(seen) == len(kept) and all(seen[seq] == 1 for seq in kept)
    for seq, text in samples.items():
        expected = None if seq % 5 == 0 else line(seq).rstrip("\n")[:-1] + ',"kept":true}'
        assert (text.decode() if text else None) == expected, seq
    assert windows == expected_windows(total)
    other_ports_empty(out, "out")
