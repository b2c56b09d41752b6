"""A ``file`` connector whose processors Spark's text reader and writer can not run (anything
but ``separate``/``remove-empty``: ``decompress``, ``base64``, length prefixes, ``compress``, …).

Source: Spark's ``binaryFile`` reader gives each file whole to one Python task, which runs the
preprocessor chain over it as one stream (one read, then the end of the stream) and the codec
over each chunk; no event passes through the driver. Events are numbered in path order, then
chunk order. A chunk a processor fails on, or the codec rejects, becomes one ``err`` record
``{"error": reason, "source": alias}`` (its ``origin`` is :data:`SOURCE_ERROR`, see
:mod:`runtime_support.spark.input_lines`), as Tremor sends it to the connector's ``err`` port.

Sink: each partition of the output (in emission order) is one output stream: its events are
encoded, run through the postprocessor chain, which is then finished, and the bytes are written
by the executor as one part file through ``pyarrow.fs`` (local paths, or any file system
pyarrow reaches), named by the partition, so a retried task replaces its own file.
"""

from __future__ import annotations

import os
from typing import Any

from runtime_support.io.codecs import Codec, Framing
from runtime_support.spark.input_lines import SOURCE_ERROR, BadLine, decode_line
from runtime_support.tremor.jsonio import decode_json, encode_json

__all__ = ["CHUNK_SCHEMA", "chunk_rows", "read_chain", "stream_chain", "write_parts"]

CHUNK_SCHEMA = "file string, row long, value binary, ingest long, origin string"


def _chunk_value(codec: Codec, chunk: bytes) -> bytes | None:
    """The event of one chunk as JSON text (None: the codec makes no event of it); raises
    BadLine (json codec: Tremor's invalid-JSON/UTF-8 record) or ValueError (other codecs)."""
    if codec.name == "json":
        if not chunk.strip():
            return None
        return encode_json(decode_line(chunk)).encode()
    keep, value = codec.decode(chunk.decode("utf-8", "surrogateescape"))
    return encode_json(value).encode() if keep else None


def _err_row(row: int, record: str) -> tuple[int, bytes, None, str]:
    """The row of an ``err`` record: marked by its origin (the one place that says how)."""
    return row, record.encode(), None, SOURCE_ERROR


def _file_rows(codec: Codec, framing: Framing, alias: str, path: str, content: bytes) -> Any:
    """``(row, value, ingest, origin)`` of one file: its events and err records, in order."""
    from runtime_support.io.processors import Failed, names_configs

    chain = framing.pre_chain()
    timed = any(name == "ingest-ns" for name, _ in names_configs(framing.processors))
    items = chain.process(content, 0) + chain.finish(0)
    for row, item in enumerate(items):
        error = item.reason if isinstance(item, Failed) else None
        value = None
        if error is None:
            try:
                value = _chunk_value(codec, item[0])
            except BadLine as bad:
                yield _err_row(row, bad.record)
                continue
            except ValueError as err:
                error = f"{codec.name} codec: {err}"
        if error is not None:
            yield _err_row(row, encode_json({"error": error, "source": alias}))
        elif value is not None:
            yield row, value, item[1] if timed else None, None


def chunk_rows(codec: Codec, framing: Framing, alias: str, extra: tuple[str, ...] = ()) -> Any:
    """``mapInArrow`` over ``path, content`` (+ ``extra`` columns passed on): each file's rows
    (CHUNK_SCHEMA + ``extra``)."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        names = ("file", "row", "value", "ingest", "origin", *extra)
        types = (pa.string(), pa.int64(), pa.binary(), pa.int64(), pa.string())
        for batch in batches:
            cols = batch.to_pydict()
            out: dict[str, list[Any]] = {name: [] for name in names}
            for i, (path, content) in enumerate(zip(cols["path"], cols["content"], strict=True)):
                for row in _file_rows(codec, framing, alias, path, content):
                    for name, item in zip(names, (path, *row), strict=False):
                        out[name].append(item)
                    for name in extra:
                        out[name].append(cols[name][i])
            schema = [*zip(names[:5], types, strict=True)]
            schema += [(name, batch.schema.field(name).type) for name in extra]
            yield pa.RecordBatch.from_pydict(out, schema=pa.schema(schema))

    return run


def read_chain(spark: Any, source: Any, ctx: Any, path: str) -> Any:
    """The source's events ``seq, value, ingest_ns, origin`` (origin: the connector's, or
    SOURCE_ERROR for err records); ``seq`` counts in path order, then chunk order."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    files = spark.read.format("binaryFile").load(path).select("path", "content")
    schema = CHUNK_SCHEMA
    rows = files.mapInArrow(chunk_rows(source.codec, source.framing, source.alias), schema)
    rows = rows.persist(StorageLevel.MEMORY_AND_DISK)  # counted, then numbered: one chain run
    counts = rows.groupBy("file").agg(F.count("*").alias("n"))
    before = Window.partitionBy(F.lit(0)).orderBy("file").rowsBetween(Window.unboundedPreceding, -1)
    offsets = counts.select("file", F.coalesce(F.sum("n").over(before), F.lit(0)).alias("base"))
    numbered = rows.join(F.broadcast(offsets), "file").withColumn(
        "seq", F.col("base") + F.row_number().over(Window.partitionBy("file").orderBy("row")) - 1
    )
    start = 0 if ctx.ingest_ns == "index" else ctx.start_ns
    return numbered.select(
        "seq",
        "value",
        F.coalesce("ingest", F.col("seq") + F.lit(start)).alias("ingest_ns"),
        "origin",
    )


def stream_chain(spark: Any, source: Any, reader: Any, path: str) -> Any:
    """The file stream of a chain source as ``mtime, file, block, row, value, origin, ingest``
    (what :class:`~runtime_support.spark.state_store.Numberer` numbers)."""
    from pyspark.sql import functions as F

    binary = "path string, modificationTime timestamp, length long, content binary"
    files = (
        reader.format("binaryFile")
        .schema(binary)
        .load(path)
        .select("path", "content", F.col("modificationTime").cast("long").alias("mtime"))
    )
    rows = files.mapInArrow(
        chunk_rows(source.codec, source.framing, source.alias, ("mtime",)),
        CHUNK_SCHEMA + ", mtime long",
    )
    return rows.select(
        "mtime", "file", F.lit(0).cast("long").alias("block"), "row", "value", "origin"
    )


def write_parts(frame: Any, codec: Codec, framing: Framing, folder: str, prefix: str) -> int:
    """Write ``frame`` (``value`` JSON text, each partition in emission order) as part files
    ``folder/<prefix><partition>``, one postprocessor stream each; the number of events."""
    target = folder

    def run(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.fs as pafs
        from pyspark import TaskContext

        chain = framing.post_chain()
        pieces: list[bytes] = []
        count = 0
        for batch in batches:
            for text in batch.column(0).to_pylist():
                data = codec.encode(decode_json(text))
                if data is None:
                    continue
                raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
                pieces.extend(chain.process(raw))
                count += 1
        pieces.extend(chain.finish())
        if count or any(pieces):
            fs, base = pafs.FileSystem.from_uri(_uri(target))
            name = f"{base}/{prefix}{TaskContext.get().partitionId():05d}"
            with fs.open_output_stream(name) as out:
                for piece in pieces:
                    out.write(piece)
        yield pa.RecordBatch.from_pydict({"n": [count]}, schema=pa.schema([("n", pa.int64())]))

    rows = frame.select("value").mapInArrow(run, "n long").collect()
    return sum(row.n for row in rows)


def _uri(path: str) -> str:
    return path if "://" in path else "file://" + os.path.abspath(path)
