"""``kafka_consumer`` / ``kafka_producer`` on Spark's own Kafka source and sink
(``format("kafka")``, the ``spark-sql-kafka-0-10_2.13`` package of the running Spark, see
:func:`package`); their config is mapped by :mod:`.kafka_options`.

Consumer. Batch: every message of ``topics`` from the earliest to the latest offset at the start
of the run. Stream: ``readStream`` from ``auto.offset.reset`` (librdkafka's default: latest) on
a new checkpoint; the offsets then live in the checkpoint, so each message is processed exactly
once across restarts (nothing is committed to the consumer group; ``group_id`` is the prefix of
the group ids Spark's consumers use). Each message's payload goes through the preprocessors'
framing and the codec on the executors; an event carries ``$kafka_consumer`` ``{key, headers,
topic, partition, offset, timestamp}`` as Tremor's does (key and header values binary,
timestamp in ns or null, headers null when there are none) in the ``meta`` column, and the origin
``tremor-kafka://<first broker>/<topic>/<partition>/<offset>``. Order: ``seq`` follows each
partition's offsets; across partitions (as in Tremor) there is no arrival order: batch numbers
partition after partition, a stream numbers each micro-batch by ``(topic, partition, offset)``.

Producer: one message per event (a batched event's elements are separate events by then), the
value encoded by the codec and framed by the postprocessors, ``key`` from the config, written in
emission order by one Kafka producer per write (batch: the whole run; stream: each micro-batch,
at least once: a micro-batch replayed after a crash is written again).
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.codecs import Codec, Framing, codec_from, framing_from
from runtime_support.io.codecs.confluent import for_topic
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.kafka_options import consumer_options, producer_options
from runtime_support.spark.input_lines import SOURCE_ERROR
from runtime_support.tremor.event_meta import encode_meta
from runtime_support.tremor.jsonio import decode_json, encode_json
from runtime_support.tremor.origin import encode_origin

__all__ = ["KafkaSink", "KafkaSource", "package"]

DECODED_SCHEMA = (
    "mtime long, file string, block long, row long, value binary, origin string, meta string"
)
NUMBERED_SCHEMA = "seq long, value string, ingest_ns long, origin string, meta string"
CHUNK_BITS = 16  # row = offset << CHUNK_BITS | chunk index within the message


def package() -> str:
    """The Maven coordinates of Spark's Kafka connector for the running pyspark."""
    import pyspark

    return f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}"


def _host_port(broker: str) -> tuple[str, int | None]:
    host, _, port = broker.rpartition(":")
    return host, int(port) if port.isdigit() else None


class KafkaSource:
    """Spark's Kafka source over ``topics`` (see the module doc)."""

    packages = (package,)

    def __init__(self, spec: ConnectorSpec) -> None:
        self.settings = consumer_options(spec.config)
        self.alias = spec.alias
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("preprocessors"))

    def _load(self, reader: Any, starting: str, ending: str | None = None) -> Any:
        from pyspark.sql import functions as F

        settings = self.settings
        reader = (
            reader.format("kafka")
            .option("kafka.bootstrap.servers", ",".join(settings.brokers))
            .option("subscribe", ",".join(settings.topics))
            .option("includeHeaders", "true")
            .option("startingOffsets", starting)
        )
        if settings.group_id:
            reader = reader.option("groupIdPrefix", settings.group_id)
        if ending is not None:
            reader = reader.option("endingOffsets", ending)
        for key, value in sorted(settings.options.items()):
            reader = reader.option(key, value)
        raw = reader.load().select(
            "key",
            "value",
            "topic",
            F.col("partition").cast("long").alias("partition"),
            "offset",
            F.unix_millis("timestamp").alias("timestamp"),
            "headers",
        )
        host, port = _host_port(settings.brokers[0])
        work = decoder(self.codec, self.framing, (host, port, self.alias))
        return raw.mapInArrow(work, DECODED_SCHEMA)

    def read(self, spark: Any, ctx: RunContext) -> Any:
        """Every message from the earliest to the latest offset: ``seq, value, ingest_ns,
        origin, meta``."""
        from pyspark.sql import functions as F

        decoded = self._load(spark.read, "earliest", "latest")
        seq = F.monotonically_increasing_id()
        base = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        return decoded.select(
            seq.alias("seq"),
            F.col("value").cast("string").alias("value"),
            (seq + F.lit(base)).alias("ingest_ns"),
            "origin",
            "meta",
        )

    def stream(self, spark: Any, args: Any, start_ns: int) -> Any:
        """The streaming DataFrame of the same columns, numbered in arrival order by a
        :class:`~runtime_support.spark.state_store.Numberer` (its counter in the checkpoint)."""
        from pyspark.sql import functions as F

        from runtime_support.spark.state_store import Numberer

        decoded = self._load(spark.readStream, self.settings.starting)
        return (
            decoded.withColumn("all", F.lit(0))
            .groupBy("all")
            .transformWithStateInPandas(Numberer(args.ingest_ns), NUMBERED_SCHEMA, "Append", "None")
        )


def decoder(codec: Codec, framing: Framing, where: tuple[str, int | None, str]) -> Any:
    """``mapInArrow``: Kafka rows → preprocessed, decoded events (``DECODED_SCHEMA``; ``value``
    the JSON text as bytes). A chunk a processor or the codec fails on becomes an ``err`` record
    ``{"error": reason, "source": alias}`` (origin ``SOURCE_ERROR``); a json chunk is parsed by
    the source stage, which reports a bad one on ``err``. ``where``: first broker, alias."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        schema = pa.schema(
            [
                ("mtime", pa.int64()),
                ("file", pa.string()),
                ("block", pa.int64()),
                ("row", pa.int64()),
                ("value", pa.binary()),
                ("origin", pa.string()),
                ("meta", pa.string()),
            ]
        )
        for batch in batches:
            out: dict[str, list[Any]] = {name: [] for name in schema.names}
            for row in batch.to_pylist():
                _decode_message(row, codec, framing, where, out)
            yield pa.RecordBatch.from_pydict(out, schema=schema)

    return run


def _decode_message(
    row: dict[str, Any],
    codec: Codec,
    framing: Framing,
    where: tuple[str, int | None, str],
    out: dict[str, list[Any]],
) -> None:
    host, port, alias = where
    topic, partition, offset = row["topic"], row["partition"], row["offset"]
    meta = None
    at = encode_origin("tremor-kafka", host, port, [topic, str(partition), str(offset)])
    for index, chunk in enumerate(_chunks(row["value"] or b"", framing)):
        origin = at
        value = chunk if isinstance(chunk, str) else _decoded(chunk, codec)
        if value is None:
            continue
        if isinstance(value, str):  # a processor's or the codec's error
            value = encode_json({"error": value, "source": alias}).encode("utf-8")
            origin = SOURCE_ERROR
        if meta is None:
            meta = encode_meta({"kafka_consumer": kafka_meta(row)})
        out["mtime"].append(0)
        out["file"].append(topic)
        out["block"].append(partition)
        out["row"].append((offset << CHUNK_BITS) | min(index, (1 << CHUNK_BITS) - 1))
        out["value"].append(value)
        out["origin"].append(origin)
        out["meta"].append(meta)


def kafka_meta(row: dict[str, Any]) -> dict[str, Any]:
    """Tremor's ``$kafka_consumer`` record of one Kafka row (Spark's columns)."""
    headers = None
    if row.get("headers"):
        headers = {}
        for header in row["headers"]:
            headers.setdefault(header["key"], header["value"])  # the first of a name wins
    timestamp = row.get("timestamp")
    return {
        "key": row.get("key"),
        "headers": headers,
        "topic": row["topic"],
        "partition": row["partition"],
        "offset": row["offset"],
        "timestamp": None if timestamp is None or timestamp < 0 else timestamp * 1_000_000,
    }


def _chunks(payload: bytes, framing: Framing) -> list[bytes | str]:
    """The chunks of one message: the whole payload, or what the preprocessors make of it (a
    message is a complete read: a last piece without a separator is a chunk too); a ``str``
    is a processor's error."""
    if not framing.simple:
        from runtime_support.io.processors import Failed, preprocess_stream

        items = preprocess_stream(framing.processors, payload, 0)
        return [item.reason if isinstance(item, Failed) else item[0] for item in items]
    if framing.separator is None:
        chunks = [payload]
    else:
        chunks = payload.split(framing.separator.encode("utf-8"))
        if chunks and chunks[-1] == b"" and len(chunks) > 1:
            chunks.pop()
    return [c for c in chunks if c or not framing.drop_empty]


def _decoded(chunk: bytes, codec: Codec) -> bytes | str | None:
    """The JSON text (bytes) of the event of ``chunk``, None when it makes no event, the
    reason (``str``) when the codec fails."""
    if codec.name == "json":  # the source stage parses it (and reports a bad chunk on err)
        return chunk if chunk.strip() else None
    try:
        made, value = codec.decode(chunk.decode("utf-8", "surrogateescape"))
    except ValueError as err:
        return str(err)
    return encode_json(value).encode("utf-8") if made else None


class KafkaSink:
    """Spark's Kafka sink to ``topic`` (see the module doc)."""

    stops = False
    packages = (package,)

    def __init__(self, spec: ConnectorSpec) -> None:
        config = spec.config
        self.options = producer_options(config)
        self.brokers = ",".join(config["brokers"])
        self.topic = str(config["topic"])
        key = config.get("key")
        self.key = None if key is None else str(key).encode("utf-8")
        self.codec = for_topic(codec_from(spec.params.get("codec")), self.topic)
        self.framing = framing_from(spec.params.get("postprocessors"))

    def messages(self, frame: Any) -> Any:
        """``key, value, headers, partition`` rows of ``frame``'s events (``value, seq, sub[,
        meta]``), in emission order in one partition; ``$kafka_producer`` sets each message's
        key (else ``key``), headers and partition (see :func:`message_fields`)."""
        from pyspark.sql import functions as F

        if "meta" not in frame.columns:
            frame = frame.withColumn("meta", F.lit(None).cast("string"))
        ordered = frame.orderBy("seq", "sub").coalesce(1).select("value", "meta")
        return ordered.mapInArrow(message_encoder(self.codec, self.framing, self.key), MESSAGES)

    def _save(self, frame: Any) -> None:
        writer = (
            self.messages(frame)
            .write.format("kafka")
            .option("kafka.bootstrap.servers", self.brokers)
            .option("topic", self.topic)
        )
        for key, value in sorted(self.options.items()):
            writer = writer.option(key, value)
        writer.save()

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Batch: every event of the run."""
        self._save(frame)
        if progress.active:
            progress.add(frame.count())

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """Stream: one micro-batch's events (at least once: a replay writes them again)."""
        self._save(frame.select("value", "seq", "sub"))


def message_encoder(codec: Codec, framing: Framing, key: bytes | None = None) -> Any:
    """``mapInArrow``: JSON-text values (and ``meta``) → encoded, framed messages with their
    ``$kafka_producer`` fields (rows the codec writes nothing for are dropped; order kept)."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        for batch in batches:
            cols = batch.to_pydict()
            out: dict[str, list] = {"key": [], "value": [], "headers": [], "partition": []}
            for text, meta in zip(cols["value"], cols["meta"], strict=True):
                data = _encoded_message(codec, framing, decode_json(text))
                if data is None:
                    continue
                fields = message_fields(meta, key)
                for name in out:
                    out[name].append(data if name == "value" else fields[name])
            yield pa.RecordBatch.from_pydict(out, schema=_messages_schema())

    return run


def _encoded_message(codec: Codec, framing: Framing, value: Any) -> bytes | None:
    from runtime_support.io.processors import postprocess_stream

    data = codec.encode(value)
    if data is None:
        return None
    if framing.simple:
        framed = framing.frame(data)
        return framed.encode("utf-8", "surrogateescape") if type(framed) is str else framed
    raw = data.encode("utf-8", "surrogateescape") if type(data) is str else data
    return postprocess_stream(framing.processors, [raw])  # one message: the chain per event


MESSAGES = "key binary, value binary, headers array<struct<key: string, value: binary>>, " + (
    "partition int"
)


def _messages_schema() -> Any:
    import pyarrow as pa

    header = pa.struct([("key", pa.string()), ("value", pa.binary())])
    return pa.schema(
        [
            ("key", pa.binary()),
            ("value", pa.binary()),
            ("headers", pa.list_(header)),
            ("partition", pa.int32()),
        ]
    )


def message_fields(meta_text: str | None, key: bytes | None) -> dict[str, Any]:
    """Spark's Kafka sink columns of one event's ``$kafka_producer`` (Tremor's producer.rs): a
    string or bytes ``key`` (else the config's), ``headers`` whose string or bytes values are
    sent (others skipped), an integer ``partition``. ``timestamp`` is not honoured: Spark's
    Kafka sink has no timestamp column (the producer stamps each message)."""
    from runtime_support.tremor.event_meta import _untagged

    envelope = decode_json(meta_text) if meta_text else {}
    meta = _untagged(envelope.get("$")) if isinstance(envelope, dict) else None
    kafka = meta.get("kafka_producer") if isinstance(meta, dict) else None
    kafka = kafka if isinstance(kafka, dict) else {}
    given = kafka.get("key")
    if isinstance(given, str):
        key = given.encode("utf-8")
    elif isinstance(given, bytes):
        key = given
    headers = None
    if isinstance(kafka.get("headers"), dict):
        headers = [
            {"key": k, "value": v.encode("utf-8") if isinstance(v, str) else v}
            for k, v in kafka["headers"].items()
            if isinstance(v, str | bytes)
        ]
    part = kafka.get("partition")
    partition = part if type(part) is int and -(2**31) <= part < 2**31 else None
    return {"key": key, "headers": headers, "partition": partition}
