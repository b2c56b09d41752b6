"""Steady memory of a streaming job: prints a table and writes JSON (never a unit test).

Usage::

    python benchmarks/stream_memory.py [--events 10000000] [--per-file 100000] [--groups 1000]
        [--budget SECONDS] [--json stream_memory.json]

The pipeline is ``benchmarks/scale/groups1000.trickle`` (``group by each(event.keys)`` over
``--groups`` keys, a 10-event size window feeding a 10 s interval window, four aggregates). The
events (built as in ``scaling.py`` from ``../shared/workloads/data/data.json.xz``) are written as
``--events / --per-file`` JSON-lines files; the job runs once as a subprocess:
``--stream --trigger available-now --files-per-batch 1 --partitions 2 --ingest-ns wallclock``,
so each micro-batch reads one file. Every 0.5 s the run samples the resident memory of the
driver, its JVM and the Python workers (``/proc``) and the committed micro-batches
(``CHECKPOINT/query/commits``). Reported: RSS after 1M events and after the last event (the
first sample once that batch is committed), the peak, and events/s/core = events / wall seconds
/ 2 cores, both over the whole run (JVM start included) and over the steady part (from the first
commit to the last). ``--budget`` stops the run (SIGINT) after that many seconds: the figures
then cover the events committed so far.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scaling import make_data  # noqa: E402
from tests.support.proc_tree import kill_tree, tree_rss  # noqa: E402

PIPELINE = ROOT / "benchmarks" / "scale" / "groups1000.trickle"
CORES = 2
MB = 1 << 20


def write_files(events: int, per_file: int, groups: int, folder: Path) -> int:
    """The events as files of ``per_file`` lines, modification times 1 s apart; their count."""
    source = make_data(events, groups, folder)
    inputs = folder / "in"
    inputs.mkdir()
    count = 0
    with source.open() as lines:
        while True:
            chunk = [line for _, line in zip(range(per_file), lines, strict=False)]
            if not chunk:
                break
            path = inputs / f"events-{count:05d}.json"
            path.write_text("".join(chunk))
            os.utime(path, (1_700_000_000 + count, 1_700_000_000 + count))
            count += 1
    source.unlink()
    Path(f"{source}.warm").unlink()
    return count


def build(folder: Path) -> Path:
    job = folder / "job.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "compiler", "build", str(PIPELINE), "-o", str(job)]
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    return job


def commits(checkpoint: Path) -> int:
    folder = checkpoint / "query" / "commits"
    return sum(name.isdigit() for name in os.listdir(folder)) if folder.is_dir() else 0


def run(job: Path, folder: Path, budget: float | None) -> list[dict]:
    """The job over ``folder/in``; the samples (``t``, ``batches``, RSS by kind)."""
    checkpoint = folder / "ck"
    command = [sys.executable, str(job), "--stream", "--checkpoint", str(checkpoint)]
    command += ["-i", str(folder / "in"), "-o", str(folder / "out")]
    command += ["--trigger", "available-now", "--files-per-batch", "1", "--partitions", "2"]
    command += ["--ingest-ns", "wallclock"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, start_new_session=True)
    samples: list[dict] = []
    stopped = False
    while process.poll() is None:
        now = time.monotonic() - start
        samples.append({"t": now, "batches": commits(checkpoint), **tree_rss(process.pid)})
        if budget is not None and now > budget and not stopped:
            process.send_signal(signal.SIGINT)
            stopped = True
        time.sleep(0.5)
    if process.returncode not in (0, 130):
        kill_tree(process.pid)
        raise SystemExit(f"the job failed with exit code {process.returncode}")
    samples.append({"t": time.monotonic() - start, "batches": commits(checkpoint)})
    return samples


def at_batches(samples: list[dict], batches: int) -> dict | None:
    """The first sample with memory figures once ``batches`` are committed."""
    for sample in samples:
        if sample["batches"] >= batches and "jvm" in sample:
            return sample
    return None


def first_time(samples: list[dict], batches: int) -> float:
    return next(s["t"] for s in samples if s["batches"] >= batches)


def summary(samples: list[dict], per_file: int, files: int) -> dict:
    """The figures the README reports (see the module doc)."""
    done = samples[-1]["batches"]
    events = min(done, files) * per_file
    rss = {}
    for label, batches in (("1M", -(-1_000_000 // per_file)), ("last", done)):
        sample = at_batches(samples, batches)
        if sample is not None:
            rss[label] = {k: sample[k] // MB for k in ("driver", "jvm", "workers")}
            rss[label]["total"] = sum(rss[label].values())
            rss[label]["events"] = sample["batches"] * per_file
    peak = max(s["driver"] + s["jvm"] + s["workers"] for s in samples if "jvm" in s) // MB
    steady = first_time(samples, done) - first_time(samples, 1) if done > 1 else 0.0
    return {
        "events": events,
        "micro_batches": done,
        "wall_s": round(samples[-1]["t"], 1),
        "rss_mb": rss,
        "peak_rss_mb": peak,
        "events_per_s_per_core": round(events / samples[-1]["t"] / CORES),
        "steady_events_per_s_per_core": (
            round((done - 1) * per_file / steady / CORES) if steady else None
        ),
    }


def table(result: dict) -> str:
    lines = [f"{'after':>12} {'driver':>8} {'jvm':>8} {'workers':>8} {'total MB':>9}"]
    for label, row in result["rss_mb"].items():
        name = f"{row['events']:,} ev" if label != "1M" else "1M ev"
        lines.append(
            f"{name:>12} {row['driver']:>8} {row['jvm']:>8} {row['workers']:>8} {row['total']:>9}"
        )
    lines.append(f"peak total RSS: {result['peak_rss_mb']} MB")
    lines.append(
        f"{result['events']:,} events in {result['micro_batches']} micro-batches, "
        f"{result['wall_s']} s: {result['events_per_s_per_core']:,} events/s/core "
        f"(steady: {result['steady_events_per_s_per_core']:,})"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--per-file", type=int, default=100_000)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--budget", type=float, help="stop after this many seconds")
    parser.add_argument("--json", default="stream_memory.json")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tremorc-stream-memory-") as temp:
        folder = Path(temp)
        files = write_files(args.events, args.per_file, args.groups, folder)
        job = build(folder)
        samples = run(job, folder, args.budget)
    result = summary(samples, args.per_file, files)
    result["load_average_at_start"] = load
    result["requested_events"] = args.events
    Path(args.json).write_text(json.dumps({"summary": result, "samples": samples}, indent=1))
    print(table(result))


if __name__ == "__main__":
    main()
