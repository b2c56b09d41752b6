"""Codecs (a connector's ``codec``, TREMOR.md §6.1).

Invariant: every codec Tremor ships is listed; the supported ones are implemented by
``runtime_support.io.codecs`` and ``runtime_support.io.codecs`` (the ``CODECS`` table mirrors the
factories, see tests/compiler/registry/test_registry.py) and declare the config keys they honour.
"""

from __future__ import annotations

from typing import Any

from .common import Entry, Key, Registry

RT = "runtime_support.io.codecs."
IMPL = "runtime_support.io.codecs."

_SUPPORTED = (
    Entry(
        name="avro",
        keys=(
            Key(
                name="schema",
                type="record|string",
                required=True,
                doc="the Avro schema (a record, or a primitive type's name)",
            ),
            Key(
                name="compression",
                type="string",
                default="none",
                choices=("none", "deflate", "snappy", "zstd", "bzip2", "xz"),
                doc="the container's block codec",
            ),
        ),
        factory=IMPL + "avro_codec.AvroCodec",
        doc="Avro object container (one record) ⇄ value, by fastavro; logical types as their "
        "underlying values",
    ),
    Entry(
        name="binary",
        factory=RT + "BinaryCodec",
        doc="raw bytes ⇄ binary value (non-binary values are encoded as JSON)",
    ),
    Entry(
        name="binflux",
        factory=IMPL + "influx.BinfluxCodec",
        doc="Tremor's binary influx (big-endian, u16-length-prefixed strings) ⇄ "
        "{measurement, tags, fields, timestamp}",
    ),
    Entry(
        name="confluent-schema-registry",
        keys=(
            Key(
                name="url",
                type="string",
                required=True,
                doc="the schema registry's root, `http(s)://host[:port][/path]`",
            ),
        ),
        factory=IMPL + "confluent.ConfluentCodec",
        doc="Confluent wire format (magic 0, schema id, Avro datum) ⇄ value, schemas from the "
        "registry: by id to decode, the latest of `<topic>-value` to encode; only at "
        "`kafka_consumer` / `kafka_producer`",
    ),
    Entry(
        name="csv",
        factory=IMPL + "csv_codec.CsvCodec",
        doc="one RFC 4180 record ⇄ array of strings (later records dropped)",
    ),
    Entry(
        name="dogstatsd",
        factory=IMPL + "dogstatsd.DogStatsDCodec",
        doc="DogStatsD v1.2 metrics, events, service checks ⇄ {metric|event|service_check: …}",
    ),
    Entry(
        name="graphite-plaintext",
        factory=IMPL + "graphite.GraphiteCodec",
        doc="`path value seconds` ⇄ {metric, value, timestamp (ns)}",
    ),
    Entry(
        name="influx",
        factory=IMPL + "influx.InfluxCodec",
        doc="influx line protocol ⇄ {measurement, tags, fields, timestamp}",
    ),
    Entry(
        name="json",
        keys=(
            Key(
                name="mode",
                type="string",
                default="unsorted",
                choices=("sorted", "unsorted"),
                doc="`sorted`: key-sorted output",
            ),
        ),
        factory=RT + "JsonCodec",
        doc="JSON ⇄ value; output compact",
    ),
    Entry(name="msgpack", factory=IMPL + "msgpack_codec.MsgPackCodec", doc="MessagePack ⇄ value"),
    Entry(
        name="null",
        factory=RT + "NullCodec",
        doc="every chunk is the event null; events encode to no bytes",
    ),
    Entry(
        name="statsd",
        factory=IMPL + "statsd.StatsDCodec",
        doc="`name:v|type|@rate` ⇄ {metric, type, value, [action], [sample_rate]}",
    ),
    Entry(name="string", factory=RT + "StringCodec", doc="UTF-8 text ⇄ string"),
    Entry(
        name="syslog",
        factory=IMPL + "syslog.SyslogCodec",
        doc="RFC 5424 / RFC 3164 ⇄ {severity, facility, hostname, appname, procid, msgid, "
        "structured_data, msg, protocol, protocol_version, timestamp}",
    ),
    Entry(
        name="yaml",
        factory=IMPL + "yaml_codec.YamlCodec",
        doc="YAML 1.2 (core schema) ⇄ value",
    ),
)

_UNSUPPORTED = {
    "tremor": (
        "Tremor's internal format between Tremor nodes; no Tremor node reads or writes a Spark "
        "job's data"
    ),
}

CODECS = Registry(
    "codec",
    _SUPPORTED + tuple(Entry(name=n, supported=False, reason=r) for n, r in _UNSUPPORTED.items()),
)

#: The connectors the ``confluent-schema-registry`` codec runs at (it encodes for a topic).
CONFLUENT_KINDS = ("kafka_consumer", "kafka_producer")


def check_codec_use(kind: str, name: str, config: Any) -> str | None:
    """Why codec ``name`` with ``config`` can not run at a ``kind`` connector (None: it can)."""
    if name != "confluent-schema-registry":
        return None
    if kind not in CONFLUENT_KINDS:
        return (
            f"The codec `{name}` runs only at `kafka_consumer` and `kafka_producer` (it encodes "
            f"with the schema of the topic's subject `<topic>-value`), not at `{kind}`; use "
            "`avro` with the schema in its config"
        )
    from runtime_support.io.codecs.common import CodecError
    from runtime_support.io.codecs.confluent import check_url

    try:
        check_url(config)
    except CodecError as err:
        return f"Invalid config of codec `{name}`: {err}"
    return None
