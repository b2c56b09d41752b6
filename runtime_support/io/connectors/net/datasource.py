"""What the network connectors share: the durable spool of a server source, the Python Data
Source (``pyspark.sql.datasource``) reading it as a stream, and the one writing a sink's events
from the executors.

Server sources listen on the driver (one place on a cluster). Received chunks are framed and
decoded there and appended to a spool folder under the checkpoint: segment files
``<first seq>-<count>.spool`` (moved in whole, so a reader never sees a partial one), one line per
event ``<arrival ns>\\t<value as JSON text>``. The stream reader's offset is the number of
events; ``seq`` is the position in the spool, so it increases across micro-batches and restarts,
and a micro-batch replayed after a failure re-reads the same events. Segments below the
committed offset are deleted, except the newest (it fixes the next ``seq``). While the job is
down nobody listens: what peers send then is lost.

Client sinks write from the executors: each partition, in emission order ``(seq, sub)``, opens
one connection and sends every encoded, framed event (see :class:`NetWriter`).
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from runtime_support.io.codecs import Codec, Framing, codec_from, framing_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext, build_sink, rows_frame
from runtime_support.spark.input_lines import CODEC_ERROR
from runtime_support.tremor.jsonio import encode_json

__all__ = [
    "Decoder",
    "NetSinkBase",
    "ServerSource",
    "Spool",
    "register",
    "spool_rows",
]

SPOOL_SUFFIX = ".spool"
EVENTS_SCHEMA = "seq long, value string, ingest_ns long, origin string"
META_SCHEMA = EVENTS_SCHEMA + ", meta string"
MAX_PER_BATCH = 200_000  # events per micro-batch from one server source


# Framing and decoding ---------------------------------------------------------------------------


class Decoder:
    """One peer's byte stream (or datagrams) → decoded events as JSON text.

    A chain beyond ``separate``/``remove-empty`` runs through the processors (one chain per
    peer); with ``separate`` alone the bytes are split at the separator, a partial last
    fragment kept until more arrives (``finish`` flushes it, as Tremor's preprocessor does at
    the end of a stream); without it every received chunk is one event. A chunk the codec
    rejects, or a processor failure, becomes :data:`CODEC_ERROR` + its ``err`` record, in
    place: the connector's ``err`` port gets it when connected, else the pipeline's ``err``
    (as for a file source; see ``codecs.source_port``)."""

    def __init__(self, codec: Codec, framing: Framing, alias: str) -> None:
        self.codec, self.framing, self.alias = codec, framing, alias
        self.separator = None if framing.separator is None else framing.separator.encode()
        self.rest = b""

        self.chain = None if framing.simple else framing.pre_chain()

    def feed(self, data: bytes) -> list[str]:
        if self.chain is not None:
            return self._chunks(self.chain.process(data, 0))
        if self.separator is None:
            return self._events([data])
        parts = (self.rest + data).split(self.separator)
        self.rest = parts.pop()
        return self._events(parts)

    def finish(self) -> list[str]:
        if self.chain is not None:
            return self._chunks(self.chain.finish(0))
        rest, self.rest = self.rest, b""
        return self._events([rest]) if rest else []

    def _chunks(self, items: list[Any]) -> list[str]:
        """A processor chain's output in order: chunks decoded, failures as ``err`` records."""
        out = []
        for item in items:
            if isinstance(item, tuple):
                out += self._events([item[0]])
            else:
                reason = str(getattr(item, "reason", item))
                out.append(CODEC_ERROR + encode_json({"error": reason, "source": self.alias}))
        return out

    def _events(self, chunks: list[bytes]) -> list[str]:
        out = []
        for chunk in chunks:
            if not chunk and self.framing.drop_empty:
                continue
            text = self.codec.decoded_text(chunk.decode("utf-8", "surrogateescape"))
            if text is not None:
                out.append(text)
        return out


# The spool --------------------------------------------------------------------------------------


def _segments(folder: str) -> list[tuple[int, int, str]]:
    """``(first, count, path)`` of the complete segments, in order."""
    found = []
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        if name.endswith(SPOOL_SUFFIX):
            first, count = name[: -len(SPOOL_SUFFIX)].split("-")
            found.append((int(first), int(count), os.path.join(folder, name)))
    return sorted(found)


class Spool:
    """The append side of a spool folder: :meth:`put` queues events, a writer thread moves them
    in as segment files every ``flush_ms``."""

    def __init__(self, folder: str, flush_ms: int = 20) -> None:
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):  # a segment a crash left half written
            if name.endswith(".tmp"):
                os.remove(os.path.join(folder, name))
        segments = _segments(folder)
        self.folder, self.flush_ms = folder, flush_ms
        self.next = segments[-1][0] + segments[-1][1] if segments else 0
        self.queue: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="tremorc-spool", daemon=True).start()

    def put(self, values: list[str], done: threading.Event | None = None) -> None:
        """Queue ``values``; ``done`` (if given) is set once they are in a synced segment."""
        now = time.time_ns()
        for value in values:
            self.queue.put((now, value))
        if done is not None:
            self.queue.put((now, done))

    def _run(self) -> None:
        while True:
            batch = [self.queue.get()]
            time.sleep(self.flush_ms / 1000)
            while len(batch) < MAX_PER_BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            self._write(batch)

    def _write(self, items: list[tuple[int, Any]]) -> None:
        batch = [item for item in items if isinstance(item[1], str)]
        if batch:
            self._segment(batch)
        for _ns, done in items:
            if isinstance(done, threading.Event):
                done.set()

    def _segment(self, batch: list[tuple[int, str]]) -> None:
        name = f"{self.next:020d}-{len(batch)}{SPOOL_SUFFIX}"
        tmp = os.path.join(self.folder, name + ".tmp")
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write("".join(f"{ns}\t{value}\n" for ns, value in batch))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, os.path.join(self.folder, name))
        self.next += len(batch)


def spool_rows(
    folder: str, start: int, end: int, index_ns: bool, origin: str, meta: bool = False
) -> list[tuple]:
    """The events ``start <= seq < end`` of a spool as ``(seq, value, ingest_ns, origin)``
    (``meta``: each value is ``<value>\\t<meta>``, a row gets a fifth ``meta`` column)."""
    rows = []
    for first, count, path in _segments(folder):
        if first + count <= start or first >= end:
            continue
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            for seq, line in enumerate(handle, first):
                if start <= seq < end:
                    ns, value = line.rstrip("\n").split("\t", 1)
                    row = (seq, value, seq if index_ns else int(ns), origin)
                    if meta:
                        value, _, text = value.partition("\t")
                        row = (seq, value, row[2], origin, text or None)
                    rows.append(row)
    return rows


def spool_end(folder: str) -> int:
    segments = _segments(folder)
    return segments[-1][0] + segments[-1][1] if segments else 0


def _stream_reader_class() -> type:
    from pyspark.sql.datasource import SimpleDataSourceStreamReader

    class SpoolStreamReader(SimpleDataSourceStreamReader):  # type: ignore[misc]
        """Offsets ``{"n": events}`` over a spool folder, read on the driver."""

        def __init__(self, options: dict[str, str]) -> None:
            self.folder = options["path"]
            self.index_ns = options.get("ingest_ns") == "index"
            self.origin = options.get("origin", "")
            self.meta = bool(options.get("meta"))

        def initialOffset(self) -> dict:
            return {"n": 0}

        def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
            end = max(start["n"], min(spool_end(self.folder), start["n"] + MAX_PER_BATCH))
            return iter(self.readBetweenOffsets(start, {"n": end})), {"n": end}

        def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
            rows = spool_rows(
                self.folder, start["n"], end["n"], self.index_ns, self.origin, self.meta
            )
            return iter(rows)

        def commit(self, end: dict) -> None:
            # The newest segment stays: it tells the writer (after a restart) the next seq.
            for first, count, path in _segments(self.folder)[:-1]:
                if first + count <= end["n"]:
                    os.remove(path)

    return SpoolStreamReader


def _spool_source_class() -> type:
    from pyspark.sql.datasource import DataSource

    class SpoolSource(DataSource):  # type: ignore[misc]
        """``spark.readStream.format("tremorc_spool").option("path", folder)``."""

        @classmethod
        def name(cls) -> str:
            return "tremorc_spool"

        def schema(self) -> str:
            return EVENTS_SCHEMA + (", meta string" if self.options.get("meta") else "")

        def simpleStreamReader(self, schema: Any) -> Any:
            return _stream_reader_class()(dict(self.options))

    return SpoolSource


# Server sources ---------------------------------------------------------------------------------

Emit = Callable[[list[str]], None]


class ServerSource:
    """A source that listens on the driver (subclasses: :meth:`serve`, :meth:`bound`).

    Batch: listens until ``--ticks`` events (default 10) were received, then stops listening.
    Stream: listens for as long as the job runs, spooling under the checkpoint."""

    scheme = ""
    has_meta = False  # emitted values are `<value>\t<meta>` (see spool_rows)
    decoded = True  # values are decoded events or CODEC_ERROR records (see Decoder)

    def __init__(self, spec: ConnectorSpec) -> None:
        self.alias = spec.alias
        self.host, self.port = parse_url(spec.config.get("url"), spec.alias, "url")
        self.buf_size = int(spec.config.get("buf_size", 8192))
        self.reuseport = bool((spec.config.get("socket_options") or {}).get("SO_REUSEPORT"))
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("preprocessors"))

    def decoder(self) -> Decoder:
        return Decoder(self.codec, self.framing, self.alias)

    @property
    def origin(self) -> str:
        from runtime_support.tremor.origin import encode_origin

        return encode_origin(self.scheme, self.host, self.port, [])

    @staticmethod
    def tagged(values: list[str], meta: str) -> list[str]:
        """Spool values carrying the ``meta`` column text ``meta`` (see :func:`spool_rows`)."""
        return [f"{value}\t{meta}" for value in values]

    def serve(self, emit: Emit, stop: threading.Event) -> None:
        """Listen (bound before returning from :meth:`bound`), calling ``emit`` with the decoded
        events of each received chunk, until ``stop`` is set."""
        raise NotImplementedError

    def read(self, spark: Any, ctx: RunContext) -> Any:
        """Batch: what arrives until ``--ticks`` events did (``err`` records, which are not
        events, ride along in arrival order)."""
        got: list[str] = []
        events = [0]
        done, lock = threading.Event(), threading.Lock()

        def emit(values: list[str]) -> None:  # called by every connection's thread
            with lock:
                for value in values:
                    if events[0] < ctx.ticks:
                        got.append(value)
                        events[0] += not value.startswith(CODEC_ERROR)
                if events[0] >= ctx.ticks:
                    done.set()

        if ctx.ticks > 0:
            thread = threading.Thread(target=self.serve, args=(emit, done), daemon=True)
            thread.start()
            done.wait()
            thread.join()
        return self.frame(spark, ctx, got)

    def frame(self, spark: Any, ctx: RunContext, got: list[str]) -> Any:
        """The batch DataFrame of the received spool values (with ``meta`` when it has one)."""
        if not self.has_meta:
            return rows_frame(spark, [(i, value, ctx.ingest(i)) for i, value in enumerate(got)],
                              self.origin)  # fmt: skip
        rows = []
        for i, item in enumerate(got):
            value, _, meta = item.partition("\t")
            rows.append((i, value, ctx.ingest(i), self.origin, meta))
        return spark.createDataFrame(rows, META_SCHEMA)

    def stream(self, spark: Any, args: Any, start_ns: int) -> Any:
        folder = os.path.abspath(os.path.join(args.checkpoint, "spool", _safe(self.alias)))
        if folder not in _LISTENING:  # one listener and spool writer per process (--flush
            spool = Spool(folder)  # starts the query twice)
            threading.Thread(
                target=self.serve, args=(spool.put, threading.Event()), daemon=True
            ).start()
            _LISTENING.add(folder)
        register(spark)
        return (
            spark.readStream.format("tremorc_spool")
            .option("path", folder)
            .option("ingest_ns", args.ingest_ns)
            .option("origin", self.origin)
            .option("meta", "1" if self.has_meta else "")
            .load()
        )


_LISTENING: set[str] = set()


def _safe(alias: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in alias)


def parse_url(url: Any, alias: str, key: str) -> tuple[str, int]:
    """``host:port`` or ``scheme://host:port`` → ``(host, port)``; ValueError naming ``key``."""
    text = url if isinstance(url, str) else ""
    rest = text.split("://", 1)[-1].split("/", 1)[0]
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(
            f"Invalid config for connector `{alias}`: `{key}` must be `host:port`, not {url!r}"
        )
    return host.strip("[]"), int(port)


# Client sinks -----------------------------------------------------------------------------------


class NetSinkBase:
    """A sink writing from the executors through :class:`NetWriter` (subclasses:
    :meth:`connect` returning a ``send(bytes)`` / ``close()`` object for one partition)."""

    stops = False
    reads_meta = False  # the frame's ``meta`` reaches ``send`` (see :meth:`frame_meta`)

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec
        self.alias = spec.alias
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("postprocessors"))

    def connect(self) -> Any:
        raise NotImplementedError

    def frame_meta(self, meta: dict[str, Any]) -> Any:
        """What ``send`` gets of an event's ``$`` (only with ``reads_meta``)."""
        return None

    def write_frame(self, frame: Any, progress: Any) -> None:
        from pyspark.sql import functions as F

        register(frame.sparkSession)
        if self.reads_meta and "meta" not in frame.columns:
            frame = frame.withColumn("meta", F.lit(None).cast("string"))
        columns = ("value", "meta") if self.reads_meta else ("value",)
        write_in_order(frame, "tremorc_net", self.spec, progress, columns)

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """A micro-batch: written once more when Spark replays it (at least once)."""
        self.write_frame(frame, NO_PROGRESS)


def write_in_order(
    frame: Any, fmt: str, spec: ConnectorSpec, progress: Any, columns: tuple[str, ...] = ("value",)
) -> None:
    """``frame``'s ``columns``, each partition in emission order ``(seq, sub)``, written by the
    Python data source ``fmt`` (registered), which rebuilds the sink from its ``spec`` option."""
    ordered = frame.sortWithinPartitions("seq", "sub").select(*columns)
    payload = json.dumps(
        {"kind": spec.kind, "alias": spec.alias, "params": spec.params, "sink": spec.sink}
    )
    ordered.write.format(fmt).option("spec", payload).mode("append").save()
    if progress.active:
        progress.add(frame.count())


class _NoProgress:
    active = False


NO_PROGRESS = _NoProgress()  # a micro-batch counts no progress line


def _writer_class() -> type:
    from pyspark.sql.datasource import DataSourceWriter, WriterCommitMessage

    class NetWriter(DataSourceWriter):  # type: ignore[misc]
        """One connection per partition; every event encoded and framed, sent in order."""

        def __init__(self, spec: str) -> None:
            self.spec = spec

        def write(self, rows: Iterator[Any]) -> Any:
            from runtime_support.tremor.jsonio import decode_json

            data = json.loads(self.spec)
            spec = ConnectorSpec(data["alias"], data["kind"], data["params"], sink=data["sink"])
            sink = build_sink(spec)
            peer = sink.connect()
            try:
                for row in rows:
                    encoded = sink.codec.encode(decode_json(row.value))
                    if encoded is not None:
                        framed = sink.framing.frame(encoded)
                        if framed and sink.reads_meta:
                            peer.send(framed, sink.frame_meta(_event_meta(row.meta)))
                        elif framed:
                            peer.send(framed)
                rest = sink.framing.finish()  # what collect/chunk/... still hold
                if rest:
                    peer.send(rest)
            finally:
                peer.close()
            return WriterCommitMessage()

    return NetWriter


def _event_meta(text: str | None) -> dict[str, Any]:
    """An event's ``$`` from the frame's ``meta`` column (``{"$": record, "batch": …}``)."""
    from runtime_support.tremor.event_meta import decode_meta

    meta = decode_meta(text).get("$") if text else None
    return meta if isinstance(meta, dict) else {}


def _net_sink_class() -> type:
    from pyspark.sql.datasource import DataSource

    class NetSinkSource(DataSource):  # type: ignore[misc]
        """``df.write.format("tremorc_net").option("spec", json)``."""

        @classmethod
        def name(cls) -> str:
            return "tremorc_net"

        def schema(self) -> str:
            return "value string"

        def writer(self, schema: Any, overwrite: bool) -> Any:
            return _writer_class()(self.options["spec"])

    return NetSinkSource


_REGISTERED: set[int] = set()


def register(spark: Any) -> None:
    """Register the spool source and the sink writer with ``spark`` (once per session)."""
    if id(spark) in _REGISTERED:
        return
    spark.dataSource.register(_spool_source_class())
    spark.dataSource.register(_net_sink_class())
    _REGISTERED.add(id(spark))
