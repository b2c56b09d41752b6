"""Codecs and pre-/post-processors of flow connectors (Tremor's ``tremor-codec`` /
``tremor-interceptor``), as far as a batch job needs them.

A codec is described by its ``with`` value: a name (``"json"``) or ``{"name": …, "config": {…}}``.
Decoding turns one preprocessed chunk (``bytes``, or ``str`` holding the bytes surrogate-escaped)
into a Tremor value; encoding turns a value into the text or bytes a sink writes (post-processors
then frame it). Binary data travels as Python ``bytes``. Every codec but ``json`` is decoded in
the source (:func:`decode_chunks`); a chunk it can not decode becomes one ``err`` event, an event
it can not encode is dropped with an error line on stderr (Tremor logs it too).

json, string, binary and null are here; the other codecs are one module per family beside this
one, each a class with ``decode(data, config, ingest_ns=0) -> (bool, value)`` and
``encode(value, config) -> str | bytes``. Their input may be ``str`` (surrogate-escaped bytes)
or ``bytes``; binary formats see the exact bytes (:func:`.common.raw`). Malformed input and
unencodable values raise :class:`.common.CodecError` (a ``ValueError``) with Tremor's message.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from runtime_support.io.codecs.avro_codec import AvroCodec
from runtime_support.io.codecs.common import raw, text
from runtime_support.io.codecs.confluent import ConfluentCodec
from runtime_support.io.codecs.csv_codec import CsvCodec
from runtime_support.io.codecs.dogstatsd import DogStatsDCodec
from runtime_support.io.codecs.graphite import GraphiteCodec
from runtime_support.io.codecs.influx import BinfluxCodec, InfluxCodec
from runtime_support.io.codecs.msgpack_codec import MsgPackCodec
from runtime_support.io.codecs.statsd import StatsDCodec
from runtime_support.io.codecs.syslog import SyslogCodec
from runtime_support.io.codecs.yaml_codec import YamlCodec
from runtime_support.spark.input_lines import CODEC_ERROR
from runtime_support.tremor.jsonio import canonical_json, decode_json, encode_json

__all__ = [
    "CODECS",
    "Codec",
    "Framing",
    "chunk_decoder",
    "codec_from",
    "decode_chunks",
    "framing_from",
    "source_port",
]


class JsonCodec:
    """``json``: JSON ⇄ value; config ``mode`` ``sorted`` sorts the keys of the output. A blank
    chunk is no event (tremorc's rule for JSON lines)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return (True, decode_json(data)) if data.strip() else (False, None)

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        if isinstance(config, dict) and config.get("mode") == "sorted":
            return canonical_json(value)
        return encode_json(value)


class StringCodec:
    """``string``: UTF-8 text ⇄ string (invalid UTF-8 fails; other values are written as JSON)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return True, text(data)

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return value if type(value) in (str, bytes) else encode_json(value)


class BinaryCodec:
    """``binary``: bytes ⇄ binary value (other values are written as JSON)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return True, raw(data)

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return value if type(value) in (str, bytes) else encode_json(value)


class NullCodec:
    """``null``: every chunk is the event ``null``; every event encodes to no bytes (Tremor's
    codec: the sink still writes what its postprocessors add, e.g. a separator)."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        return True, None

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return b""


#: Codec name → implementation; mirrors the factories of ``compiler.registry.codecs``
#: (tests/compiler/registry/test_registry.py checks both agree).
CODECS: dict[str, Any] = {
    "avro": AvroCodec,
    "binary": BinaryCodec,
    "binflux": BinfluxCodec,
    "confluent-schema-registry": ConfluentCodec,
    "csv": CsvCodec,
    "dogstatsd": DogStatsDCodec,
    "graphite-plaintext": GraphiteCodec,
    "influx": InfluxCodec,
    "json": JsonCodec,
    "msgpack": MsgPackCodec,
    "null": NullCodec,
    "statsd": StatsDCodec,
    "string": StringCodec,
    "syslog": SyslogCodec,
    "yaml": YamlCodec,
}


@dataclass(frozen=True)
class Codec:
    """A codec by name with its config; the work is done by its ``CODECS`` implementation."""

    name: str = "json"
    config: Any = None

    def decode(self, data: str | bytes, ingest_ns: int = 0) -> tuple[bool, Any]:
        """``(True, value)`` for one chunk, ``(False, None)`` when the chunk yields no event;
        ``ingest_ns`` stands in for a missing timestamp (influx, graphite).

        Raises ``ValueError`` on malformed input (Tremor sends such chunks to ``err``).
        """
        return CODECS[self.name].decode(data, self.config, ingest_ns)  # type: ignore[no-any-return]

    def encode(self, value: Any) -> str | bytes | None:
        """The serialised form of ``value`` (None: nothing is written; a value the codec can
        not encode is reported on stderr and written as nothing)."""
        try:
            return CODECS[self.name].encode(value, self.config)  # type: ignore[no-any-return]
        except ValueError as err:
            print(f"Error: codec {self.name} can not encode an event: {err}", file=sys.stderr)
            return None

    def decoded_text(self, chunk: str | bytes, ingest_ns: int = 0) -> str | None:
        """The event of ``chunk`` as the JSON text sources carry (None: no event); a chunk the
        codec rejects is :data:`~runtime_support.spark.input_lines.CODEC_ERROR` + its ``err`` event.
        """
        try:
            keep, value = self.decode(chunk, ingest_ns)
        except ValueError as err:
            data = raw(chunk)
            try:
                shown: Any = data.decode("utf-8")
            except UnicodeDecodeError:
                shown = data  # a binary value: its JSON is base64
            error = f"Invalid {'JSON' if self.name == 'json' else self.name} input: {err}"
            return CODEC_ERROR + encode_json({"error": error, "event": shown})
        return encode_json(value) if keep else None


@dataclass
class Framing:
    """A connector's pre- or postprocessors (see :mod:`runtime_support.io.processors`).

    ``simple``: the chain is only ``separate`` (with just a ``separator``) and ``remove-empty``,
    which Spark's text reader and writer do themselves: ``separator`` is then the separator (None
    without ``separate``) and ``drop_empty`` says ``remove-empty`` runs after it (or alone).
    Otherwise ``separator`` is None and a connector runs the chain (``pre_chain`` /
    ``post_chain``) on the bytes itself.
    """

    separator: str | None = None
    drop_empty: bool = False
    processors: tuple[Any, ...] = ()
    simple: bool = True
    _post: Any = field(default=None, compare=False, repr=False)

    def pre_chain(self) -> Any:
        """A fresh preprocessor chain (one per stream: a file, a connection)."""
        from runtime_support.io.processors import PreChain

        return PreChain(self.processors)

    def post_chain(self) -> Any:
        """A fresh postprocessor chain (one per output stream)."""
        from runtime_support.io.processors import PostChain

        return PostChain(self.processors)

    def frame(self, data: str | bytes, ingest_ns: int = 0) -> bytes:
        """Bytes written for one encoded event (this Framing's own postprocessor chain, so
        ``collect``/``chunk``/``streaming-compress`` hold bytes back until :meth:`finish`)."""
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        if self.simple:
            return raw if self.separator is None else raw + self.separator.encode("utf-8")
        if self._post is None:
            self._post = self.post_chain()
        return b"".join(self._post.process(raw, ingest_ns))

    def finish(self) -> bytes:
        """What the postprocessors still hold at the end of the output (then a fresh chain)."""
        chain, self._post = self._post, None
        return b"" if chain is None else b"".join(chain.finish())


def _name_config(spec: Any) -> tuple[str, Any]:
    """``"x"`` or ``{"name": "x", "config": c}`` → ``("x", c)``."""
    if isinstance(spec, dict):
        return str(spec.get("name", "")), spec.get("config")
    return str(spec), None


def codec_from(spec: Any, default: str = "json") -> Codec:
    """The codec of a connector's ``codec`` value (``None``: ``default``)."""
    if spec is None:
        return Codec(default)
    name, config = _name_config(spec)
    if name not in CODECS:
        raise ValueError(f"Codec `{name}` is not supported by tremorc's Spark runtime")
    return Codec(name, config)


_SIMPLE_SEPARATE = {"separator"}


def framing_from(processors: Any) -> Framing:
    """The framing of a ``preprocessors`` / ``postprocessors`` list: ``simple`` (see
    :class:`Framing`) when it is ``separate`` (only its ``separator``) and ``remove-empty``;
    any other chain runs through :mod:`runtime_support.io.processors` (an unknown processor or a
    bad config raises ``ValueError``, the compiler's registry having rejected it first)."""
    from runtime_support.io.processors import POSTPROCESSORS, PREPROCESSORS

    items = [_name_config(item) for item in processors or ()]
    names = [name for name, _ in items]
    simple = (
        all(
            name == "remove-empty"
            or name == "separate"
            and (config is None or set(config) <= _SIMPLE_SEPARATE)
            for name, config in items
        )
        and names.count("separate") <= 1
    )
    unknown = [n for n in names if n not in PREPROCESSORS and n not in POSTPROCESSORS]
    if unknown:
        raise ValueError(f"Processor `{unknown[0]}` is not supported by tremorc's Spark runtime")
    if not simple:
        return Framing(processors=tuple(processors), simple=False)
    separator = None
    drop_empty = False
    for name, config in items:
        if name == "separate":
            separator = "\n"
            drop_empty = False  # an earlier `remove-empty` saw whole reads, never empty
            if isinstance(config, dict) and isinstance(config.get("separator"), str):
                separator = config["separator"]
        else:
            drop_empty = True
    return Framing(separator, drop_empty, tuple(processors or ()), True)


def chunk_decoder(codec: Codec) -> Any:
    """The ``mapInArrow`` function decoding the ``value`` column (chunks as binary or text) into
    event JSON text; other columns pass through, a row whose chunk yields no event is dropped,
    a null ``value`` (a stream's signal row) is kept; ``ingest_ns``, when a column, is passed."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        for batch in batches:
            cols = batch.to_pydict()
            names = batch.schema.names
            stamps = cols.get("ingest_ns") or [0] * batch.num_rows
            keep, values = [], []
            for i, (chunk, ns) in enumerate(zip(cols["value"], stamps, strict=True)):
                decoded = None if chunk is None else codec.decoded_text(chunk, ns or 0)
                if chunk is None or decoded is not None:
                    keep.append(i)
                    values.append(decoded)
            out = {n: values if n == "value" else [cols[n][i] for i in keep] for n in names}
            schema = pa.schema(
                [pa.field(n, pa.string()) if n == "value" else batch.schema.field(n) for n in names]
            )
            yield pa.RecordBatch.from_pydict(out, schema=schema)

    return run


def decode_chunks(frame: Any, codec: Codec) -> Any:
    """``frame`` (a ``value`` column of chunks) with ``value`` the decoded events' JSON text."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    frame = frame.withColumn("value", F.col("value").cast("binary"))
    schema = StructType(
        [
            StructField(f.name, StringType(), True) if f.name == "value" else f
            for f in frame.schema.fields
        ]
    )
    return frame.mapInArrow(chunk_decoder(codec), schema)


def pending_codec(source: Any) -> Codec | None:
    """The codec whose decoding of ``source``'s rows is still to come (None: its rows are
    decoded events already, its rejects marked, e.g. a network server source's spool)."""
    return None if getattr(source, "decoded", False) else getattr(source, "codec", None)


def source_port(frame: Any, port: str, err_connected: bool, codec: Codec | None = None) -> Any:
    """The rows of a source ``frame`` its connector emits on ``port``: on ``err`` the chunks its
    codec rejected, as their ``err`` events (Tremor sends codec errors to the connector's
    ``err`` port); on ``out`` the others, or all rows when ``err`` is not connected (a rejected
    chunk then reaches the pipeline's ``err`` output, as an undecodable JSON line does). A
    ``json`` source (whose lines the pipeline decodes) is decoded here when ``err`` is
    connected."""
    from pyspark.sql import functions as F

    if err_connected and codec is not None and codec.name == "json":
        frame = decode_chunks(frame, codec)
    rejected = F.coalesce(F.col("value").startswith(CODEC_ERROR), F.lit(False))
    if port == "err":
        rest = F.expr(f"substring(value, {len(CODEC_ERROR) + 1})")
        return frame.filter(rejected).withColumn("value", rest)
    return frame.filter(~rejected) if err_connected else frame
