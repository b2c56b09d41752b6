"""A real OTLP/gRPC receiver for the otel_client tests: grpcio's server with opentelemetry-proto's
logs, metrics and trace servicers. ``python -m tests.support.servers.otel_peer PORT_FILE OUT_FILE``
listens on 127.0.0.1 on a free port, writes the port to PORT_FILE (moved in whole) and appends
one line per export request it answered OK, ``<service>\\t<request as hex protobuf>``, in bursts
of up to 1000 (the first at once); it runs until it is killed (SIGTERM flushes what it holds).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent import futures
from typing import Any

from tests.support.servers.net_peer import _publish, stop


class _Recorder:
    def __init__(self, out_file: str) -> None:
        self.out_file, self.lines, self.lock, self.first = out_file, [], threading.Lock(), True

    def add(self, service: str, request: Any) -> None:
        with self.lock:
            self.lines.append(f"{service}\t{request.SerializeToString().hex()}\n")
            if self.first or len(self.lines) >= 1000:
                self.flush_locked()
                self.first = False

    def flush_locked(self) -> None:
        with open(self.out_file, "a", encoding="ascii") as handle:
            handle.write("".join(self.lines))
        self.lines.clear()

    def flush(self) -> None:
        with self.lock:
            self.flush_locked()


def serve_otel(port_file: str, out_file: str) -> None:
    import grpc
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2 as lp
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc as lg
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2 as mp
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc as mg
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as tp
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as tg

    recorder = _Recorder(out_file)

    class Logs(lg.LogsServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC's name
            recorder.add("logs", request)
            return lp.ExportLogsServiceResponse()

    class Metrics(mg.MetricsServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:  # noqa: N802
            recorder.add("metrics", request)
            return mp.ExportMetricsServiceResponse()

    class Trace(tg.TraceServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:  # noqa: N802
            recorder.add("trace", request)
            return tp.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    lg.add_LogsServiceServicer_to_server(Logs(), server)
    mg.add_MetricsServiceServicer_to_server(Metrics(), server)
    tg.add_TraceServiceServicer_to_server(Trace(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: (recorder.flush(), os._exit(0)))
    _publish(port_file, port)
    while True:
        time.sleep(0.5)
        recorder.flush()


def requests(out_file: str) -> list[tuple[str, Any]]:
    """The recorded ``(service, request message)`` pairs, in arrival order."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    types = {
        "logs": ExportLogsServiceRequest,
        "metrics": ExportMetricsServiceRequest,
        "trace": ExportTraceServiceRequest,
    }
    if not os.path.exists(out_file):
        return []
    out = []
    with open(out_file, encoding="ascii") as handle:
        for line in handle:
            service, data = line.rstrip("\n").split("\t")
            out.append((service, types[service].FromString(bytes.fromhex(data))))
    return out


def count(out_file: str) -> int:
    if not os.path.exists(out_file):
        return 0
    with open(out_file, "rb") as handle:
        return handle.read().count(b"\n")


def start(folder: str) -> tuple[subprocess.Popen, int, str]:
    """Start the peer recording into ``folder``: ``(process, port, out_file)``; stop it with
    :func:`stop` (by its PID)."""
    port_file = os.path.join(folder, "otel-peer.port")
    out_file = os.path.join(folder, "otel-peer.out")
    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    command = [sys.executable, "-m", "tests.support.servers.otel_peer", port_file, out_file]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": root}, cwd=root)
    deadline = time.monotonic() + 60
    while not os.path.exists(port_file):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError("the OTLP peer did not start")
        time.sleep(0.05)
    with open(port_file, encoding="utf-8") as handle:
        return process, int(handle.read()), out_file


__all__ = ["count", "requests", "start", "stop"]

if __name__ == "__main__":
    serve_otel(*sys.argv[1:3])
