"""The ``file`` connector: ``config.mode`` ``read`` makes it a source, ``write`` / ``append`` /
``truncate`` / ``overwrite`` a sink; ``config.path`` is relative to the working directory.

Source: a Spark text read of ``path``. With the ``separate`` preprocessor each separator-ended
line is one chunk (``lineSep``), otherwise the whole file is one chunk; chunks then go through the
codec (``json``: blank chunks yield no event; ``string``/``binary``: the text as a string).
Sink: values are collected in emission order, encoded, framed by the post-processors and written
(``append`` keeps existing content, every other mode truncates).
"""

from __future__ import annotations

import os
from typing import Any

from ..codecs import codec_from, framing_from
from ..origin import encode_origin, hostname
from .base import ConnectorSpec, InputPathError, RunContext, with_origin

WRITE_MODES = ("write", "append", "truncate", "overwrite")
_JSON = "to_json(named_struct('v', value))"
_QUOTE = f"substring({_JSON}, 6, length({_JSON}) - 6)"  # {"v":"…"} → "…"


def _path(spec: ConnectorSpec) -> str:
    path = spec.config.get("path")
    if not isinstance(path, str) or not path:
        raise ValueError(f"Invalid config for connector `{spec.alias}`: `path` must be a string")
    return path


def is_source(spec: ConnectorSpec) -> bool:
    """True when the file connector reads (``mode`` = ``read``)."""
    return spec.config.get("mode") == "read"


class FileSource:
    """Reads ``path`` with Spark."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("preprocessors"))

    def read(self, spark: Any, ctx: RunContext) -> Any:
        from pyspark.sql import functions as F

        reader = spark.read
        if self.framing.separator is None:
            reader = reader.option("wholetext", "true")
        elif self.framing.separator != "\n":
            reader = reader.option("lineSep", self.framing.separator)
        try:  # absolute: a Spark Connect server's folder is not this one; schema: it is lazy
            df = reader.text(self.path if "://" in self.path else os.path.abspath(self.path))
            df.schema  # noqa: B018 - analysing the plan now is the point
        except Exception as err:  # noqa: BLE001 - Spark's AnalysisException, by its error class
            if "PATH_NOT_FOUND" not in str(err):
                raise
            raise InputPathError(f"can not read {self.path}: no such file or directory") from None
        if self.framing.drop_empty:
            df = df.filter(F.col("value") != "")
        if self.codec.name == "json":
            df = df.filter(F.trim(F.col("value")) != "")
        elif self.codec.name == "null":
            df = df.filter(F.lit(False))
        else:
            df = df.select(F.expr(_QUOTE).alias("value"))
        df = df.withColumn("seq", F.monotonically_increasing_id())
        base = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        df = df.select("seq", "value", (F.col("seq") + F.lit(base)).alias("ingest_ns"))
        # Tremor's file source: tremor-file://<hostname>/<path as configured> (one segment).
        return with_origin(df, encode_origin("tremor-file", hostname(), None, [self.path]))


class FileSink:
    """Writes encoded, framed events to ``path``."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        mode = spec.config.get("mode")
        if mode not in WRITE_MODES:
            raise ValueError(
                f"Invalid config for connector `{spec.alias}`: `mode` must be one of read, "
                + ", ".join(WRITE_MODES)
            )
        self.append = mode == "append"
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("postprocessors"))
        self.handle: Any = None

    def open(self, ctx: RunContext) -> None:
        self.handle = open(self.path, "ab" if self.append else "wb")  # noqa: SIM115

    def write(self, port: str, value: Any) -> None:
        data = self.codec.encode(value)
        if data is not None:
            self.handle.write(self.framing.frame(data))

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None
