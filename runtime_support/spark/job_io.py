"""The job's ``-i PATH...`` read and ``-o DIR`` written by Spark: files, directories and globs of
JSON lines (``.gz`` and ``.bz2`` decompressed by Spark's text reader) in, one folder of JSON-lines
part files per output port out; no event passes through the driver.

Output: ``DIR/<port>/part-*`` for every port of the job (``out``, ``err``, ``error_log``, custom
ports; an existing port folder is replaced); within each part file the events are in Tremor's
emission order (``seq``, ``sub``). Across part files (and across ports) the order is not kept:
Spark names part files by partition, and a pipeline that runs partitioned emits from each
partition independently; stdout (no ``-o``) is the one whole-output emission order.

Order (exact): events are numbered ``seq`` 0, 1, 2… in the order of the ``-i`` arguments, then,
within one argument, of the files' paths (a directory or a glob expands to its files sorted by
full path; Spark skips names starting with ``_`` or ``.``), then of the lines in each file. Blank
lines are skipped. How: a file scan reads each file split (``_metadata.file_block_start``) whole
and in order within one partition, so ``monotonically_increasing_id`` is increasing along a split;
one row per split (its first id and its count) gives each split's offset in the global order, and
``seq`` = id + (offset − first id). This relies only on the scan being deterministic (the same
files, unchanged during the run); no RDD API, no window over the events.
"""

from __future__ import annotations

import glob
import os
import time
from typing import Any

from runtime_support.spark.port_frames import keep_shared

__all__ = [
    "InputPathError",
    "absolute",
    "check_paths",
    "check_readable",
    "read_files",
    "write_ports",
]


class InputPathError(Exception):
    """An input file that cannot be read; the message is one line naming the path."""


def check_readable(path: str) -> None:
    """Raise :class:`InputPathError` unless ``path`` is a readable regular file (a URL such as
    ``hdfs://…`` is left to Spark)."""
    if "://" in path:
        return
    shown = path if path.isprintable() else repr(path)
    if os.path.isdir(path):
        raise InputPathError(f"can not read {shown}: it is a directory")
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise InputPathError(f"can not read {shown}: {reason}") from None


_GLOB = frozenset("*?[{")


def absolute(path: str) -> str:
    """``path`` made absolute against this process's folder (a URL such as ``hdfs://…`` as it
    is): what a Spark Connect server, whose folder is its own, must be given."""
    return path if "://" in path else os.path.abspath(path)


def check_paths(paths: list[str], local: bool = True) -> None:
    """Raise :class:`InputPathError` for the first local path that cannot be read (a glob that
    matches nothing, a missing or unreadable file); URLs such as ``hdfs://…`` are left to Spark,
    and so is every path when not ``local`` (a Spark Connect server's: :func:`read_files` says
    which one the server can not find)."""
    for path in paths:
        if "://" in path or not local:
            continue
        shown = path if path.isprintable() else repr(path)
        if _GLOB & set(path):
            if not glob.glob(path):
                raise InputPathError(f"can not read {shown}: no file matches")
            continue
        if os.path.isdir(path):
            _check_folder(path, shown)
            continue
        try:
            with open(path, "rb"):
                pass
        except OSError as err:
            raise InputPathError(f"can not read {shown}: {err.strerror or 'error'}") from None


def _check_folder(path: str, shown: str) -> None:
    """A folder must hold a file Spark reads (a name not starting with ``_`` or ``.``)."""
    try:
        names = os.listdir(path)
    except OSError as err:
        raise InputPathError(f"can not read {shown}: {err.strerror or 'error'}") from None
    if not any(name[0] not in "_." and os.path.isfile(os.path.join(path, name)) for name in names):
        raise InputPathError(f"can not read {shown}: a folder with no file in it")


def read_files(spark: Any, paths: list[str], ingest_ns: str):
    """The events of ``paths`` as ``seq, value, ingest_ns`` (see the module doc for the order);
    ``ingest_ns`` is ``seq`` (``index``) or the read's wall clock + ``seq``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    split = ["arg", "file", "block"]
    lines = _lines(spark, paths).withColumn("row", F.monotonically_increasing_id())
    splits = lines.groupBy(*split).agg(F.min("row").alias("first"), F.count("*").alias("n"))
    # One row per split, all in one window partition on purpose (a constant key: Spark Connect's
    # client warns on stderr of a window with none).
    before = Window.partitionBy(F.lit(0)).orderBy(*split).rowsBetween(Window.unboundedPreceding, -1)
    offsets = splits.select(
        *split, (F.coalesce(F.sum("n").over(before), F.lit(0)) - F.col("first")).alias("delta")
    )
    seq = F.col("row") + F.col("delta")
    start = 0 if ingest_ns == "index" else time.time_ns()
    return lines.join(F.broadcast(offsets), split).select(
        seq.alias("seq"), "value", (seq + F.lit(start)).alias("ingest_ns")
    )


def _lines(spark: Any, paths: list[str]):
    """Non-blank lines of every path with their argument index, file and split start."""
    from pyspark.sql import functions as F

    frames = [
        _read_text(spark, path).select(
            F.lit(index).alias("arg"),
            F.col("_metadata.file_path").alias("file"),
            F.col("_metadata.file_block_start").alias("block"),
            "value",
        )
        for index, path in enumerate(paths)
    ]
    lines = frames[0]
    for frame in frames[1:]:
        lines = lines.unionByName(frame)
    return lines.filter(~F.col("value").rlike(r"^\s*$"))


def _read_text(spark: Any, path: str):
    """``spark.read.text(path)``, analysed now (a Spark Connect client is lazy) so a path Spark
    can not find is an :class:`InputPathError`."""
    from pyspark.errors import AnalysisException

    try:
        frame = spark.read.text(path)
        frame.schema  # noqa: B018 - analysing the plan is the point
    except AnalysisException as err:
        if err.getCondition() != "PATH_NOT_FOUND":
            raise
        shown = path if path.isprintable() else repr(path)
        raise InputPathError(f"can not read {shown}: Spark found no such path") from None
    return frame


def write_ports(outputs: dict[str, Any], folder: str, progress: Any) -> None:
    """Each port's events as JSON-lines part files in ``folder/<port>/``, each part file in
    emission order; on a terminal ``progress`` counts them (one count over the kept result).
    One write per port: the stages several ports share are kept, so each runs once."""
    keep_shared(outputs)
    for port, frame in sorted(outputs.items()):
        ordered = frame.sortWithinPartitions("seq", "sub").select("value")
        ordered.write.mode("overwrite").text(os.path.join(folder, port))
        if progress.active:
            progress.add(frame.count())
