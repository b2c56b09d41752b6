"""Connector kinds (``define connector x from <kind>``, TREMOR.md §6.3) and their ``config``.

Invariant: every kind Tremor ships is listed; the supported ones name their runtime factories
(``runtime_support.connectors.SOURCES`` / ``SINKS`` must agree, see tests/test_registry.py) and
declare exactly the ``config`` keys the runtime honours; a key Tremor has that the runtime would
ignore is declared with a ``reason`` and rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime_support.connectors.kafka_options import (
    OptionError,
    consumer_options,
    producer_options,
)

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key, Registry

RT = "runtime_support.connectors."

#: The top-level ``with`` keys of a connector definition and what a batch job does with them.
WITH_KEYS = (
    Key(name="codec", type="string|record", doc="a codec name or `{name, config}`"),
    Key(name="config", type="record", doc="the connector-specific config (see below)"),
    Key(name="preprocessors", type="array", doc="names or `{name, config}` records"),
    Key(name="postprocessors", type="array", doc="names or `{name, config}` records"),
    Key(
        name="metrics_interval_s",
        type="unsigned",
        doc="accepted; no effect (no `metrics` connector on Spark)",
    ),
    Key(name="reconnect", type="string|record", doc="accepted; batch sources never reconnect"),
)

#: Config keys Tremor's exit connector has and a batch job cannot honour (see README).
EXIT_DELAY = "a batch job stops at the first event that reaches `exit`; it cannot wait"
EXIT_GRACEFUL = "a batch job always stops gracefully, after writing what reached the sinks"
FILE_CHUNK = "a file is read whole, or split by the `separate` preprocessor, never by chunk size"
FILE_SINGLE = (
    "tremorc only (Tremor rejects the key). A sink writes `path` as a folder of part files with "
    "Spark's text writer, each part file in emission order, no event through the driver; `true`: "
    "one file at `path` in the whole emission order instead, every event through the driver, one "
    "at a time (for small outputs only: the driver is the bottleneck)"
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

_SUPPORTED = (
    Entry(
        name="exit",
        keys=(
            Key(name="delay", type="unsigned", rejected=EXIT_DELAY),
            Key(name="graceful", type="bool", default=True, choices=(True,), doc=EXIT_GRACEFUL),
        ),
        scope="global",
        factory=RT + "simple.ExitSink",
        ports=("in",),
        doc="sink: the run stops at the first event that reaches it",
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
        factory=RT + "file.FileSource",
        ports=("out", "err", "in"),
        doc="source (mode `read`) or sink",
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

_LATER = "tremorc does not implement it yet"
_NETWORK = "a network or cloud connector; a batch Spark job reads files and stdio only"
_UNSUPPORTED = {
    "azure_monitor_ingest_writer": _NETWORK,
    "bench": "Tremor's benchmark connector",
    "cb": "Tremor's test-harness connector",
    "clickhouse": _NETWORK,
    "crononome": "wall-clock cron schedules have no meaning in a batch job",
    "discord": _NETWORK,
    "dns_client": _NETWORK,
    "elastic": _NETWORK,
    "gbq_writer": _NETWORK,
    "gcl_writer": _NETWORK,
    "gcs_streamer": _NETWORK,
    "gpubsub_consumer": _NETWORK,
    "gpubsub_producer": _NETWORK,
    "http_client": _NETWORK,
    "http_server": _NETWORK,
    "kv": "an embedded key-value store with command events",
    "metrics": "Tremor's runtime metrics do not exist on Spark",
    "otel_client": _NETWORK,
    "otel_server": _NETWORK,
    "s3_reader": _LATER,
    "s3_streamer": _LATER,
    "tcp_client": _NETWORK,
    "tcp_server": _NETWORK,
    "udp_client": _NETWORK,
    "udp_server": _NETWORK,
    "unix_socket_client": _NETWORK,
    "unix_socket_server": _NETWORK,
    "wal": "a write-ahead log needs acknowledgements a batch job does not have",
    "ws_client": _NETWORK,
    "ws_server": _NETWORK,
}

CONNECTORS = Registry(
    "connector",
    _SUPPORTED + tuple(Entry(name=n, supported=False, reason=r) for n, r in _UNSUPPORTED.items()),
)

#: Factories of the supported kinds, per direction (the runtime's tables mirror these).
SOURCE_FACTORIES = {
    "file": RT + "file.FileSource",
    "kafka_consumer": RT + "kafka.KafkaSource",
    "metronome": RT + "metronome.MetronomeSource",
    "null": RT + "simple.NullConnector",
    "stdio": RT + "stdio.StdioSource",
}
SINK_FACTORIES = {
    "exit": RT + "simple.ExitSink",
    "file": RT + "file.FileSink",
    "kafka_producer": RT + "kafka.KafkaSink",
    "null": RT + "simple.NullConnector",
    "stdio": RT + "stdio.StdioSink",
}


def _simple(posts: Any) -> bool:
    """Only ``separate``/``remove-empty``: Spark's text writer frames the lines itself; other
    chains write part files of postprocessed bytes (no separator needed)."""
    from runtime_support.codecs import framing_from

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
