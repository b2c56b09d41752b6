"""`window_two_by_two`: `from in[two, two] group by event.application`, a tilt frame of two
tumbling windows of size 2. Per application, the first window emits
`collect_flattened(event)` of every 2 events; the second receives those emissions and, every 2
of them, emits their flattened collection: the application's 4 events in arrival order. Both
windows' emissions go to `out`; partial windows at the end of input emit nothing."""

from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F

from handwritten import as_json, in_order, parsed


def _windows(events, size: int):
    """The full tumbling windows of ``size`` events per application, as JSON arrays."""
    grouped = (
        events.groupBy("k", F.floor(F.col("n") / size).alias("w"))
        .agg(F.count("*").alias("c"), in_order().alias("events"))
        .where(F.col("c") == size)
    )
    return grouped.select(as_json("events"))


def run(frame):
    """Every full window of 2 and of 4 events of an application."""
    key = F.col("e.application")
    position = F.row_number().over(Window.partitionBy(key).orderBy("seq")) - 1
    events = parsed(frame).select("seq", "e", key.alias("k"), position.alias("n"))
    return _windows(events, 2).unionByName(_windows(events, 4))
