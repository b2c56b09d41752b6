"""The ``file`` connector: ``config.mode`` ``read`` makes it a source, ``write`` / ``append`` /
``truncate`` / ``overwrite`` a sink; ``config.path`` is relative to the working directory.

Source: a Spark text read of ``path``. With the ``separate`` preprocessor each separator-ended
line is one chunk (``lineSep``), otherwise the whole file is one chunk (its exact bytes). ``json``
chunks reach the pipeline as text (blank ones yield no event); every other codec decodes each
chunk's bytes on the executors (:func:`runtime_support.io.codecs.decode_chunks`), a chunk it
rejects being one ``err`` event. JSON
lines (``json`` codec, newline separator) are read as the job's ``-i`` reads them: ``path`` may
also be a folder or a glob (an extension: Tremor reads one file), ``.gz``/``.bz2`` are
decompressed, and ``seq`` is the exact position (path order, then line).

Sink, by default (:class:`FileSink`): Spark's text writer makes ``path`` a folder of part files;
each event is encoded by the codec on the executors and followed by the ``separate``
postprocessor's separator (the writer's ``lineSep``), each part file in emission order
(``seq``, ``sub``); no event passes through the driver. ``write``/``truncate`` replace the folder
(only one that holds nothing but Spark output), ``append`` adds part files to it. With the
tremorc-only config key ``single_file: true`` (:class:`SingleFileSink`) every event passes
through the driver, in the whole emission order, into one file at ``path`` (``append`` keeps
its content, ``overwrite`` writes over it without truncating, as Tremor's modes do).
"""

from __future__ import annotations

import os
from typing import Any

from runtime_support.io.codecs import Codec, codec_from, decode_chunks, framing_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext, with_origin
from runtime_support.spark.job_io import InputPathError
from runtime_support.spark.session import under_spark_submit
from runtime_support.tremor.jsonio import decode_json
from runtime_support.tremor.origin import encode_origin, hostname

WRITE_MODES = ("write", "append", "truncate", "overwrite")
#: What Spark's writer leaves in an output folder; a folder holding anything else is not replaced.
_SPARK_OUTPUT = ("part-", ".part-", "_SUCCESS", "._SUCCESS", "_temporary", "_committed", "_started")


def _path(spec: ConnectorSpec) -> str:
    path = spec.config.get("path")
    if not isinstance(path, str) or not path:
        raise ValueError(f"Invalid config for connector `{spec.alias}`: `path` must be a string")
    return path


def spark_path(path: str) -> str:
    """``path`` as Spark should see it: a relative local path is made absolute against this
    process's working directory (the JVM's may differ); a URL, or any path under spark-submit
    (where it may name the cluster's file system), is left as it is."""
    if "://" in path or under_spark_submit():
        return path
    return os.path.abspath(path)


def is_source(spec: ConnectorSpec) -> bool:
    """True when the file connector reads (``mode`` = ``read``)."""
    return spec.config.get("mode") == "read"


def is_single_file(spec: ConnectorSpec) -> bool:
    """True when a file sink asks for one ordered file (``single_file: true``)."""
    return spec.config.get("single_file") is True


class FileSource:
    """Reads ``path`` with Spark."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        self.alias = spec.alias
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("preprocessors"))

    @property
    def lines(self) -> bool:
        """JSON lines (``json`` codec, ``separate`` at newlines): ``path`` may then be a file, a
        folder or a glob, read as the job's ``-i`` reads (:func:`runtime_support.spark.job_io.
        read_files`: compressed files too, exact order by path then line)."""
        return self.codec.name == "json" and self.framing.simple and self.framing.separator == "\n"

    def read(self, spark: Any, ctx: RunContext) -> Any:
        from pyspark.sql import functions as F

        origin = encode_origin("tremor-file", hostname(), None, [self.path])
        if not self.framing.simple:  # processors Spark's text reader can not run
            from runtime_support.io.connectors.file_chain import read_chain

            events = read_chain(
                spark, self, ctx, _readable(spark, spark_path(self.path), self.path)
            )
            mark = F.coalesce(F.col("origin"), F.lit(origin))
            return events.withColumn("origin", mark)
        if self.lines:
            from runtime_support.spark.job_io import read_files

            # Blank lines yield no event either way (the json codec's rule).
            return with_origin(read_files(spark, [spark_path(self.path)], ctx.ingest_ns), origin)
        reader = spark.read
        if self.framing.separator is None:
            reader = reader.option("wholetext", "true")
        elif self.framing.separator != "\n":
            reader = reader.option("lineSep", self.framing.separator)
        try:  # schema: the read is lazy, analysing the plan now is the point
            df = reader.text(spark_path(self.path))
            df.schema  # noqa: B018 - see the comment above
        except Exception as err:  # noqa: BLE001 - Spark's AnalysisException, by its error class
            if "PATH_NOT_FOUND" not in str(err):
                raise
            raise InputPathError(f"can not read {self.path}: no such file or directory") from None
        if self.framing.drop_empty:
            df = df.filter(F.col("value") != "")
        if self.codec.name == "json":
            df = df.filter(F.trim(F.col("value")) != "")
        df = df.withColumn("seq", F.monotonically_increasing_id())
        base = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        df = df.select("seq", "value", (F.col("seq") + F.lit(base)).alias("ingest_ns"))
        if self.codec.name != "json":  # the codec decodes each chunk's bytes on the executors
            df = decode_chunks(df, self.codec)
        # Tremor's file source: tremor-file://<hostname>/<path as configured> (one segment).
        return with_origin(df, origin)


def _mode(spec: ConnectorSpec) -> str:
    mode = spec.config.get("mode")
    if mode not in WRITE_MODES:
        raise ValueError(
            f"Invalid config for connector `{spec.alias}`: `mode` must be one of read, "
            + ", ".join(WRITE_MODES)
        )
    return str(mode)


def source_for(spec: ConnectorSpec) -> FileSource | None:
    """The source of a reading file connector (None when it writes)."""
    return FileSource(spec) if is_source(spec) else None


def sink_for(spec: ConnectorSpec) -> Any:
    """The sink of a writing file connector: part files by Spark, or one file on the driver
    (None when it reads)."""
    if is_source(spec):
        return None
    return SingleFileSink(spec) if is_single_file(spec) else FileSink(spec)


class FileSink:
    """Writes the events with Spark's text writer: ``path`` is a folder of part files, each in
    emission order (see the module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        self.mode = _mode(spec)
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("postprocessors"))
        self.separator = self.framing.separator
        simple = self.framing.simple
        if simple and self.separator is None or self.mode == "overwrite":  # the compiler rejects
            raise ValueError(
                f"Invalid config for connector `{spec.alias}`: part files need the `separate` "
                "postprocessor and mode write, truncate or append (or `single_file: true`)"
            )

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Encode on the executors, sort each partition by ``(seq, sub)``, write the folder."""
        target = spark_path(self.path)
        append = self.mode == "append"
        _check_target(target, self.path, append)
        ordered = frame.sortWithinPartitions("seq", "sub").select("value")
        if not self.framing.simple:  # postprocessors Spark's text writer can not run
            written = write_chain_parts(ordered, self, target, append)
            if progress.active:
                progress.add(written)
            return
        encoded = encoded_text(ordered, self.codec)
        writer = encoded.write.mode("append" if append else "overwrite")
        writer.option("lineSep", self.separator).text(target)
        if progress.active:
            progress.add(frame.count())


def write_chain_parts(ordered: Any, sink: FileSink, target: str, append: bool) -> int:
    """The events of ``ordered`` as part files of postprocessed bytes (see
    :mod:`runtime_support.io.connectors.file_chain`): ``part-<run>-<n>`` (``run`` new for each
    write, so ``append`` adds files); ``write``/``truncate`` first clear the folder."""
    import shutil
    import uuid

    from runtime_support.io.connectors.file_chain import write_parts

    if not append and os.path.isdir(target):
        shutil.rmtree(target)
    os.makedirs(target, exist_ok=True)
    return write_parts(ordered, sink.codec, sink.framing, target, f"part-{uuid.uuid4().hex[:8]}-")


def _readable(spark: Any, path: str, shown: str) -> str:
    """``path`` (InputPathError, one line, when Spark finds nothing there)."""
    try:
        spark.read.format("binaryFile").load(path).schema  # noqa: B018 - analysis is the check
    except Exception as err:  # noqa: BLE001 - Spark's AnalysisException, by its error class
        if "PATH_NOT_FOUND" not in str(err):
            raise
        raise InputPathError(f"can not read {shown}: no such file or directory") from None
    return path


def _check_target(target: str, shown: str, append: bool) -> None:
    """Refuse (``ValueError``, one line) to replace a local folder that holds anything but
    Spark output, or to add part files to a regular file."""
    if "://" in target or not os.path.exists(target):
        return
    if not os.path.isdir(target):
        if append:
            raise ValueError(f"can not append part files to {shown}: it is a file")
        return
    if not append:
        foreign = [n for n in os.listdir(target) if not n.startswith(_SPARK_OUTPUT)]
        if foreign:
            raise ValueError(
                f"will not replace {shown}: the folder holds {foreign[0]!r}, not only part files"
            )


def encoder(codec: Codec) -> Any:
    """The ``mapInArrow`` function turning JSON-text ``value`` s into the codec's bytes (rows the
    codec writes nothing for are dropped); order is kept."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        for batch in batches:
            out = []
            for text in batch.column(0).to_pylist():
                data = codec.encode(decode_json(text))
                if data is not None:
                    out.append(
                        data.encode("utf-8", "surrogateescape") if type(data) is str else data
                    )
            yield pa.RecordBatch.from_arrays([pa.array(out, pa.binary())], ["value"])

    return run


def encoded_text(ordered: Any, codec: Codec) -> Any:
    """``ordered`` (JSON-text ``value``) encoded by ``codec``: a string column holding the exact
    bytes (Spark's binary-to-string cast copies them; its text writer writes them as they are)."""
    from pyspark.sql import functions as F

    encoded = ordered.mapInArrow(encoder(codec), "value binary")
    return encoded.select(F.col("value").cast("string").alias("value"))


class SingleFileSink:
    """Writes encoded, framed events to the one file ``path``, on the driver."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        self.mode = _mode(spec)
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("postprocessors"))
        self.handle: Any = None

    def open(self, ctx: RunContext) -> None:
        flags = os.O_WRONLY | os.O_CREAT
        if self.mode == "append":
            flags |= os.O_APPEND
        elif self.mode != "overwrite":  # write/truncate; overwrite keeps what it does not cover
            flags |= os.O_TRUNC
        self.handle = os.fdopen(os.open(self.path, flags, 0o666), "wb")

    def write(self, port: str, value: Any) -> None:
        data = self.codec.encode(value)
        if data is not None:
            self.handle.write(self.framing.frame(data))

    def close(self) -> None:
        if self.handle is not None:
            self.handle.write(self.framing.finish())  # collect, chunk, streaming-compress
            self.handle.close()
            self.handle = None
