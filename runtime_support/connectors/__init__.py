"""Flow connectors for batch Spark jobs: which builtin kinds exist and how to build them.

``build_source`` / ``build_sink`` turn a :class:`ConnectorSpec` into a source or sink object;
kinds Tremor knows but this runtime cannot run raise ``ValueError`` with a readable message.
"""

from __future__ import annotations

from typing import Any

from .base import ConnectorSpec, RunContext, Sink, Source
from .file import FileSink, FileSource
from .file import is_source as _file_reads
from .metronome import MetronomeSource
from .simple import ExitSink, NullConnector
from .stdio import StdioSink, StdioSource

__all__ = [
    "ConnectorSpec",
    "KNOWN_KINDS",
    "RunContext",
    "SUPPORTED_KINDS",
    "Sink",
    "Source",
    "build_sink",
    "build_source",
]

#: Connector kinds Tremor ships (``define connector x from <kind>``).
KNOWN_KINDS = (
    "azure_monitor_ingest_writer", "bench", "cb", "clickhouse", "crononome", "discord",
    "dns_client", "elastic", "exit", "file", "gbq_writer", "gcl_writer", "gcs_streamer",
    "gpubsub_consumer", "gpubsub_producer", "http_client", "http_server", "kafka_consumer",
    "kafka_producer", "kv", "metrics", "metronome", "null", "otel_client", "otel_server",
    "s3_reader", "s3_streamer", "stdio", "tcp_client", "tcp_server", "udp_client", "udp_server",
    "unix_socket_client", "unix_socket_server", "wal", "ws_client", "ws_server",
)  # fmt: skip

#: Kinds this runtime runs.
SUPPORTED_KINDS = ("exit", "file", "metronome", "null", "stdio")


def build_source(spec: ConnectorSpec) -> Any:
    """The source object of ``spec`` (None when the connector does not produce events)."""
    if spec.kind == "metronome":
        return MetronomeSource(spec)
    if spec.kind == "stdio":
        return StdioSource(spec)
    if spec.kind == "file":
        return FileSource(spec) if _file_reads(spec) else None
    if spec.kind == "null":
        return NullConnector(spec)
    return None


def build_sink(spec: ConnectorSpec) -> Any:
    """The sink object of ``spec`` (None when the connector does not consume events)."""
    if spec.kind == "exit":
        return ExitSink(spec)
    if spec.kind == "stdio":
        return StdioSink(spec)
    if spec.kind == "file":
        return None if _file_reads(spec) else FileSink(spec)
    if spec.kind == "null":
        return NullConnector(spec)
    return None
