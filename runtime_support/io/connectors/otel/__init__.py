"""The OpenTelemetry connectors: ``otel_server`` (an OTLP/gRPC receiver on the driver, a source)
and ``otel_client`` (OTLP/gRPC export requests from the executors, a sink), on grpcio and
opentelemetry-proto; the conversions between OTLP and Tremor's JSON shape are :mod:`.convert`
and :mod:`.metrics`."""

from __future__ import annotations

from runtime_support.io.connectors.otel.client import OtelClientSink
from runtime_support.io.connectors.otel.server import OtelServerSource

__all__ = ["OtelClientSink", "OtelServerSource"]
