"""≥100k events through ``ws_server`` and ``ws_client`` against real websocket peers on
127.0.0.1 (the ``websockets`` library): events/s and the time to the first event.

    python benchmarks/connector_ws.py [--events 100000] [--only ws_server ws_client]

``ws_server``: a streaming flow (trigger 1 s) ws_server → file part files; 4 websocket clients
send a quarter of the events each, one text frame per event; the clock starts at the first send
(the job is already listening and has run its first micro-batch), the first event is the first
line in a part file, the end when the last event arrived. ``ws_client``: a batch flow file →
ws_client against the recording peer (tests/support/servers/ws_peer.py); the clock starts with the
run,
the first event is the first frame the peer records, the end when the peer holds every frame.
Never a unit test (tests/connectors/test_net_ws.py runs it with ``-m long``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.connector_net import (  # noqa: E402
    SINK_FLOW,
    SOURCE_FLOW,
    event,
    free_port,
    lines_in,
    module_of,
)
from tests.support.servers import net_peer, ws_peer  # noqa: E402


def send_frames(port: int, events: int) -> None:
    """4 connections, each a quarter of the events, one text frame per event."""
    from websockets.sync.client import connect

    quarter = (events + 3) // 4

    def one(lo: int) -> None:
        with connect(f"ws://127.0.0.1:{port}", compression=None) as conn:
            for n in range(lo, min(events, lo + quarter)):
                conn.send(event(n).decode())

    threads = [threading.Thread(target=one, args=(lo,)) for lo in range(0, events, quarter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def bench_server(spark: Any, events: int, work: Path) -> dict[str, Any]:
    from runtime_support.flows.streaming import run_stream_flow
    from runtime_support.io.connectors.base import RunContext

    port, out = free_port(socket.SOCK_STREAM), work / "ws_server-out"
    module = module_of(SOURCE_FLOW.format(kind="ws_server", port=port, out=json.dumps(str(out))))
    args = argparse.Namespace(
        checkpoint=str(work / "ws_server-ck"), trigger="1s", tick="100ms", files_per_batch=None,
        flush=False, state_ttl=None, ingest_ns="wallclock", partitions=None, ticks=None,
    )  # fmt: skip
    runner = threading.Thread(
        target=run_stream_flow,
        args=(spark, module.FLOW, module.run_pipeline, args, RunContext()),
        daemon=True,
    )
    runner.start()
    net_peer.wait_until(lambda: net_peer.bound("tcp", port), 300, "ws_server")
    net_peer.wait_until(lambda: any(q.recentProgress for q in spark.streams.active), 300, "batch")
    start = time.monotonic()
    threading.Thread(target=send_frames, args=(port, events), daemon=True).start()
    first, seen, last = None, 0, start
    while time.monotonic() < start + 600 and (time.monotonic() - last < 30 or not seen):
        now, count = time.monotonic(), lines_in(out)
        if count > seen:
            seen, last = count, now
        if seen and first is None:
            first = now - start
        if seen >= events:
            break
        time.sleep(0.1 if first is None else 0.5)
    for query in spark.streams.active:
        query.stop()
    runner.join(60)
    return {"connector": "ws_server", "events": seen, "sent": events, "seconds": last - start,
            "first_event_s": first}  # fmt: skip


def bench_client(spark: Any, events: int, work: Path) -> dict[str, Any]:
    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    src = work / "ws_client-in.json"
    with open(src, "wb") as handle:
        for lo in range(0, events, 10_000):
            handle.write(b"".join(event(n) for n in range(lo, min(events, lo + 10_000))))
    folder = work / "ws_client"
    folder.mkdir()
    process, port, recorded = ws_peer.start(str(folder))
    url = json.dumps(f"ws://127.0.0.1:{port}/")
    module = module_of(SINK_FLOW.format(kind="ws_client", src=json.dumps(str(src)), url=url))
    first: list[float] = []
    start = time.monotonic()

    def watch() -> None:
        while not first:
            if os.path.exists(recorded) and os.path.getsize(recorded):
                first.append(time.monotonic() - start)
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    try:
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext())
        count, settle = _frames(recorded), time.monotonic() + 20
        while count < events and time.monotonic() < settle:
            time.sleep(0.2)
            count = _frames(recorded)
        elapsed = time.monotonic() - start
    finally:
        ws_peer.stop(process)
        first.append(-1.0)
    return {"connector": "ws_client", "events": count, "sent": events, "seconds": elapsed,
            "first_event_s": first[0] if first[0] >= 0 else None}  # fmt: skip


def _frames(recorded: str) -> int:
    if not os.path.exists(recorded):
        return 0
    with open(recorded, "rb") as handle:
        return handle.read().count(b"\n")


BENCHES = {"ws_server": bench_server, "ws_client": bench_client}


def run(events: int, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Every benchmark (or ``only`` those): one result dict each."""
    from runtime_support.spark.session import get_session
    from runtime_support.spark.stream_job import STREAM_CONF

    spark = get_session("tremorc-bench-ws")
    for key, value in STREAM_CONF.items():
        spark.conf.set(key, value)
    results = []
    with tempfile.TemporaryDirectory(prefix="tremorc-ws-bench-") as tmp:
        for kind, bench in BENCHES.items():
            if only and kind not in only:
                continue
            result = bench(spark, events, Path(tmp))
            result["events_per_s"] = result["events"] / result["seconds"]
            print(json.dumps(result), flush=True)
            results.append(result)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--only", nargs="*", choices=list(BENCHES))
    args = parser.parse_args()
    results = run(args.events, args.only)
    print(f"\n{'connector':<12} {'received':>9} {'events/s':>10} {'first event':>12}")
    for r in results:
        first = "-" if r["first_event_s"] is None else f"{r['first_event_s']:.2f} s"
        print(f"{r['connector']:<12} {r['events']:>9} {r['events_per_s']:>10.0f} {first:>12}")


if __name__ == "__main__":
    main()
