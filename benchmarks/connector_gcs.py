"""End to end: JSON-lines files → pipeline → ``gcs_streamer`` part files on fake-gcs-server
started here (tests/servers/gcs.py), through the generated flow job on Hadoop's ``gs``
(gcs-connector). Prints events/s (over the job's whole wall time, Spark's start included) and
the time to the first output object (job start → the first ``part-`` object listed, polled
every 0.2 s), and checks every event arrived once. Never a unit test.

Usage::

    python benchmarks/connector_gcs.py [--events 100000] [--files 10] [--no-stream]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import gcs  # noqa: E402

FLOW = """define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {reader} end;
  define connector dst from gcs_streamer
  with codec = "json", postprocessors = ["separate"], config = {streamer} end;
  define pipeline p
  pipeline
    select {{"id": event.id, "name": event.name, "score": event.score * 2}} from in into out;
  end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def write_events(folder: Path, events: int, files: int) -> None:
    folder.mkdir(parents=True)
    per = -(-events // files)
    for index in range(files):
        ids = range(index * per, min(events, (index + 1) * per))
        lines = (json.dumps({"id": i, "name": f"user-{i % 977}", "score": i % 1000}) for i in ids)
        (folder / f"{index:04d}.json").write_text("".join(line + "\n" for line in lines))


def part_names(server: gcs.Gcs, prefix: str) -> list[str]:
    listing = json.loads(server._call("GET", f"storage/v1/b/bucket/o?prefix={prefix}"))
    return [item["name"] for item in listing.get("items", []) if "/part-" in item["name"]]


def timed_run(folder: Path, text: str, server: gcs.Gcs, prefix: str, args: list[str]) -> dict:
    (folder / "flow.troy").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    build = [sys.executable, "-m", "compiler", "build", "flow.troy", "-o", "job.py"]
    subprocess.run(build, cwd=folder, env=env, check=True)
    first: list[float] = []
    done = threading.Event()
    start = time.monotonic()

    def poll() -> None:
        while not done.is_set():
            if part_names(server, prefix):
                first.append(time.monotonic() - start)
                return
            time.sleep(0.2)

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


def check(server: gcs.Gcs, prefix: str, events: int) -> str:
    """'all N once' when every id 0..N-1 is there exactly once, else what differs."""
    objects = server.objects("bucket")
    ids = sorted(
        json.loads(line)["id"]
        for name, data in objects.items()
        if name.startswith(prefix) and "/part-" in name
        for line in data.decode().splitlines()
        if line
    )
    if ids == list(range(events)):
        return f"all {events} once"
    return f"MISMATCH: {len(ids)} events, {len(set(ids))} distinct"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--no-stream", action="store_true")
    args = parser.parse_args()
    if gcs.binary() is None:
        raise SystemExit(gcs.skip_reason())
    with tempfile.TemporaryDirectory(prefix="tremorc-bench-gcs-") as tmp:
        folder = Path(tmp)
        write_events(folder / "in", args.events, args.files)
        with gcs.gcs_server(folder / "gcs") as server:
            server.create_bucket("bucket")
            reader = json.dumps({"path": str(folder / "in"), "mode": "read"})
            runs = [("batch", "out", [])]
            if not args.no_stream:
                stream = ["--stream", "--checkpoint", str(folder / "ck")]
                runs.append(("stream", "live", [*stream, "--trigger", "available-now"]))
            for name, path, extra in runs:
                streamer = json.dumps({"bucket": "bucket", "path": path, "url": server.upload_url})
                text = FLOW.format(reader=reader, streamer=streamer)
                result = timed_run(folder, text, server, path + "/", extra)
                verdict = check(server, path + "/", args.events)
                first = result["first_s"]
                shown = f"{first:.1f} s" if first is not None else "n/a"
                print(
                    f"gcs {name}: {args.events} events in {result['wall_s']:.1f} s = "
                    f"{args.events / result['wall_s']:,.0f} events/s; first object after "
                    f"{shown}; {verdict}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
