"""Spark glue of a job's plan: the input columns, a port's output rows, and the emission-order
union of the outputs. The plan itself (stages, partitioning, ordering) is rendered in each job;
the stages run :func:`runtime_support.spark.stages.stage_mapper`.

Input contract: each input DataFrame has a JSON-text column ``value`` and optionally ``ingest_ns``
(long), ``seq`` (long, input order), ``origin`` (the event's origin URI) and ``meta`` (the
connector's ``$`` record, see :mod:`runtime_support.tremor.event_meta`). A *typed* input (no
``value`` column: a Parquet, JDBC or Avro table read by Spark) has its event as its other columns:
the event is the record of its non-NULL columns, in column order (:func:`typed_event`). Every port's
output is ``value, seq, sub`` (``sub`` the array path of :mod:`runtime_support.spark.stages`):
ordering by ``(seq, sub)`` gives Tremor's emission order. A ``.trickle`` job whose buckets were
proven routing-only assuming metadata-free input takes no ``meta`` column
(:func:`refuse_input_meta`). A single stage whose only state is flush-transparent batches runs in
parallel with them as passthroughs when the run flushes (:func:`passthroughs`; the job's
``batch_plan`` says when)."""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime_support.spark.port_frames import (
    PortFrames,
    empty_frame,
    is_empty_frame,
    meta_column,
    port_output,
)
from runtime_support.tremor.graph import GraphSpec, NodeSpec, Passthrough

__all__ = [
    "InputMetaError",
    "event_columns",
    "meta_column",
    "ordered_union",
    "passthroughs",
    "port_output",
    "python_splits",
    "refuse_input_meta",
    "stream_outputs",
    "typed_event",
    "typed_fields",
]

EVENT_SCHEMA = "seq long, value string, ingest_ns long, origin string, meta string"


class InputMetaError(ValueError):
    """An input DataFrame with a ``meta`` column given to a job compiled assuming its events
    carry no metadata; the message names the stream and the operators that assume it."""


def refuse_input_meta(inputs: dict[str, Any], streams: tuple[str, ...], operators: tuple) -> None:
    """Raise :class:`InputMetaError` (on the driver, before anything runs) when an input of
    ``streams`` has a ``meta`` column: ``operators`` (``grouper::bucket`` nodes) were proven
    routing-only for events without metadata (``compiler/passes/bucket_routing.py``), and a
    ``$class`` / ``$rate`` coming in could make them route where Tremor's rate limit would
    not."""
    for stream in streams:
        frame = inputs.get(stream)
        if frame is None or "meta" not in frame.columns:
            continue
        names = ", ".join(f"`{name}`" for name in operators)
        raise InputMetaError(
            f"input stream `{stream}` has a `meta` column, but grouper::bucket {names} "
            "was compiled assuming its input events carry no metadata, as `tremorc build` of a "
            ".trickle and the job's CLI give them; with a `$class` / `$rate` coming in it could "
            "route events where Tremor's rate limit would not. Drop the `meta` column, or run "
            "the pipeline in a .troy flow (whose buckets assume nothing of their input)."
        )


def passthroughs(spec: GraphSpec, names: tuple[str, ...]) -> GraphSpec:
    """``spec`` with the nodes ``names`` replaced by stateless passthroughs."""
    nodes = tuple(
        NodeSpec(name=node.name, factory=Passthrough) if node.name in names else node
        for node in spec.nodes
    )
    return dataclasses.replace(spec, nodes=nodes)


#: The columns of an input DataFrame that describe its event rather than being it.
NOT_EVENT = ("seq", "ingest_ns", "origin", "meta", "stream")
#: How a typed event is written as JSON: a NULL column is an absent key.
TYPED_JSON = {"ignoreNullFields": "true"}


def typed_fields(df: Any) -> list[str]:
    """The event columns of a typed input (every column but :data:`NOT_EVENT`), in order."""
    return [name for name in df.columns if name not in NOT_EVENT]


def typed_event(df: Any) -> Any:
    """The struct Column of a typed input's event (its :func:`typed_fields`)."""
    from pyspark.sql import functions as F

    names = tuple(typed_fields(df))
    return F.struct(*[by_name(name) for name in names])


def by_name(name: str) -> Any:
    """The Column of the input column ``name``, whatever its characters (back-quoted)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def event_columns(spark: Any, df: Any, stream: str | None = None, keep: tuple[str, ...] = ()):
    """``df`` as the columns a job's plan reads: ``seq, value, ingest_ns, origin, meta`` (missing
    ones derived: ``seq`` from the DataFrame's own order, ``ingest_ns``, ``origin`` and ``meta``
    null; a typed input's ``value`` is its event's JSON, see the module), then ``stream`` (the
    literal name of its input stream, when given) and the columns ``keep``: one projection of
    ``df``. An absent stream (``None``) is an empty DataFrame."""
    from pyspark.sql import functions as F

    if df is None:
        return empty_frame(spark, EVENT_SCHEMA if stream is None else STREAM_EVENT_SCHEMA)
    present = frozenset(df.columns)
    typed = () if "value" in present else tuple(typed_fields(df))
    tagged = () if stream is None else (stream,)

    def build() -> tuple[Any, ...]:
        columns = _event_columns(present | {"value"})
        if typed:
            json = F.to_json(typed_event(df), TYPED_JSON).alias("value")
            columns = (columns[0], json, *columns[2:])
        named = tuple(F.lit(name).alias("stream") for name in tagged)
        return (*columns, *named, *keep)

    return df.select(*build())


_EVENT_NAMES = frozenset(("seq", "value", "ingest_ns", "origin", "meta"))
STREAM_EVENT_SCHEMA = EVENT_SCHEMA + ", stream string"


def _event_columns(present: frozenset[str]) -> tuple[Any, ...]:
    """The five columns of :func:`event_columns` over an input holding the columns ``present``
    (``value`` among them)."""
    from pyspark.sql import functions as F

    def column(name: str, kind: str) -> Any:
        if name in present:
            return F.col(name).cast(kind).alias(name)
        if name == "seq":
            return F.monotonically_increasing_id().alias(name)
        return F.lit(None).cast(kind).alias(name)

    return (
        column("seq", "long"),
        column("value", "string"),
        column("ingest_ns", "long"),
        column("origin", "string"),
        column("meta", "string"),
    )


def python_splits(df: Any):
    """``df`` read by at most as many tasks as the job's other stages run in: the larger of
    ``spark.sql.shuffle.partitions`` (``--partitions``) and the cluster's cores (Spark's default
    parallelism; unknown to a Spark Connect client). Its splits are merged without a shuffle
    (``coalesce``; never more splits than it has), for a source stage, whose stateless members
    need no particular split. A Python task has a fixed cost to start and finish, whatever its
    rows."""
    from runtime_support.spark.session import is_connect

    if is_empty_frame(df):  # no rows: no splits to merge (the frame is reused as is)
        return df
    spark = df.sparkSession
    shuffle = str(spark.conf.get("spark.sql.shuffle.partitions"))  # Spark's default when unset
    if not shuffle.isdigit():  # a platform's "auto": its own choice stands
        return df
    cores = 0 if is_connect(spark) else spark.sparkContext.defaultParallelism  # classic-only
    return df.coalesce(max(int(shuffle), cores, 1))


def ordered_union(outputs: dict[str, Any]):
    """All output DataFrames as one, in emission order (``seq``, ``sub``); a job's
    :class:`~runtime_support.spark.port_frames.PortFrames` are read in one pass (each stage once),
    with a ``port`` column."""
    if isinstance(outputs, PortFrames) and (together := outputs.together()) is not None:
        return together.orderBy("seq", "sub")
    frames = list(outputs.values())
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame, allowMissingColumns=True)
    return result.orderBy("seq", "sub")


def stream_outputs(ports: dict[str, list[Any]]) -> tuple[Any, list[str]]:
    """A streaming job's outputs: one DataFrame ``value, seq, sub, port, meta`` reading each stage
    once (a stage read twice would be two stateful operators), and every port's name."""
    names = sorted(ports)
    return PortFrames(None, ports).together(names), names
