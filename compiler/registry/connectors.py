"""Connector kinds (``define connector x from <kind>``, TREMOR.md §6.3) and their ``config``.

Invariant: every kind Tremor ships is listed; the supported ones name their runtime factories
(:data:`SOURCE_FACTORIES` / :data:`SINK_FACTORIES`: the one table of which runtime code builds a
kind; a job's ``ConnectorSpec`` carries the names, tests/compiler/registry/test_registry.py imports
each) and declare exactly the ``config`` keys the runtime honours; a key Tremor has that the runtime
would ignore is declared with a ``reason`` and rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime_support.io.connectors.kafka_options import (
    OptionError,
    consumer_options,
    producer_options,
)

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key, Registry
from .dns import DNS
from .elastic import ELASTIC
from .kv import KV
from .net_connectors import NET_ENTRIES, NET_SINK_FACTORIES, NET_SOURCE_FACTORIES
from .time_connectors import TIME_ENTRIES, TIME_SOURCE_FACTORIES

RT = "runtime_support.io.connectors."

#: The top-level ``with`` keys of a connector definition and what a batch job does with them.
WITH_KEYS = (
    Key(name="codec", type="string|record", doc="a codec name or `{name, config}`"),
    Key(name="config", type="record", doc="the connector-specific config (see below)"),
    Key(name="preprocessors", type="array", doc="names or `{name, config}` records"),
    Key(name="postprocessors", type="array", doc="names or `{name, config}` records"),
    Key(
        name="metrics_interval_s",
        type="unsigned",
        doc="set: the connector reports its event counts to the `metrics` connector (batch: "
        "once, the final counts); the interval itself is not used",
    ),
    Key(name="reconnect", type="string|record", doc="accepted; batch sources never reconnect"),
)

METRICS_DOC = (
    "source: Tremor's metrics events (`events` per node and port of the pipelines with "
    "`#!config metrics_interval_s`, `connector_events` of the connectors with "
    "`metrics_interval_s`); batch: the final counts, after the other sinks are written, through "
    "the pipelines it feeds (a second pass); counted on the executors (docs/connectors.md, Metrics)"
)

#: How tremorc honours the keys of Tremor's exit connector (docs/tremor-users.md, Connectors).
EXIT_DELAY = (
    "ns the run goes on after the first exit event (the event's own `delay` wins). Stream: "
    "that micro-batch is written whole and the query stops `delay` later. Batch: the events "
    "of the source events whose `ingest_ns` is at most `delay` after the exit event's are "
    "kept too (the batch's clock: metronome ticks `interval` apart, file lines 1 ns apart; "
    "Tremor: what arrives in time); unset: only the events before the exit"
)
EXIT_GRACEFUL = (
    "`true`: what is in flight is written, then the run stops; `false`: it stops at once (the "
    "event's own `graceful` wins). Stream: after the delay a running micro-batch ends first, "
    "or is cut short; batch: nothing is in flight, both keep the same events"
)
FILE_CHUNK = "a file is read whole, or split by the `separate` preprocessor, never by chunk size"
FILE_SINGLE = (
    "tremorc only (Tremor rejects the key). A sink writes `path` as a folder of part files with "
    "Spark's text writer, each part file in emission order, no event through the driver; `true`: "
    "one file at `path` in the whole emission order instead, every event through the driver, one "
    "at a time (for small outputs only: the driver is the bottleneck)"
)

JDBC_STRUCTURED = (
    "writes records as table rows: no codec or processors (Tremor's clickhouse connector is "
    "structured too)"
)
CH_URL = (
    "`host[:port]` of ClickHouse's HTTP interface (default port 8123: tremorc's JDBC driver "
    "speaks HTTP, Tremor's client the native protocol on 9000)"
)
CH_COLUMNS = (
    "`[{name, type}]`: each event's field `name` into that column; types String, Int8-64, "
    'UInt8-64 (UInt64 up to 2^63-1), Float32/64, each also as `{"Nullable": T}`'
)
PG_COLUMNS = (
    "sink: `[{name, type}]`, each event's field `name` into that column (a missing field is "
    "NULL); types text, smallint, integer, bigint, double precision, boolean, jsonb, json"
)

KAFKA_BROKERS = Key(
    name="brokers", type="array<string>", required=True, doc="`host:port` bootstrap servers"
)
KAFKA_MODE = (
    '`"performance"`, `{"transactional": {"commit_interval": ns}}` or `{"custom": '
    '{"rdkafka_options": {…}, "retry_failed_events": b}}`. Offsets live in the streaming '
    "checkpoint (exactly-once processing; a micro-batch per trigger plays commit_interval's "
    "role) and are never committed to the group. rdkafka_options: librdkafka names mapped to "
    "the Java client's (`kafka.*` options), `auto.offset.reset` sets where a new stream starts, "
    "`enable.auto.commit`/`enable.auto.offset.store` only `false`, `debug` only logs; any other "
    "name is rejected naming the supported ones. A failed write fails the micro-batch and a "
    "restart retries it, whatever `retry_failed_events` says"
)
KAFKA_PRODUCER_OPTIONS = (
    "librdkafka names mapped to the Java producer's (`acks`, `compression.codec`, `linger.ms`/"
    "`queue.buffering.max.ms`, `message.timeout.ms`, …); any other name is rejected naming the "
    "supported ones; `transactional.id` is rejected (Spark's sink is at least once)"
)

JDBC = (
    Entry(
        name="clickhouse",
        keys=(
            Key(name="url", type="string", required=True, doc=CH_URL),
            Key(
                name="compression",
                type="string",
                default="none",
                choices=("none", "lz4"),
                doc="`lz4`: the driver compresses the inserts",
            ),
            Key(name="database", type="string", default="default", doc="the database"),
            Key(name="table", type="string", required=True, doc="the table (it must exist)"),
            Key(name="columns", type="array", required=True, doc=CH_COLUMNS),
        ),
        factory=RT + "jdbc.JdbcSink",
        ports=("in",),
        doc="sink: Spark's JDBC writer (batch: append; stream: foreachBatch, at least once)",
    ),
    Entry(
        name="postgres",
        keys=(
            Key(name="url", type="string", required=True, doc="`host[:port]` (default 5432)"),
            Key(name="database", type="string", default="postgres", doc="the database"),
            Key(name="user", type="string", default="postgres", doc="the role"),
            Key(name="password", type="string", doc="the role's password"),
            Key(name="table", type="string", doc="sink: the table; source: the table read"),
            Key(name="query", type="string", doc="source: the SELECT whose rows are the events"),
            Key(
                name="column",
                type="string",
                doc="the event as JSON in this `jsonb`/`text` column (sink default `event`); "
                "a source without it makes each row a record",
            ),
            Key(name="columns", type="array", doc=PG_COLUMNS),
        ),
        factory=RT + "jdbc.PostgresSource",
        ports=("out", "err", "in"),
        doc="tremorc extension (Tremor has no postgres connector): source (`spark.read.jdbc`, "
        "batch only) and sink (Spark's JDBC writer; stream: foreachBatch, exactly once)",
    ),
)

_WRITE_MODE = Key(
    name="mode",
    type="string",
    default="yolo",
    choices=("yolo", "consistent"),
    doc="either: Spark's writer reports a failed write by failing the job",
)
"""The object-store sinks' ``mode``: both are Spark's writer, which fails the job on a failed
write."""

S3_ENDPOINT = (
    Key(name="url", type="string", doc="the endpoint (`http://` turns TLS off)"),
    Key(name="aws_region", type="string", doc="the bucket's region"),
    Key(
        name="auth",
        type="record",
        doc="`{access_key_id, secret_access_key[, session_token]}`; default: the AWS SDK's "
        "chain (environment variables first)",
    ),
    Key(name="path_style_access", type="bool", default=True, doc="path-style requests"),
)
S3_SINK_PATH = (
    "tremorc only: the key prefix (folder) of the part files; Tremor names each object by the "
    "event's `$s3_streamer.name`, which tremorc does not read"
)
GCS_BUCKET = "the bucket (Tremor's `$gcs_streamer.bucket` is not read)"
GCS_SINK_PATH = (
    "tremorc only: the object name prefix (folder) of the part files; Tremor names each object "
    "by the event's `$gcs_streamer.name`, which tremorc does not read"
)
GCS_TOKEN = (
    '`{"file": key.json}` (a service account key) or `"env"` (application default '
    'credentials); none: unauthenticated (an emulator); `{"json": …}` is rejected'
)
S3 = (
    Entry(
        name="s3_reader",
        keys=(
            Key(name="bucket", type="string", required=True, doc="the bucket"),
            Key(
                name="prefix",
                type="string",
                doc="`dir/`: the objects in that folder; `dir/ab`: those of the folder `dir/` "
                "whose key starts with `ab` (not deeper keys)",
            ),
            *S3_ENDPOINT,
            Key(name="multipart_chunksize", type="unsigned", doc="fs.s3a.multipart.size"),
            Key(name="multipart_threshold", type="unsigned", doc="fs.s3a.multipart.threshold"),
            Key(name="max_connections", type="unsigned", doc="fs.s3a.connection.maximum"),
        ),
        factory=RT + "s3.S3Reader",
        ports=("out", "err"),
        doc="source: Spark's file source on s3a (batch; stream: new objects)",
    ),
    Entry(
        name="s3_streamer",
        keys=(
            Key(name="bucket", type="string", required=True, doc="the bucket"),
            Key(name="path", type="string", default="", doc=S3_SINK_PATH),
            _WRITE_MODE,
            Key(name="buffer_size", type="unsigned", doc="accepted; s3a sizes its uploads"),
            *S3_ENDPOINT,
        ),
        factory=RT + "s3.S3Streamer",
        ports=("in",),
        doc="sink: Spark's text writer on s3a, part files (stream: one folder per micro-batch, "
        "exactly once)",
    ),
    Entry(
        name="gcs_streamer",
        keys=(
            Key(name="bucket", type="string", required=True, doc=GCS_BUCKET),
            Key(name="path", type="string", default="", doc=GCS_SINK_PATH),
            Key(
                name="url",
                type="string",
                default="https://storage.googleapis.com/upload/storage/v1/",
                doc="the upload endpoint; its root is `fs.gs.storage.root.url`",
            ),
            Key(name="token", type="string|record", doc=GCS_TOKEN),
            _WRITE_MODE,
            Key(name="connect_timeout", type="unsigned", doc="ns; `fs.gs.http.connect-timeout`"),
            Key(name="buffer_size", type="unsigned", doc="`fs.gs.outputstream.upload.chunk.size`"),
            Key(name="max_retries", type="unsigned", doc="`fs.gs.http.max.retry`"),
            Key(
                name="backoff_base_time",
                type="unsigned",
                doc="accepted; the gcs-connector's client has its own backoff",
            ),
        ),
        factory=RT + "gcs.GcsStreamer",
        ports=("in",),
        doc="sink: Spark's text writer on Hadoop's `gs` (gcs-connector), part files (stream: "
        "one folder per micro-batch, exactly once)",
    ),
    Entry(
        name="kafka_consumer",
        keys=(
            KAFKA_BROKERS,
            Key(name="topics", type="array<string>", required=True, doc="`subscribe`"),
            Key(
                name="group_id",
                type="string",
                required=True,
                doc="prefix of the group ids of Spark's consumers (`groupIdPrefix`)",
            ),
            Key(name="mode", type="string|record", default="performance", doc=KAFKA_MODE),
        ),
        factory=RT + "kafka.KafkaSource",
        ports=("out", "err"),
        doc="source: Spark's Kafka source (batch: earliest to latest; stream: checkpointed)",
    ),
    Entry(
        name="kafka_producer",
        keys=(
            KAFKA_BROKERS,
            Key(name="topic", type="string", required=True, doc="the topic written to"),
            Key(name="key", type="string", doc="the key of every message (default: none)"),
            Key(name="rdkafka_options", type="record", doc=KAFKA_PRODUCER_OPTIONS),
        ),
        factory=RT + "kafka.KafkaSink",
        ports=("in",),
        doc="sink: Spark's Kafka sink, one message per event, at least once",
    ),
    *NET_ENTRIES,
    *TIME_ENTRIES,
    DNS,
    ELASTIC,
    KV,
)

_SUPPORTED = (
    JDBC
    + S3
    + (
        Entry(
            name="exit",
            keys=(
                Key(name="delay", type="unsigned", doc=EXIT_DELAY),
                Key(name="graceful", type="bool", default=True, doc=EXIT_GRACEFUL),
            ),
            scope="global",
            factory=RT + "simple.ExitSink",
            ports=("in",),
            doc="sink: the run stops at the first event that reaches it (after `delay`)",
        ),
        Entry(
            name="file",
            keys=(
                Key(name="path", type="string", required=True, doc="relative to the working dir"),
                Key(
                    name="mode",
                    type="string",
                    required=True,
                    choices=("read", "write", "append", "truncate", "overwrite"),
                    doc="`read`: a source; otherwise a sink",
                ),
                Key(name="chunk_size", type="unsigned", rejected=FILE_CHUNK),
                Key(name="single_file", type="bool", default=False, doc=FILE_SINGLE),
            ),
            factory=RT + "file.source_for",
            ports=("out", "err", "in"),
            doc="source (mode `read`) or sink",
        ),
        Entry(
            name="metrics",
            factory=RT + "metrics_stream.MetricsSource",
            ports=("out", "err"),
            doc=METRICS_DOC,
        ),
        Entry(
            name="metronome",
            keys=(Key(name="interval", type="unsigned", required=True, doc="ns between events"),),
            factory=RT + "metronome.MetronomeSource",
            ports=("out", "err"),
            doc="source: `--ticks` events (default 10)",
        ),
        Entry(
            name="null",
            factory=RT + "simple.NullConnector",
            ports=("out", "err", "in"),
            doc="source of nothing; sink that discards",
        ),
        Entry(
            name="stdio",
            factory=RT + "stdio.StdioSource",
            ports=("out", "err", "in", "stdout", "stderr"),
            doc="stdin source; stdout/stderr sink (`-i`/`-o` replace them)",
        ),
    )
)

_LATER = "tremorc does not implement it yet"
_NOT_BUILT = (
    "not built yet: tremorc's network connectors are udp_server/udp_client, tcp_server/tcp_client, "
    "unix_socket_server/unix_socket_client, ws_server/ws_client, http_server and http_client "
    "(runtime_support/io/connectors/net)"
)
_CLOUD_ONLY = (
    "{} is a hosted service with no server or emulator in the registries this project installs "
    "from (PyPI, Debian, Maven Central), so a tremorc connector for it could not be tested"
)
_UNSUPPORTED = {
    "azure_monitor_ingest_writer": _CLOUD_ONLY.format("Azure Monitor's ingestion API"),
    "bench": "Tremor's benchmark harness (it times Tremor's own runtime); use benchmarks/ here",
    "cb": "Tremor's test-harness connector (circuit-breaker acks inside Tremor's runtime)",
    "discord": _CLOUD_ONLY.format("Discord's bot gateway"),
    "gbq_writer": _CLOUD_ONLY.format("Google BigQuery's Storage Write API"),
    "gcl_writer": _CLOUD_ONLY.format("Google Cloud Logging"),
    "gpubsub_consumer": _CLOUD_ONLY.format("Google Pub/Sub"),
    "gpubsub_producer": _CLOUD_ONLY.format("Google Pub/Sub"),
    "wal": (
        "a write-ahead log between a connector and a pipeline, replayed until the pipeline acks: "
        "in a tremorc stream Spark's checkpoint (source offsets, server spools, state) is that "
        "durable log and a micro-batch is replayed until it commits; a batch job reads its "
        "input whole. Connect the source directly"
    ),
}

CONNECTORS = Registry(
    "connector",
    _SUPPORTED + tuple(Entry(name=n, supported=False, reason=r) for n, r in _UNSUPPORTED.items()),
)

#: Factories of the supported kinds, per direction: a job's ``ConnectorSpec`` names them
#: (``source=``, ``sink=``), and the runtime builds its connectors with them.
SOURCE_FACTORIES = {
    "file": RT + "file.source_for",
    "kafka_consumer": RT + "kafka.KafkaSource",
    "metrics": RT + "metrics_stream.MetricsSource",
    "metronome": RT + "metronome.MetronomeSource",
    "null": RT + "simple.NullConnector",
    "postgres": RT + "jdbc.PostgresSource",
    "s3_reader": RT + "s3.S3Reader",
    "stdio": RT + "stdio.StdioSource",
    **NET_SOURCE_FACTORIES,
    **TIME_SOURCE_FACTORIES,
}
SINK_FACTORIES = {
    "clickhouse": RT + "jdbc.JdbcSink",
    "dns_client": RT + "dns.DnsSink",
    "elastic": RT + "elastic.ElasticSink",
    "exit": RT + "simple.ExitSink",
    "file": RT + "file.sink_for",
    "kafka_producer": RT + "kafka.KafkaSink",
    "kv": RT + "kv.KvSink",
    "null": RT + "simple.NullConnector",
    "postgres": RT + "jdbc.JdbcSink",
    "s3_streamer": RT + "s3.S3Streamer",
    "gcs_streamer": RT + "gcs.GcsStreamer",
    "stdio": RT + "stdio.StdioSink",
    **NET_SINK_FACTORIES,
}


def _simple(posts: Any) -> bool:
    """Only ``separate``/``remove-empty``: Spark's text writer frames the lines itself; other
    chains write part files of postprocessed bytes (no separator needed)."""
    from runtime_support.io.codecs import framing_from

    try:
        return framing_from(posts).simple
    except ValueError:  # an unknown processor: the processor check names it
        return True


def check_file_sink(
    params: dict[str, Any], key_span: Callable[[str], Span], post_span: Span, source: Source
) -> None:
    """A ``file`` sink written as part files (no ``single_file: true``) needs what Spark's text
    writer can do: the ``separate`` postprocessor (a line separator) and a mode that replaces or
    adds to the folder; otherwise a CompileError naming both ways out."""
    config = params.get("config") or {}
    if config.get("mode") == "read" or config.get("single_file") is True:
        return
    if config.get("mode") == "overwrite":
        message = (
            "Mode `overwrite` (write over a file without truncating it) needs one file: add "
            '`"single_file": true`, or use `truncate` to replace the part files folder'
        )
        raise CompileError(message, key_span("mode"), source=source)
    posts = params.get("postprocessors") or ()
    names = [p.get("name") if isinstance(p, dict) else p for p in posts]
    if "separate" not in names and _simple(posts):
        message = (
            'A `file` sink writes part files of lines: add `postprocessors = ["separate"]`, or '
            '`"single_file": true` to write the events back to back into one file'
        )
        raise CompileError(message, post_span, source=source)


def check_kafka(
    kind: str, config: dict[str, Any], key_span: Callable[[str], Span], source: Source
) -> None:
    """A Kafka connector's ``mode`` / ``rdkafka_options`` map to Spark's Kafka options, or a
    CompileError at the key naming the option and what is supported."""
    try:
        if kind == "kafka_consumer":
            consumer_options(config)
        else:
            producer_options(config)
    except OptionError as err:
        raise CompileError(str(err), key_span(err.path.split(".")[0]), source=source) from None
