"""A batch job's outputs: one DataFrame per port, and the stages each port reads.

A job's ``batch_plan`` persists no stage for the sake of its ports. A caller that writes one port
reads its stages once; a caller that writes several either reads them in one pass (:meth:`together`:
one DataFrame with a ``port`` column, each stage read once, as a streaming job does) or keeps the
output rows of the ports that share a stage (:meth:`keep_shared`) before its actions. Invariant:
the frame of a port is exactly ``port_output`` of its stages (their union), however it is read;
it is built when first read (each DataFrame is a plan the driver analyses: a caller that writes
only ``out`` pays nothing for ``err``).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, MutableMapping
from typing import Any

__all__ = [
    "PortFrames",
    "empty_frame",
    "keep_shared",
    "meta_column",
    "port_frames",
    "port_output",
    "stage_rows",
]

EMPTY_PORT = "value string, seq long, sub array<long>, meta string"
#: The frames :func:`empty_frame` built, held weakly (a DataFrame is immutable: one built empty
#: holds no row whatever runs it).
_EMPTY_FRAMES: weakref.WeakSet = weakref.WeakSet()


class PortFrames(MutableMapping):
    """``port -> DataFrame value, seq, sub, meta``, each built when first read; ``sources``:
    ``port -> [stage frames]`` (the ports, in order)."""

    def __init__(self, spark: Any, sources: dict[str, list[Any]]) -> None:
        self.sources = sources
        self._spark = spark
        self._frames: dict[str, Any] = {}

    def __getitem__(self, port: str) -> Any:
        frame = self._frames.get(port)
        if frame is None:
            stages = self.sources[port]  # KeyError: no such port
            if stages:
                frame = _union([port_output(stage, port) for stage in stages])
            else:
                frame = empty_frame(self._spark, EMPTY_PORT)
            self._frames[port] = frame
        return frame

    def __setitem__(self, port: str, frame: Any) -> None:
        if port not in self.sources:
            raise KeyError(f"no output port {port!r}")
        self._frames[port] = frame

    def __delitem__(self, port: str) -> None:
        raise TypeError("a job's output ports are fixed")

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def __repr__(self) -> str:
        return f"PortFrames({list(self.sources)})"

    def together(self, names: list[str] | None = None) -> Any:
        """The ports ``names`` (default: all) as one DataFrame ``value, seq, sub, port, meta``,
        each stage read once (None when no port has a stage)."""
        wanted = sorted(self) if names is None else sorted(names)
        stages = _distinct(frame for name in wanted for frame in self.sources.get(name, ()))
        return stage_rows(stages, wanted)

    def keep_shared(self, names: list[str] | None = None) -> None:
        """Before actions on the ports ``names`` (default: all) one after another: the output
        rows of each stage that two or more of them read are computed once and kept, and those
        ports read them (each port keeps its stages' partitions, so its part files too).

        Kept as row blocks on disk (``localCheckpoint``, ``DISK_ONLY``): never in the columnar
        cache, whose 10,000-row batches of large events outgrow a small heap, nor in storage
        memory, which the sorts of keyed stages then lack (tests/spark/test_memory.py: a 512 MiB
        heap over 2.6 GiB of 8 KB events). Only ``value, seq, sub, port, meta`` of the output rows
        are kept, never the stages' other rows."""
        from pyspark import StorageLevel
        from pyspark.sql import functions as F

        wanted = sorted(self) if names is None else sorted(names)
        readers: list[tuple[Any, list[str]]] = []
        for name in wanted:
            for frame in _distinct(self.sources.get(name, ())):
                for seen, ports in readers:
                    if seen is frame:
                        ports.append(name)
                        break
                else:
                    readers.append((frame, [name]))
        kept = [
            (frame, stage_rows([frame], ports).localCheckpoint(False, StorageLevel.DISK_ONLY))
            for frame, ports in readers
            if len(ports) > 1
        ]

        def rows(stage: Any, port: str) -> Any:
            for frame, rows_kept in kept:
                if frame is stage:
                    return rows_kept.filter(F.col("port") == port).drop("port")
            return port_output(stage, port)

        for name in wanted:
            stages = self.sources.get(name, [])
            if any(stage is frame for stage in stages for frame, _ in kept):
                self[name] = _union([rows(stage, name) for stage in stages])


def port_frames(spark: Any, ports: dict[str, list[Any]]) -> PortFrames:
    """The outputs of a batch job whose port ``p`` holds the rows of the stages ``ports[p]``."""
    return PortFrames(spark, {port: list(stages) for port, stages in ports.items()})


def empty_frame(spark: Any, schema: str) -> Any:
    """An empty DataFrame of ``schema`` (``name type, ...``, no nested comma), planned as an
    empty local relation (a dozen round trips to the JVM where ``createDataFrame`` takes 35),
    noted as empty (:func:`is_empty_frame`)."""
    columns = [f"CAST(NULL AS {kind}) AS `{name}`" for name, kind in _fields(schema)]
    frame = spark.range(0).selectExpr(*columns)
    _EMPTY_FRAMES.add(frame)
    return frame


def is_empty_frame(frame: Any) -> bool:
    """``frame`` was built by :func:`empty_frame` (it holds no row whatever runs it)."""
    try:
        return frame in _EMPTY_FRAMES
    except TypeError:  # unhashable
        return False


def _fields(schema: str) -> list[tuple[str, str]]:
    return [tuple(field.split()) for field in schema.split(",")]  # type: ignore[misc]


def keep_shared(outputs: dict[str, Any], names: list[str] | None = None) -> None:
    """Before several actions on the ports ``names`` (default: all) of ``outputs``: a job's
    :class:`PortFrames` keep the rows of the stages several of them share (other mappings have
    nothing to keep)."""
    if isinstance(outputs, PortFrames):
        outputs.keep_shared(names)


def stage_rows(stages: list[Any], names: list[str]) -> Any:
    """The rows of ``stages`` for the ports ``names``: one DataFrame ``value, seq, sub, port,
    meta`` reading each stage once (None without stages)."""
    from pyspark.sql import functions as F

    outs = [
        _expanded(stage.filter((F.col("stage") == -1) & F.col("target").isin(names))).select(
            "value", "seq", F.col("path").alias("sub"), F.col("target").alias("port"), meta_column()
        )
        for stage in stages
    ]
    return _union(outs) if outs else None


def port_output(stage: Any, port: str):
    """The job outputs a stage's rows hold for ``port``: ``value, seq, sub, meta`` (``meta``:
    null unless the port's sink reads ``$``, see ``stages._encoded_with_meta``)."""
    from pyspark.sql import functions as F

    mine = (F.col("stage") == -1) & (F.col("target") == port)
    return _expanded(stage.filter(mine)).select(
        F.col("value"), F.col("seq"), F.col("path").alias("sub"), meta_column()
    )


def _expanded(rows: Any) -> Any:
    """``rows`` of a stage; a stage's row with ``repeat`` = n stands for n rows whose path's last
    index counts up from its own (``stages.REPEAT_ROW_SCHEMA``)."""
    if "repeat" not in rows.columns:
        return rows
    from pyspark.sql import functions as F

    path, copy = F.col("path"), F.col("_copy")
    last = F.element_at(path, -1) + copy
    shifted = F.concat(F.slice(path, 1, F.size(path) - 1), F.array(last))
    copies = rows.withColumn("_copy", F.explode(F.sequence(F.lit(0), F.col("repeat") - 1)))
    return copies.withColumn("path", F.when(copy == 0, path).otherwise(shifted)).drop(
        "_copy", "repeat"
    )


def meta_column():
    """The ``meta`` column of an output row (the ``$`` JSON its stage put in ``event``)."""
    from pyspark.sql import functions as F

    return F.col("event").cast("string").alias("meta")


def _union(frames: list[Any]) -> Any:
    """The rows of ``frames`` (one or more, the same columns) as one DataFrame, in that order."""
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    return union


def _distinct(frames: Any) -> list[Any]:
    """``frames`` without repeats (by identity: DataFrames compare as Columns, not by ``==``)."""
    out: list[Any] = []
    for frame in frames:
        if not any(frame is seen for seen in out):
            out.append(frame)
    return out
