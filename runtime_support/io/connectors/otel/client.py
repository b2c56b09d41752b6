"""``otel_client``: events in Tremor's JSON shape of OTLP sent as OTLP/gRPC export requests to
``url`` from the executors (a Python Data Source writer, as the network sinks).

Each executor partition opens one gRPC channel (grpcio, plaintext HTTP/2, opentelemetry-proto's
service stubs) and sends one export request per event, as Tremor does: an event with ``metrics``
(and ``metrics`` on) to the metrics service, else with ``logs`` to the logs service, else with
``trace`` to the trace service (the order of Tremor's checks); any other event is reported on
stderr and not sent. An event that is not Tremor's shape is reported on stderr and not sent
(Tremor fails it). Up to ``IN_FLIGHT`` requests of a partition are in flight at once, so the
peer may see them out of emission order. A request the peer fails fails the task: Spark retries
it, so delivery is at least once (a replayed micro-batch is sent again).
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Iterator
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.datasource import NO_PROGRESS, write_in_order
from runtime_support.io.connectors.otel.convert import OtelError, logs_to_pb, trace_to_pb
from runtime_support.io.connectors.otel.metrics import metrics_to_pb
from runtime_support.io.connectors.otel.server import otel_target

IN_FLIGHT = 64
TIMEOUT_S = 60
_BUILD = {"metrics": metrics_to_pb, "logs": logs_to_pb, "trace": trace_to_pb}


class OtelClientSink:
    """Export requests to ``url`` (see the module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec, self.alias = spec, spec.alias
        host, port = otel_target(spec.config.get("url"), spec.alias)
        self.target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.enabled = {k: bool(spec.config.get(k, True)) for k in ("metrics", "logs", "trace")}

    def request(self, value: Any) -> tuple[str, Any] | None:
        """``(service, request)`` for one event, or None (reported) when it is not sent."""
        for kind in ("metrics", "logs", "trace"):
            if self.enabled[kind] and isinstance(value, dict) and kind in value:
                try:
                    return kind, _BUILD[kind](value)
                except OtelError as err:
                    print(f"Error: {self.alias}: Error converting payload to otel {kind}: {err}",
                          file=sys.stderr)  # fmt: skip
                    return None
        text = json.dumps(value, default=str)[:200]
        print(f"Warning: {self.alias}: Invalid or disabled otel payload: {text}", file=sys.stderr)
        return None

    def send_all(self, values: Iterator[Any]) -> int:
        """Export every value over one channel; the number of requests the peer accepted."""
        import grpc
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2_grpc import (
            MetricsServiceStub,
        )
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

        sent = 0
        with grpc.insecure_channel(self.target) as channel:
            stubs = {
                "metrics": MetricsServiceStub(channel),
                "logs": LogsServiceStub(channel),
                "trace": TraceServiceStub(channel),
            }
            pending: deque[Any] = deque()
            for value in values:
                built = self.request(value)
                if built is None:
                    continue
                kind, request = built
                pending.append(stubs[kind].Export.future(request, timeout=TIMEOUT_S))
                if len(pending) >= IN_FLIGHT:
                    pending.popleft().result()  # a failed request raises: the task fails
                    sent += 1
            while pending:
                pending.popleft().result()
                sent += 1
        return sent

    def write_frame(self, frame: Any, progress: Any) -> None:
        register(frame.sparkSession)
        write_in_order(frame, "tremorc_otel", self.spec, progress)

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """A micro-batch: sent once more when Spark replays it (at least once)."""
        self.write_frame(frame, NO_PROGRESS)


def _writer_class() -> type:
    from pyspark.sql.datasource import DataSourceWriter, WriterCommitMessage

    class OtelWriter(DataSourceWriter):  # type: ignore[misc]
        """One gRPC channel per partition, one export request per event."""

        def __init__(self, spec: str) -> None:
            self.spec = spec

        def write(self, rows: Iterator[Any]) -> Any:
            from runtime_support.tremor.jsonio import decode_json

            data = json.loads(self.spec)
            sink = OtelClientSink(ConnectorSpec(data["alias"], data["kind"], data["params"]))
            sink.send_all(decode_json(row.value) for row in rows)
            return WriterCommitMessage()

    return OtelWriter


def _data_source_class() -> type:
    from pyspark.sql.datasource import DataSource

    class OtelSinkSource(DataSource):  # type: ignore[misc]
        """``df.write.format("tremorc_otel").option("spec", json)``."""

        @classmethod
        def name(cls) -> str:
            return "tremorc_otel"

        def schema(self) -> str:
            return "value string"

        def writer(self, schema: Any, overwrite: bool) -> Any:
            return _writer_class()(self.options["spec"])

    return OtelSinkSource


_REGISTERED: set[int] = set()


def register(spark: Any) -> None:
    """Register the ``tremorc_otel`` writer with ``spark`` (once per session)."""
    if id(spark) not in _REGISTERED:
        spark.dataSource.register(_data_source_class())
        _REGISTERED.add(id(spark))
