"""The ``file`` connector (and ``s3_reader``, on it) as a stream source: Spark's file stream
source over ``path`` (a folder or glob streams its files, new files being new events, oldest
first, then by path; a single file is read once), the connector's codec and preprocessors
applied as in batch, each line (chunk) numbered in arrival order by a
:class:`~runtime_support.spark.state_store.Numberer`, whose counter lives in the checkpoint.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from runtime_support.io.codecs import decode_chunks
from runtime_support.io.connectors.file import FileSource, spark_path
from runtime_support.spark.state_store import Numberer
from runtime_support.tremor.origin import encode_origin, hostname

__all__ = ["file_events", "file_lines"]


def file_lines(spark: Any, source: FileSource, files_per_batch: int | None) -> Any:
    """The file stream of ``source`` as ``mtime, file, block, row, value`` (chunks as the
    connector frames them; blank ones dropped for the json codec, as batch does)."""
    from pyspark.sql import functions as F

    reader = spark.readStream
    if files_per_batch:
        reader = reader.option("maxFilesPerTrigger", files_per_batch)
    if not source.framing.simple:  # processors run per file (connectors/file_chain.py)
        from runtime_support.io.connectors.file_chain import stream_chain

        reader, path = _single_file(reader, spark_path(source.path))
        return stream_chain(spark, source, reader, path)
    if source.framing.separator is None:
        reader = reader.option("wholetext", "true")
    elif source.framing.separator != "\n":
        reader = reader.option("lineSep", source.framing.separator)
    reader, path = _single_file(reader, spark_path(source.path))
    lines = reader.text(path).select(
        F.col("_metadata.file_modification_time").cast("long").alias("mtime"),
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        "value",
    )
    drop_blank = source.codec.name == "json"
    lines = lines.mapInArrow(
        numbered_chunks(drop_blank, source.framing.drop_empty), TEXT_LINES_SCHEMA
    )
    # the Numberer's lines are bytes (LINES_SCHEMA: a plain input line may not be UTF-8)
    return lines.withColumn("value", F.col("value").cast("binary"))


def _single_file(reader: Any, path: str) -> tuple[Any, str]:
    """The file stream source lists folders: a single file is its folder, by its name."""
    if os.path.isfile(path):
        reader = reader.option("pathGlobFilter", _glob_escape(os.path.basename(path)))
        path = os.path.dirname(path)
    return reader, path


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]{}" else c for c in name)


def numbered_chunks(drop_blank: bool, drop_empty: bool) -> Any:
    """``mapInArrow``: each chunk's ``row`` within its file split, then the chunks the codec
    makes no event of dropped (blank for json; empty with ``separate``'s drop_empty)."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        counts: dict[tuple[str, int], int] = {}
        names = ("mtime", "file", "block", "row", "value")
        for batch in batches:
            cols = batch.to_pydict()
            out: dict[str, list[Any]] = {name: [] for name in names}
            for mtime, file, block, value in zip(
                cols["mtime"], cols["file"], cols["block"], cols["value"], strict=True
            ):
                row = counts.get((file, block), 0)
                counts[(file, block)] = row + 1
                if value is None or not value.strip() and (drop_blank or not value and drop_empty):
                    continue
                for name, item in zip(names, (mtime, file, block, row, value), strict=True):
                    out[name].append(item)
            yield pa.RecordBatch.from_pydict(out, schema=_lines_arrow())

    return run


def _lines_arrow() -> Any:
    import pyarrow as pa

    longs = ("mtime", "block", "row")
    return pa.schema([(n, pa.int64() if n in longs else pa.string()) for n in LINES_SCHEMA_NAMES])


LINES_SCHEMA_NAMES = ("mtime", "file", "block", "row", "value")
TEXT_LINES_SCHEMA = "mtime long, file string, block long, row long, value string"


def file_events(spark: Any, source: FileSource, args: argparse.Namespace) -> Any:
    """The file source's events ``seq, value, ingest_ns, origin`` (``seq`` from 0)."""
    from pyspark.sql import functions as F

    lines = file_lines(spark, source, args.files_per_batch)
    origin = encode_origin("tremor-file", hostname(), None, [source.path])
    decoded = source.codec.name == "json" or not source.framing.simple  # else: decoded below
    chunks = "string" if decoded else "binary"
    numbered = (
        lines.withColumn("all", F.lit(0))
        .groupBy("all")
        .transformWithStateInPandas(
            Numberer(args.ingest_ns),
            f"seq long, value {chunks}, ingest_ns long, origin string",
            "Append",
            "None",
        )
    )
    if source.codec.name != "json" and source.framing.simple:
        numbered = decode_chunks(numbered, source.codec)
    return numbered.withColumn("origin", F.coalesce(F.col("origin"), F.lit(origin)))
