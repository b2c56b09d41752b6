"""`group-by-count`: a tumbling window of 10 events per `index_type` (`group by
set(event.index_type)`); each full window emits `{"count": 10, "first": [its 10 events]}` in
arrival order. Size windows are not flushed at the end of input: a group's last partial window
emits nothing."""

from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F

from handwritten import as_json, in_order, parsed

SIZE = 10


def run(frame):
    """One row per full window of 10 events of an ``index_type``."""
    key = F.col("e.index_type")
    position = F.row_number().over(Window.partitionBy(key).orderBy("seq")) - 1
    events = parsed(frame).select("seq", "e", key.alias("k"), F.floor(position / SIZE).alias("w"))
    windows = (
        events.groupBy("k", "w")
        .agg(F.count("*").alias("count"), in_order().alias("first"))
        .where(F.col("count") == SIZE)
    )
    return windows.select(as_json(F.struct("count", "first")))
