"""End to end: objects under an S3 prefix → pipeline → ``s3_streamer`` part files, on moto's
S3 server started here (tests/servers/s3.py), through the generated flow job on s3a. Prints
events/s (over the job's whole wall time, Spark's start included) and the time to the first
output object (job start → the first ``part-`` object listed, polled every 0.2 s). Never a
unit test.

Usage::

    python benchmarks/connector_s3.py [--events 100000] [--objects 10] [--no-stream]
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

from tests.servers import s3  # noqa: E402

FLOW = """define flow main
flow
  define connector src from s3_reader
  with codec = "json", preprocessors = ["separate"], config = {reader} end;
  define connector dst from s3_streamer
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


def put_events(server: s3.S3Server, bucket: str, events: int, objects: int) -> None:
    """``events`` JSON lines spread over ``objects`` objects under ``in/``."""
    server.bucket(bucket)
    client = server.client()
    per = -(-events // objects)
    for index in range(objects):
        ids = range(index * per, min(events, (index + 1) * per))
        body = "".join(
            json.dumps({"id": i, "name": f"user-{i % 977}", "score": i % 1000}) + "\n" for i in ids
        )
        client.put_object(Bucket=bucket, Key=f"in/{index:04d}.json", Body=body.encode())


def output_events(server: s3.S3Server, bucket: str, prefix: str) -> list[dict]:
    found = []
    for key in server.keys(bucket, prefix):
        if key.rsplit("/", 1)[-1].startswith("part-"):
            found += [json.loads(line) for line in server.text(bucket, key).splitlines() if line]
    return found


def timed_run(folder: Path, text: str, server: s3.S3Server, prefix: str, args: list[str]) -> dict:
    """Build and run the flow; wall time, the first output object's time, the output events."""
    (folder / "flow.troy").write_text(text)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "AWS_ACCESS_KEY_ID": s3.KEY,
        "AWS_SECRET_ACCESS_KEY": s3.SECRET,
    }
    build = [sys.executable, "-m", "compiler", "build", "flow.troy", "-o", "job.py"]
    subprocess.run(build, cwd=folder, env=env, check=True)
    first: list[float] = []
    done = threading.Event()
    start = time.monotonic()

    def poll() -> None:
        while not done.is_set():
            if any("/part-" in key for key in server.keys("bucket", prefix)):
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


def check(found: list[dict], events: int) -> str:
    """'all N once' when every id 0..N-1 is there exactly once, else what differs."""
    ids = sorted(event["id"] for event in found)
    if ids == list(range(events)):
        return f"all {events} once"
    return f"MISMATCH: {len(ids)} events, {len(set(ids))} distinct"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--objects", type=int, default=10)
    parser.add_argument("--no-stream", action="store_true")
    args = parser.parse_args()
    if not s3.available():
        raise SystemExit(f"moto[server] is not installed: run {s3.INSTALL}")
    with tempfile.TemporaryDirectory(prefix="tremorc-bench-s3-") as tmp:
        folder = Path(tmp)
        with s3.s3_server(folder / "moto") as server:
            put_events(server, "bucket", args.events, args.objects)
            endpoint = {"url": server.url, "aws_region": s3.REGION}
            reader = json.dumps({"bucket": "bucket", "prefix": "in/", **endpoint})
            runs = [("batch", "out", [])]
            if not args.no_stream:
                stream = ["--stream", "--checkpoint", str(folder / "ck")]
                runs.append(("stream", "live", [*stream, "--trigger", "available-now"]))
            for name, path, extra in runs:
                streamer = json.dumps({"bucket": "bucket", "path": path, **endpoint})
                text = FLOW.format(reader=reader, streamer=streamer)
                result = timed_run(folder, text, server, path + "/", extra)
                verdict = check(output_events(server, "bucket", path + "/"), args.events)
                first = result["first_s"]
                shown = f"{first:.1f} s" if first is not None else "n/a"
                print(
                    f"s3 {name}: {args.events} events in {result['wall_s']:.1f} s = "
                    f"{args.events / result['wall_s']:,.0f} events/s; first object after "
                    f"{shown}; {verdict}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
