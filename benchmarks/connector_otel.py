"""≥100k events through ``otel_server`` and ``otel_client`` against real OTLP/gRPC peers on
127.0.0.1: events/s and the time to the first event. An event is one export request of one log
record (the benchmarks' sample event as its body and attributes).

    python benchmarks/connector_otel.py [--events 100000] [--only otel_server otel_client]

``otel_server``: the generated job in ``--stream`` mode (trigger 1 s) otel_server → file part
files; the benchmark sends the requests with grpcio (256 in flight on one channel) once the job
listens; the clock starts at the first send, the first event is the first line in a part file,
the end when every event is in the part files. ``otel_client``: the generated batch job file →
otel_client against the recording peer (tests/support/servers/otel_peer.py), timed by
benchmarks/flow_timing.py (the job's whole wall time, Spark's start included; the first event is
the peer's first recorded request). Never a unit test (tests/connectors/test_otel.py runs it with
``-m long``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.connector_net import free_port, lines_in  # noqa: E402
from benchmarks.flow_timing import sample_event, timed_job  # noqa: E402
from tests.support.servers import otel_peer  # noqa: E402

SERVER_FLOW = """define flow main
flow
  define connector src from otel_server with config = {{"url": "127.0.0.1:{port}"}} end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {{"path": {out}, "mode": "truncate"}}
  end;
  define pipeline p pipeline
    select event.logs[0].instrumentation_library_logs[0].logs[0].attributes from in into out;
  end;
  create connector src; create connector out; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow main;
"""

CLIENT_FLOW = """define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {{"path": {src}, "mode": "read"}}
  end;
  define connector dst from otel_client with config = {{"url": "127.0.0.1:{port}"}} end;
  define pipeline p pipeline select event from in into out; end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def log_event(i: int) -> dict[str, Any]:
    """Sample event ``i`` as Tremor's JSON shape of a logs export request."""
    event = sample_event(i)
    record = {"time_unix_nano": 1_700_000_000_000_000_000 + i, "severity_number": 9,
              "severity_text": "INFO", "body": event["name"], "attributes": event,
              "flags": 0, "span_id": "", "trace_id": ""}  # fmt: skip
    scope = {"instrumentation_library": {"name": "bench", "version": "1"}, "logs": [record]}
    return {"logs": [{"resource": {"attributes": {"service.name": "bench"}},
                      "instrumentation_library_logs": [scope]}]}  # fmt: skip


def send_requests(port: int, events: int, window: int = 256) -> None:
    """Every event as one logs export request, ``window`` in flight on one channel."""
    import grpc
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub

    from runtime_support.io.connectors.otel.convert import logs_to_pb

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub, pending = LogsServiceStub(channel), deque()
        for i in range(events):
            pending.append(stub.Export.future(logs_to_pb(log_event(i)), timeout=300))
            if len(pending) >= window:
                pending.popleft().result()
        while pending:
            pending.popleft().result()


def bench_server(events: int, work: Path) -> dict[str, Any]:
    import threading

    port, out = free_port(socket.SOCK_STREAM), work / "server-out"
    folder = work / "server"
    folder.mkdir()
    (folder / "flow.troy").write_text(SERVER_FLOW.format(port=port, out=json.dumps(str(out))))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    build = [sys.executable, "-m", "compiler", "build", "flow.troy", "-o", "job.py"]
    subprocess.run(build, cwd=folder, env=env, check=True)
    command = [sys.executable, "job.py", "--stream", "--checkpoint", "ck", "--trigger", "1s"]
    with open(folder / "job.log", "ab") as log:
        job = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, job, folder / "ck")
        start = time.monotonic()
        threading.Thread(target=send_requests, args=(port, events), daemon=True).start()
        first, seen, last = None, 0, start
        while time.monotonic() - last < 60 and job.poll() is None:
            count = lines_in(out)
            if count > seen:
                seen, last = count, time.monotonic()
                first = last - start if first is None else first
            if seen >= events:
                break
            time.sleep(0.1 if first is None else 0.5)
    finally:
        job.terminate()
        job.wait(60)
    ids = [json.loads(line)["id"] for part in sorted(out.glob("part-*")) for line in open(part)]
    return {"connector": "otel_server", "events": seen, "sent": events, "seconds": last - start,
            "first_event_s": first, "distinct": len(set(ids))}  # fmt: skip


def _wait_listening(port: int, job: subprocess.Popen, checkpoint: Path) -> None:
    """Until the job listens and has committed its first micro-batch (an empty one)."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and job.poll() is None:
        if any(checkpoint.glob("**/commits/0")):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                pass
        time.sleep(0.2)
    raise SystemExit("the streaming otel_server job did not start")


def bench_client(events: int, work: Path) -> dict[str, Any]:
    folder = work / "client"
    folder.mkdir()
    src = folder / "in.json"
    with open(src, "w") as handle:
        handle.writelines(json.dumps(log_event(i)) + "\n" for i in range(events))
    process, port, recorded = otel_peer.start(str(folder))
    try:
        text = CLIENT_FLOW.format(src=json.dumps(str(src)), port=port)
        result = timed_job(folder, text, lambda: otel_peer.count(recorded) > 0)
        settle = time.monotonic() + 20
        while otel_peer.count(recorded) < events and time.monotonic() < settle:
            time.sleep(0.2)
    finally:
        otel_peer.stop(process)
    got = otel_peer.requests(recorded)
    ids = {
        attr.value.int_value
        for _, request in got
        for attr in request.resource_logs[0].scope_logs[0].log_records[0].attributes
        if attr.key == "id"
    }
    return {"connector": "otel_client", "events": len(got), "sent": events,
            "seconds": result["wall_s"], "first_event_s": result["first_s"],
            "distinct": len(ids)}  # fmt: skip


BENCHES = {"otel_server": bench_server, "otel_client": bench_client}


def run(events: int, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Every benchmark (or ``only`` those): one result dict each."""
    results = []
    with tempfile.TemporaryDirectory(prefix="tremorc-otel-bench-") as tmp:
        for kind, bench in BENCHES.items():
            if only and kind not in only:
                continue
            result = bench(events, Path(tmp))
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
    print(
        f"\n{'connector':<12} {'received':>9} {'distinct':>9} {'events/s':>10} {'first event':>12}"
    )
    for r in results:
        first = "-" if r["first_event_s"] is None else f"{r['first_event_s']:.2f} s"
        print(f"{r['connector']:<12} {r['events']:>9} {r['distinct']:>9} "
              f"{r['events_per_s']:>10.0f} {first:>12}")  # fmt: skip


if __name__ == "__main__":
    main()
