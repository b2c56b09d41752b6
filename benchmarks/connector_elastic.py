"""End to end: a JSON-lines file → pipeline (``generic::batch`` of 500) → Elasticsearch, on a
server started here (tests/support/servers/elastic.py), through the generated flow job. Prints
events/s
(over the job's whole wall time, Spark's start included) and the time to the first document
(job start → the index's first document visible, polled every 0.2 s). Never a unit test; the
same run is tests/connectors/test_elastic_bench.py (``-m long``).

Usage::

    python benchmarks/connector_elastic.py [--events 100000] [--batch 500]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.flow_timing import timed_job, write_events  # noqa: E402
from tests.support.servers.elastic import Elastic, elastic_server  # noqa: E402

FLOW = """define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {{"path": {path}, "mode": "read"}}
  end;
  define connector dst from elastic with config = {{"nodes": [{url}], "index": "bench"}} end;
  define pipeline p
  pipeline
    define script id script let $elastic = {{"_id": "#{{event.id}}"}}; event end;
    create script id;
    define operator batch from generic::batch with count = {batch}, timeout = 1000000000 end;
    create operator batch;
    select {{"id": event.id, "name": event.name, "score": event.score * 2}} from in into id;
    select event from id into batch;
    select event from batch into out;
  end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def _count(es: Elastic) -> int:
    try:
        return es.count("bench")
    except Exception:  # noqa: BLE001 - the index does not exist yet
        return 0


def run(es: Elastic, folder: Path, events: int, batch: int) -> dict:
    """Build and run the flow; events/s, the first document's time and the documents."""
    write_events(folder / "in.json", events)
    text = FLOW.format(
        path=json.dumps(str(folder / "in.json")), url=json.dumps(es.url), batch=batch
    )
    result = timed_job(folder, text, lambda: _count(es) > 0)
    wall, first = result["wall_s"], result["first_s"]
    return {
        "events": events,
        "documents": es.count("bench"),
        "seconds": round(wall, 2),
        "events_per_s": round(events / wall),
        "first_document_s": round(first, 2) if first is not None else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, elastic_server() as es:
        print(json.dumps(run(es, Path(folder), args.events, args.batch)))


if __name__ == "__main__":
    main()
