"""End to end: JSON-lines files → pipeline → ``gcs_streamer`` part files on fake-gcs-server
started here (tests/support/servers/gcs.py), through the generated flow job on Hadoop's ``gs``
(gcs-connector). Prints events/s (over the job's whole wall time, Spark's start included) and
the time to the first output object (job start → the first ``part-`` object listed, polled
every 0.2 s), and checks every event arrived once. Never a unit test.

Usage::

    python benchmarks/connector_gcs.py [--events 100000] [--files 10] [--no-stream]
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

from benchmarks.flow_timing import report, timed_job, verdict  # noqa: E402
from benchmarks.flow_timing import write_events as write_file  # noqa: E402
from tests.support.servers import gcs  # noqa: E402

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
        start = index * per
        write_file(folder / f"{index:04d}.json", max(0, min(events, start + per) - start), start)


def part_names(server: gcs.Gcs, prefix: str) -> list[str]:
    listing = json.loads(server._call("GET", f"storage/v1/b/bucket/o?prefix={prefix}"))
    return [item["name"] for item in listing.get("items", []) if "/part-" in item["name"]]


def output_ids(server: gcs.Gcs, prefix: str) -> list[int]:
    objects = server.objects("bucket")
    return [
        json.loads(line)["id"]
        for name, data in objects.items()
        if name.startswith(prefix) and "/part-" in name
        for line in data.decode().splitlines()
        if line
    ]


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
                prefix = path + "/"
                result = timed_job(folder, text, partial(part_names, server, prefix), extra)
                ids = output_ids(server, prefix)
                report(
                    f"gcs {name}", args.events, result, "first object", verdict(ids, args.events)
                )


if __name__ == "__main__":
    main()
