"""≥100k events through each network connector against real peers on 127.0.0.1: events/s and
the time to the first event.

    python benchmarks/connector_net.py [--events 100000] [--only udp_server tcp_server ...]

Sources (``udp_server``, ``tcp_server``): a streaming flow (trigger 1 s) server → file part
files; the clock starts at the first send (the job is already listening), the first event is
the first line in a part file, the end when the last event arrived (UDP: sent at ~20k events/s,
32 events per datagram). Sinks (``tcp_client``,
``udp_client``, ``http_client``): a batch flow file → sink against a recording peer process;
the clock starts with the run, the first event is the first byte the peer records, the end when
the peer holds every event. UDP is lossy by nature: the received count is printed. Never a unit
test (tests/connectors/test_net_long.py runs it with ``-m long``).
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

from tests.support.servers import net_peer  # noqa: E402

SOURCE_FLOW = """
define flow main
flow
  define connector src from {kind}
  with codec = "json", preprocessors = ["separate"], config = {{"url": "127.0.0.1:{port}"}}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {{"path": {out}, "mode": "truncate"}}
  end;
  define pipeline p pipeline select {{"n": event.n, "k": event.k}} from in into out; end;
  create connector src; create connector out; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow main;
"""

SINK_FLOW = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {{"path": {src}, "mode": "read"}}
  end;
  define connector dst from {kind}
  with codec = "json", postprocessors = ["separate"], config = {{"url": {url}}}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def module_of(text: str) -> Any:
    from compiler.pipeline import compile_source
    from compiler.source import Source
    from compiler.testing.loader import load_job

    return load_job(compile_source(Source("bench.troy", text), "deploy").job, "bench")


def event(n: int) -> bytes:
    return b'{"n":%d,"k":"key-%d","pad":"%s"}\n' % (n, n % 97, b"x" * 40)


def lines_in(folder: Path) -> int:
    if not folder.is_dir():
        return 0
    total = 0
    for part in folder.glob("part-*"):
        with open(part, "rb") as handle:
            total += sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    return total


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def send_all(kind: str, port: int, events: int) -> None:
    """UDP: 32 events per datagram, paced in bursts; TCP: 4 connections, each a quarter."""
    if kind == "udp_server":
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for start in range(0, events, 32):
                sock.sendto(b"".join(event(n) for n in range(start, min(events, start + 32))),
                            ("127.0.0.1", port))  # fmt: skip
                if start % 256 == 0:
                    time.sleep(0.01)  # ~20k events/s: loopback UDP drops what nobody reads
        return
    quarter = (events + 3) // 4

    def one(lo: int) -> None:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"".join(event(n) for n in range(lo, min(events, lo + quarter))))

    threads = [threading.Thread(target=one, args=(lo,)) for lo in range(0, events, quarter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def bench_source(spark: Any, kind: str, events: int, work: Path) -> dict[str, Any]:
    from runtime_support.flows.streaming import run_stream_flow
    from runtime_support.io.connectors.base import RunContext

    port = free_port(socket.SOCK_DGRAM if kind == "udp_server" else socket.SOCK_STREAM)
    out = work / f"{kind}-out"
    module = module_of(SOURCE_FLOW.format(kind=kind, port=port, out=json.dumps(str(out))))
    args = argparse.Namespace(
        checkpoint=str(work / f"{kind}-ck"), trigger="1s", tick="100ms", files_per_batch=None,
        flush=False, state_ttl=None, ingest_ns="wallclock", partitions=None, ticks=None,
    )  # fmt: skip
    runner = threading.Thread(
        target=run_stream_flow,
        args=(spark, module.FLOW, module.run_pipeline, args, RunContext()),
        daemon=True,
    )
    runner.start()
    net_peer.wait_until(lambda: net_peer.bound(kind[:3], port), 300, kind)
    # The query's first (empty) micro-batch: Python workers and state store started.
    net_peer.wait_until(lambda: any(q.recentProgress for q in spark.streams.active), 300, "batch")
    start = time.monotonic()
    threading.Thread(target=send_all, args=(kind, port, events), daemon=True).start()
    first = None
    deadline = start + 600
    seen, last = 0, start
    while time.monotonic() < deadline and (time.monotonic() - last < 30 or not seen):
        now, count = time.monotonic(), lines_in(out)
        if count > seen:
            seen, last = count, now
        if seen and first is None:
            first = now - start
        if seen >= events:
            break
        time.sleep(0.1 if first is None else 0.5)
    elapsed = last - start  # to the last event that arrived (UDP may lose some)
    for query in spark.streams.active:
        query.stop()
    runner.join(60)
    return {"connector": kind, "events": seen, "sent": events, "seconds": elapsed,
            "first_event_s": first}  # fmt: skip


def bench_sink(spark: Any, kind: str, events: int, work: Path) -> dict[str, Any]:
    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    src = work / f"{kind}-in.json"
    with open(src, "wb") as handle:
        for lo in range(0, events, 10_000):
            handle.write(b"".join(event(n) for n in range(lo, min(events, lo + 10_000))))
    peer_kind = {"tcp_client": "tcp", "udp_client": "udp", "http_client": "http"}[kind]
    folder = work / kind
    folder.mkdir()
    process, port, recorded = net_peer.start(peer_kind, str(folder))
    url = f"http://127.0.0.1:{port}/bulk" if kind == "http_client" else f"127.0.0.1:{port}"
    module = module_of(SINK_FLOW.format(kind=kind, src=json.dumps(str(src)), url=json.dumps(url)))
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
        count = _received(peer_kind, Path(recorded))
        settle = time.monotonic() + 20
        while count < events and time.monotonic() < settle:
            time.sleep(0.2)
            count = _received(peer_kind, Path(recorded))
        elapsed = time.monotonic() - start
    finally:
        net_peer.stop(process)
        first.append(-1.0)
    return {"connector": kind, "events": count, "sent": events, "seconds": elapsed,
            "first_event_s": first[0] if first[0] >= 0 else None}  # fmt: skip


def _received(peer_kind: str, recorded: Path) -> int:
    if not recorded.exists():
        return 0
    data = recorded.read_bytes()
    return data.count(b"\n") if peer_kind != "http" else data.count(b'"method"')


SOURCES = ("udp_server", "tcp_server")
SINKS = ("tcp_client", "udp_client", "http_client")


def run(events: int, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Every benchmark (or ``only`` those): one result dict each."""
    from runtime_support.spark.session import get_session
    from runtime_support.spark.stream_job import STREAM_CONF

    spark = get_session("tremorc-bench-net")
    for key, value in STREAM_CONF.items():
        spark.conf.set(key, value)
    results = []
    with tempfile.TemporaryDirectory(prefix="tremorc-net-bench-") as tmp:
        for kind in [*SOURCES, *SINKS]:
            if only and kind not in only:
                continue
            bench = bench_source if kind in SOURCES else bench_sink
            result = bench(spark, kind, events, Path(tmp))
            result["events_per_s"] = result["events"] / result["seconds"]
            print(json.dumps(result), flush=True)
            results.append(result)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--only", nargs="*", choices=[*SOURCES, *SINKS])
    args = parser.parse_args()
    results = run(args.events, args.only)
    print(f"\n{'connector':<12} {'received':>9} {'events/s':>10} {'first event':>12}")
    for r in results:
        first = "-" if r["first_event_s"] is None else f"{r['first_event_s']:.2f} s"
        print(f"{r['connector']:<12} {r['events']:>9} {r['events_per_s']:>10.0f} {first:>12}")


if __name__ == "__main__":
    main()
