"""What the connector benchmarks share: the sample events, building and timing a flow job in a
subprocess while a probe watches for its first output, and the verdict on what arrived.

A figure is the job's whole wall time (Spark's start included) and the time from the job's
start to the first output the probe sees (polled every ``poll_s`` seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sample_event(i: int) -> dict:
    """Event ``i`` of every connector benchmark: an id, a name of 977 and a score."""
    return {"id": i, "name": f"user-{i % 977}", "score": i % 1000}


def write_events(path: Path, count: int, start: int = 0) -> None:
    """Events ``start .. start + count - 1`` as JSON lines."""
    with open(path, "w") as out:
        for i in range(start, start + count):
            out.write(json.dumps(sample_event(i)) + "\n")


def timed_job(
    folder: Path,
    text: str,
    has_output: Callable[[], bool],
    args: Iterable[str] = (),
    env: dict[str, str] | None = None,
    poll_s: float = 0.2,
) -> dict:
    """Build ``text`` (a troy flow) in ``folder`` and run it; ``wall_s`` and ``first_s`` (None
    when the probe saw nothing). A failing job ends the benchmark with its stderr's tail."""
    (folder / "flow.troy").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    build = [sys.executable, "-m", "compiler", "build", "flow.troy", "-o", "job.py"]
    subprocess.run(build, cwd=folder, env=env, check=True)
    first: list[float] = []
    done = threading.Event()
    start = time.monotonic()

    def poll() -> None:
        while not done.is_set():
            if has_output():
                first.append(time.monotonic() - start)
                return
            time.sleep(poll_s)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    job = subprocess.run(
        [sys.executable, "job.py", *args], cwd=folder, env=env, text=True, capture_output=True
    )
    wall = time.monotonic() - start
    done.set()
    watcher.join(timeout=5)
    if job.returncode != 0:
        raise SystemExit(f"job failed: {job.stderr[-2000:]}")
    return {"wall_s": wall, "first_s": first[0] if first else None}


def verdict(ids: Iterable[int], events: int) -> str:
    """'all N once' when the ids are exactly 0..N-1, else what differs."""
    found = sorted(ids)
    if found == list(range(events)):
        return f"all {events} once"
    return f"MISMATCH: {len(found)} events, {len(set(found))} distinct"


def report(label: str, events: int, result: dict, first_what: str, tail: str = "") -> None:
    """One line: events/s over the whole run, the time to the first output, ``tail``."""
    first = result["first_s"]
    shown = f"{first:.1f} s" if first is not None else "n/a"
    rate = events / result["wall_s"]
    print(
        f"{label}: {events} events in {result['wall_s']:.1f} s = {rate:,.0f} events/s; "
        f"{first_what} after {shown}" + (f"; {tail}" if tail else ""),
        flush=True,
    )
