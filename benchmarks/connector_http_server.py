"""≥100k events through the ``http_server`` source with ``requests`` clients on 127.0.0.1:
events/s, requests/s and the time to the first event.

    python benchmarks/connector_http_server.py [--events 100000] [--per-request 100]
        [--clients 8]

A streaming flow (trigger 1 s) http_server → file part files. ``--clients`` threads, each with
a keep-alive ``requests`` session, POST bodies of ``--per-request`` newline-separated JSON
events (``separate`` splits them); every request is answered only once its events are synced
to the spool, so ``--per-request 1`` measures the acknowledged-request rate. The clock starts at
the first request (the job already listens and ran its first micro-batch); the first event is
the first line in a part file, the end when every event is there. Never a unit test
(tests/connectors/test_net_http_server_long.py runs it with ``-m long``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.connector_net import SOURCE_FLOW, event, lines_in, module_of  # noqa: E402
from tests.support.servers import net_peer  # noqa: E402


def send_all(port: int, events: int, per_request: int, clients: int, codes: list) -> None:
    """``clients`` sessions share the requests round robin; each answer's status is kept."""
    import requests

    bodies = range(0, events, per_request)

    def one(index: int) -> None:
        session = requests.Session()
        for lo in bodies[index::clients]:
            body = b"".join(event(n) for n in range(lo, min(events, lo + per_request)))
            codes.append(
                session.post(f"http://127.0.0.1:{port}/", data=body, timeout=120).status_code
            )

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run(events: int = 100_000, per_request: int = 100, clients: int = 8) -> dict[str, Any]:
    """One run: the figures as a record (also printed)."""
    import socket

    from runtime_support.flows.streaming import run_stream_flow
    from runtime_support.io.connectors.base import RunContext
    from runtime_support.spark.session import get_session
    from runtime_support.spark.stream_job import STREAM_CONF

    spark = get_session("tremorc-bench-http-server")
    for key, value in STREAM_CONF.items():
        spark.conf.set(key, value)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    work = Path(tempfile.mkdtemp(prefix="bench-http-server-"))
    out = work / "out"
    module = module_of(SOURCE_FLOW.format(kind="http_server", port=port, out=json.dumps(str(out))))
    args = argparse.Namespace(
        checkpoint=str(work / "ck"), trigger="1s", tick="100ms", files_per_batch=None,
        flush=False, state_ttl=None, ingest_ns="wallclock", partitions=None, ticks=None,
    )  # fmt: skip
    runner = threading.Thread(
        target=run_stream_flow,
        args=(spark, module.FLOW, module.run_pipeline, args, RunContext()),
        daemon=True,
    )
    runner.start()
    net_peer.wait_until(lambda: net_peer.bound("tcp", port), 300, "http_server")
    net_peer.wait_until(lambda: any(q.recentProgress for q in spark.streams.active), 300, "batch")
    codes: list[int] = []
    start = time.monotonic()
    sender = threading.Thread(target=send_all, args=(port, events, per_request, clients, codes))
    sender.start()
    first, seen = None, 0
    while time.monotonic() < start + 900 and seen < events:
        seen = lines_in(out)
        if seen and first is None:
            first = time.monotonic() - start
        time.sleep(0.1 if first is None else 0.5)
    elapsed = time.monotonic() - start
    sender.join(60)
    for query in spark.streams.active:
        query.stop()
    runner.join(60)
    requests_sent = len(codes)
    result = {
        "connector": "http_server", "events": seen, "sent": events, "seconds": elapsed,
        "events_per_s": seen / elapsed, "requests": requests_sent,
        "requests_per_s": requests_sent / elapsed, "accepted": codes.count(202),
        "first_event_s": first, "per_request": per_request, "clients": clients,
    }  # fmt: skip
    print(json.dumps(result))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--per-request", type=int, default=100)
    parser.add_argument("--clients", type=int, default=8)
    opts = parser.parse_args()
    run(opts.events, opts.per_request, opts.clients)


if __name__ == "__main__":
    main()
