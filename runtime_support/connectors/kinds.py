"""Which builtin connector kinds exist and how to build them (see the package doc); imported
on first use of these names, so what only needs a connector's options (the compiler's registry)
does not import every connector, codec and their libraries."""

from __future__ import annotations

from typing import Any

from runtime_support.connectors.base import ConnectorSpec, RunContext, check_readable
from runtime_support.connectors.crononome import CrononomeSource
from runtime_support.connectors.dns import DnsSink
from runtime_support.connectors.elastic import ElasticSink
from runtime_support.connectors.file import FileSink, FileSource, sink_for
from runtime_support.connectors.file import is_source as _file_reads
from runtime_support.connectors.gcs import GcsStreamer
from runtime_support.connectors.gcs import spark_conf as _gcs_conf
from runtime_support.connectors.jdbc import JdbcSink, PostgresSource
from runtime_support.connectors.jdbc import spark_conf as _jdbc_conf
from runtime_support.connectors.kafka import KafkaSink, KafkaSource
from runtime_support.connectors.kv import KvSink
from runtime_support.connectors.metrics import MetricsSource
from runtime_support.connectors.metronome import MetronomeSource
from runtime_support.connectors.net import NET_SINKS, NET_SOURCES
from runtime_support.connectors.otel import OtelClientSink, OtelServerSource
from runtime_support.connectors.s3 import S3Reader, S3Streamer
from runtime_support.connectors.s3 import spark_conf as _s3_conf
from runtime_support.connectors.simple import ExitSink, NullConnector
from runtime_support.connectors.stdio import StdioSink, StdioSource

__all__ = [
    "SINKS",
    "SOURCES",
    "build_sink",
    "build_source",
    "check_inputs",
    "input_paths",
    "jar_conf",
]

#: Kind → implementation, per direction; mirrors the factories of
#: ``compiler.registry.connectors`` (tests/test_registry.py checks both agree). Every other kind
#: is rejected by the compiler, which names the supported ones.
SOURCES: dict[str, type] = {
    "crononome": CrononomeSource,
    "file": FileSource,
    "kafka_consumer": KafkaSource,
    "metrics": MetricsSource,
    "metronome": MetronomeSource,
    "null": NullConnector,
    "otel_server": OtelServerSource,
    "postgres": PostgresSource,
    "s3_reader": S3Reader,
    "stdio": StdioSource,
    **NET_SOURCES,
}
SINKS: dict[str, type] = {
    "clickhouse": JdbcSink,
    "dns_client": DnsSink,
    "elastic": ElasticSink,
    "exit": ExitSink,
    "file": FileSink,
    "gcs_streamer": GcsStreamer,
    "kafka_producer": KafkaSink,
    "kv": KvSink,
    "null": NullConnector,
    "otel_client": OtelClientSink,
    "postgres": JdbcSink,
    "s3_streamer": S3Streamer,
    "stdio": StdioSink,
    **NET_SINKS,
}


def build_source(spec: ConnectorSpec) -> Any:
    """The source object of ``spec`` (None when the connector does not produce events)."""
    if spec.kind == "file" and not _file_reads(spec):
        return None
    factory = SOURCES.get(spec.kind)
    return None if factory is None else factory(spec)


def input_paths(spec: ConnectorSpec, ctx: RunContext, files: bool = True) -> tuple[str, ...]:
    """The local files ``spec`` reads as a source, checked before Spark starts (``files``:
    include the ``file`` connector's path, which Spark reads: off under spark-submit, where
    it may name the cluster's file system)."""
    source = build_source(spec)
    if isinstance(source, FileSource):
        return (source.path,) if files else ()
    if isinstance(source, StdioSource) and ctx.stdin_path and ctx.stdin_path != "-":
        return (ctx.stdin_path,)
    return ()


def check_inputs(spec: ConnectorSpec, ctx: RunContext, files: bool = True) -> None:
    """Raise :class:`InputPathError` (one line) for the first input of ``spec`` that cannot be
    read: a ``file`` source of JSON lines, or one whose processors run per file, may name a
    file, a folder or a glob (see :class:`FileSource`), every other input one file."""
    source = build_source(spec)
    for path in input_paths(spec, ctx, files):
        if isinstance(source, FileSource) and (source.lines or not source.framing.simple):
            from runtime_support.job_io import check_paths

            check_paths([path])
        else:
            check_readable(path)


def build_sink(spec: ConnectorSpec) -> Any:
    """The sink object of ``spec`` (None when the connector does not consume events)."""
    if spec.kind == "file":
        return None if _file_reads(spec) else sink_for(spec)
    factory = SINKS.get(spec.kind)
    return None if factory is None else factory(spec)


def jar_conf(specs: tuple[ConnectorSpec, ...]) -> dict[str, str]:
    """The Spark properties that put the jars the connectors ``specs`` need on the classpath:
    ``spark.jars.packages`` (Spark's connectors, JDBC drivers, s3a; sorted, unique) and
    ``spark.jars`` / ``spark.jars.excludes`` where a connector needs them."""
    conf = _jdbc_conf({spec.kind for spec in specs})
    for key, value in {**_s3_conf(specs), **_gcs_conf(specs)}.items():
        joined = key in ("spark.jars.packages", "spark.jars.excludes", "spark.jars") and key in conf
        conf[key] = f"{conf[key]},{value}" if joined else value
    listed = conf.pop("spark.jars.packages", "").split(",") + _class_packages(specs)
    packages = sorted({p for p in listed if p})
    if packages:
        conf["spark.jars.packages"] = ",".join(packages)
    return conf


def _class_packages(specs: Any) -> list[str]:
    """The Maven coordinates a source or sink class lists (functions in ``packages``)."""
    return [
        make()
        for spec in specs
        for table in (SOURCES, SINKS)
        for make in getattr(table.get(spec.kind), "packages", ())
    ]
