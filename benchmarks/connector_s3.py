"""End to end: objects under an S3 prefix → pipeline → ``s3_streamer`` part files, on moto's
S3 server started here (tests/support/servers/s3.py), through the generated flow job on s3a. Prints
events/s (over the job's whole wall time, Spark's start included) and the time to the first
output object (job start → the first ``part-`` object listed, polled every 0.2 s). Never a
unit test.

Usage::

    python benchmarks/connector_s3.py [--events 100000] [--objects 10] [--no-stream]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.flow_timing import report, sample_event, timed_job, verdict  # noqa: E402
from tests.support.servers import s3  # noqa: E402

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
        body = "".join(json.dumps(sample_event(i)) + "\n" for i in ids)
        client.put_object(Bucket=bucket, Key=f"in/{index:04d}.json", Body=body.encode())


def has_parts(server: s3.S3Server, prefix: str) -> bool:
    return any("/part-" in key for key in server.keys("bucket", prefix))


def output_events(server: s3.S3Server, bucket: str, prefix: str) -> list[dict]:
    found = []
    for key in server.keys(bucket, prefix):
        if key.rsplit("/", 1)[-1].startswith("part-"):
            found += [json.loads(line) for line in server.text(bucket, key).splitlines() if line]
    return found


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
                env = {"AWS_ACCESS_KEY_ID": s3.KEY, "AWS_SECRET_ACCESS_KEY": s3.SECRET}
                prefix = path + "/"
                probe = partial(has_parts, server, prefix)
                result = timed_job(folder, text, probe, extra, env)
                ids = (event["id"] for event in output_events(server, "bucket", prefix))
                report(f"s3 {name}", args.events, result, "first object", verdict(ids, args.events))


if __name__ == "__main__":
    main()
