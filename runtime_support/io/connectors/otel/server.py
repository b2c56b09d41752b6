"""``otel_server``: an OTLP/gRPC receiver on the driver; each export request is ONE event, in
Tremor's JSON shape (``{"logs": [...]}``, ``{"metrics": [...]}`` or ``{"trace": [...]}``, see
:mod:`.convert`).

The server is grpcio's asyncio server with opentelemetry-proto's generated service stubs (the
logs, metrics and trace services of OTLP at ``url``, plaintext HTTP/2): one event loop thread,
so thousands of requests can wait for the spool at once without a thread each. A request is
answered OK once its event is durably spooled (stream: synced to the spool under the checkpoint;
batch: taken into the run), ``UNAVAILABLE`` when the spool did not take it within 30 s (the
OTLP exporters retry that), ``INVALID_ARGUMENT`` when it is not Tremor's shape (a log record's
flags or severity out of range, as Tremor rejects them). A service switched off (``logs``,
``metrics``, ``trace``: false) still answers OK and its requests are dropped with a warning on
stderr, as in Tremor. Restart: what was spooled and not yet committed is read again; requests
sent while the job is down are refused by the connection (the exporters retry).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

from runtime_support.io.codecs import codec_from, framing_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.net.datasource import ServerSource, parse_url
from runtime_support.io.connectors.otel.convert import OtelError, logs_to_json, trace_to_json
from runtime_support.io.connectors.otel.metrics import metrics_to_json

SPOOL_WAIT_S = 30
DEFAULT_URL = "localhost:4317"  # Tremor's OtelDefaults


def otel_target(url: Any, alias: str) -> tuple[str, int]:
    """``host:port`` or ``http://host:port`` → ``(host, port)`` (``https`` is refused: no TLS)."""
    text = DEFAULT_URL if url is None else url
    if isinstance(text, str) and text.startswith("https://"):
        raise ValueError(
            f"Invalid config for connector `{alias}`: `url` {text!r}: TLS is not implemented by "
            "tremorc's otel connectors (plaintext gRPC): use `host:port` or `http://host:port`"
        )
    return parse_url(text, alias, "url")


class OtelServerSource(ServerSource):
    """OTLP/gRPC on ``url`` (see the module doc)."""

    scheme = "tremor-otel-server"

    def __init__(self, spec: ConnectorSpec) -> None:
        config = spec.config
        self.alias = spec.alias
        self.host, self.port = otel_target(config.get("url"), spec.alias)
        self.enabled = {k: bool(config.get(k, True)) for k in ("logs", "metrics", "trace")}
        self.codec, self.framing = codec_from(None), framing_from(None)  # unused: structured

    @property
    def origin(self) -> str:
        from runtime_support.tremor.origin import encode_origin

        return encode_origin(self.scheme, "localhost", None, [])

    def serve(self, emit: Any, stop: threading.Event) -> None:
        """Serve until ``stop`` is set; ``emit(values, done)`` sets ``done`` once taken."""
        asyncio.run(self._serve(emit, stop))

    async def _serve(self, emit: Any, stop: threading.Event) -> None:
        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc as logs
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc as metrics
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as trace

        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        handler = _Handler(self, emit)
        logs.add_LogsServiceServicer_to_server(_Service(handler, "logs"), server)
        metrics.add_MetricsServiceServicer_to_server(_Service(handler, "metrics"), server)
        trace.add_TraceServiceServicer_to_server(_Service(handler, "trace"), server)
        host = f"[{self.host}]" if ":" in self.host else self.host
        if not server.add_insecure_port(f"{host}:{self.port}"):
            raise OSError(f"{self.alias}: can not listen on {host}:{self.port}")
        await server.start()
        while not stop.is_set():
            await asyncio.sleep(0.1)
        await server.stop(grace=1)

    def read(self, spark: Any, ctx: RunContext) -> Any:
        """Batch: serve until ``--ticks`` requests arrived; they are the events."""
        got: list[str] = []
        done = threading.Event()
        failed: list[BaseException] = []

        def emit(values: list[str], taken: threading.Event) -> None:
            if done.is_set():  # past --ticks: not answered OK (cancelled as the server stops)
                return
            got.extend(values)
            taken.set()
            if len(got) >= ctx.ticks:
                done.set()

        def run() -> None:
            try:
                self.serve(emit, done)
            except BaseException as err:  # a bind failure: the run must not wait forever
                failed.append(err)
                done.set()

        if ctx.ticks > 0:
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            done.wait()
            thread.join()
        if failed:
            raise failed[0]
        return self.frame(spark, ctx, got[: ctx.ticks])


_CONVERT = {"logs": logs_to_json, "metrics": metrics_to_json, "trace": trace_to_json}


class _Done(threading.Event):
    """The spool's ``done`` event that also resolves an asyncio future on its loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future) -> None:
        super().__init__()
        self.loop, self.future = loop, future

    def set(self) -> None:
        super().set()
        self.loop.call_soon_threadsafe(lambda: self.future.done() or self.future.set_result(None))


class _Handler:
    """One request → one spooled event, answered once it is taken."""

    def __init__(self, source: OtelServerSource, emit: Any) -> None:
        self.source, self.emit = source, emit

    async def export(self, kind: str, request: Any, context: Any) -> None:
        import grpc

        from runtime_support.tremor.jsonio import encode_json

        if not self.source.enabled[kind]:
            print(f"Warning: {self.source.alias}: received {kind} while `{kind}` is false: "
                  "dropped", file=sys.stderr)  # fmt: skip
            return
        try:
            value = encode_json(_CONVERT[kind](request))
        except OtelError as err:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(err))
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.emit([value], _Done(loop, future))
        try:
            await asyncio.wait_for(future, SPOOL_WAIT_S)
        except TimeoutError:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the spool did not take the request")


class _Service:
    """The ``Export`` method of one OTLP service (the generated servicer's only method)."""

    RESPONSES = {
        "logs": ("logs", "ExportLogsServiceResponse"),
        "metrics": ("metrics", "ExportMetricsServiceResponse"),
        "trace": ("trace", "ExportTraceServiceResponse"),
    }

    def __init__(self, handler: _Handler, kind: str) -> None:
        import importlib

        self.handler, self.kind = handler, kind
        package, name = self.RESPONSES[kind]
        module = f"opentelemetry.proto.collector.{package}.v1.{package}_service_pb2"
        self.response = getattr(importlib.import_module(module), name)

    async def Export(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC's name
        await self.handler.export(self.kind, request, context)
        return self.response()
