"""Hand-written PySpark jobs, one module per workload of the benchmark suite (``suite.py``).

Each module has ``run(frame)``: ``frame`` is the suite's cached input (``seq`` the event's
position, ``value`` the event as JSON text, ``ingest_ns``); it returns a DataFrame with one
``value`` column of JSON text, what the workload writes to ``out``. Written from each workload's
meaning (Tremor's semantics), as a Spark user would: an explicit schema parsed with
``from_json``, native functions and windows only, no Python UDF.

Invariant: each job's physical plan parses an event ONCE (one ``from_json``, asserted by
``tests/spark/test_bench_suite.py``). The parse goes in its own ``select`` and the output reads the
parsed struct ``e`` field by field (``F.struct("e.*", ...)``, see ``with_field``): a single
whole reference such as ``e.withField(...)`` lets the optimiser collapse the two projections
and then expand the struct into one ``from_json`` per field.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
)


def _fields(tags) -> list[StructField]:
    """The sample events' fields, in their order (``tags`` typed by the data set)."""
    return [
        StructField("about", StringType()),
        StructField("guid", StringType()),
        StructField("abool", BooleanType()),
        StructField("aint", LongType()),
        StructField("short_message", StringType()),
        StructField("tags", tags),
        StructField("array", ArrayType(LongType())),
        StructField("index_type", StringType()),
        StructField("logger_name", StringType()),
        StructField("syslog_hostname", StringType()),
        StructField("application", StringType()),
        StructField("type", StringType()),
        StructField("doc-type", StringType()),
    ]


# data.json: every event has these 13 fields.
EVENT = StructType(_fields(ArrayType(StringType())))
# match.json: the same plus `measurement`; `tags` appears twice in each line (an array, then
# `{"pipeline": ...}`): the last one wins in Tremor's decoder and in Spark's from_json alike.
MATCH_EVENT = StructType(
    [
        *_fields(StructType([StructField("pipeline", StringType())])),
        StructField("measurement", StringType()),
    ]
)


def parsed(frame, schema: StructType = EVENT):
    """``frame`` with the event parsed into the struct column ``e`` (plus ``seq``,
    ``ingest_ns``). A typed source (no ``value``: one column per field, the suite's
    ``--typed-source``) is read as is: ``e`` is its columns as ``schema``, a field it lacks
    NULL."""
    if "value" in frame.columns:
        return frame.select("seq", "ingest_ns", F.from_json("value", schema).alias("e"))
    fields = [
        F.col(f"`{f.name}`") if f.name in frame.columns else F.lit(None).cast(f.dataType)
        for f in schema.fields
    ]
    e = F.struct(*[field.alias(f.name) for field, f in zip(fields, schema.fields, strict=True)])
    return frame.select("seq", "ingest_ns", e.alias("e"))


def as_json(column: Column):
    """A one-column projection: ``column`` serialised as JSON text named ``value``."""
    return F.to_json(column).alias("value")


def with_field(name: str, value: Column) -> Column:
    """The event ``e`` with ``name`` = ``value`` appended (``name`` not in its schema), built from
    ``e``'s fields so the parse is not inlined (see the module docstring)."""
    return F.struct("e.*", value.alias(name))


def in_order() -> Column:
    """Aggregate: the group's events ``e`` as an array in arrival order (``seq``)."""
    collected = F.sort_array(F.collect_list(F.struct("seq", "e")))
    return F.transform(collected, lambda item: item["e"])
