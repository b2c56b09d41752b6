"""Hand-written PySpark jobs doing the scaling pipelines' aggregation natively (benchmark only).

COMPARABLE, NOT IDENTICAL: each does the same work as its trickle pipeline (parse, key, a
10-event tumbling window per group, then a 10 s interval level over the first level's results,
count/sum/mean/max) with Spark's own operators, but not Tremor's exact tilt-frame semantics
(e.g. an interval window here is aligned to multiples of 10 s of ``ts``, not opened by the
first event, and nothing is emitted in Tremor's order). They measure what a hand-written Spark
job costs for the same aggregation, to put the generated job's figures in proportion.
"""

from __future__ import annotations

from typing import Any

SCHEMA = "ts long, aint long, keys array<string>, keys10 array<string>"
SIZE = 10  # events per first-level window
INTERVAL_NS = 10_000_000_000  # second-level window
EVENT_NS = 1_000_000  # ts step between consecutive events (see scaling.make_data)


def _events(spark: Any, path: str) -> Any:
    from pyspark.sql import functions as F

    parsed = spark.read.text(path).select(F.from_json("value", SCHEMA).alias("e"))
    return parsed.select("e.*")


def _levels(first: Any, keys: list[str]) -> Any:
    """Second level (10 s of ``ts``) over the first level's rows; both levels as JSON text."""
    from pyspark.sql import functions as F

    second = first.groupBy(*keys, F.floor(F.col("ts") / INTERVAL_NS).alias("iv")).agg(
        F.sum("count").alias("count"),
        F.sum("sum").alias("sum"),
        (F.sum("sum") / F.sum("count")).alias("mean"),
        F.max("max").alias("max"),
    )
    columns = [*keys, "count", "sum", "mean", "max"]
    both = first.select(*columns).unionByName(second.select(*columns))
    return both.select(F.to_json(F.struct(*columns)).alias("value"))


def _first_level(events: Any, keys: list[str], bucket: Any) -> Any:
    from pyspark.sql import functions as F

    return events.groupBy(*keys, bucket.alias("b")).agg(
        F.count(F.lit(1)).alias("count"),
        F.sum("aint").alias("sum"),
        F.mean("aint").alias("mean"),
        F.max("aint").alias("max"),
        F.max("ts").alias("ts"),
    )


def keyed(spark: Any, path: str, out: str, field: str) -> None:
    """Grouped by each element of ``field``: a per-key event counter buckets the first level."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    events = _events(spark, path).select("ts", "aint", F.explode(field).alias("key"))
    index = F.row_number().over(Window.partitionBy("key").orderBy("ts")) - 1
    first = _first_level(events.withColumn("i", index), ["key"], F.floor(F.col("i") / SIZE))
    _levels(first, ["key"]).write.mode("overwrite").text(out)


def global_(spark: Any, path: str, out: str) -> None:
    """No key: the event index (from ``ts``) buckets the first level, fully in parallel."""
    from pyspark.sql import functions as F

    events = _events(spark, path)
    first = _first_level(events, [], F.floor(F.col("ts") / (EVENT_NS * SIZE)))
    _levels(first, []).write.mode("overwrite").text(out)


NATIVE = {
    "groups1000": lambda spark, path, out: keyed(spark, path, out, "keys"),
    "groups10": lambda spark, path, out: keyed(spark, path, out, "keys10"),
    "global": global_,
}
