"""`window_two_by_two`: `from in[two, two] group by event.application`, a tilt frame of two
tumbling windows of size 2. Per application, the first window emits
`collect_flattened(event)` of every 2 events; the second receives those emissions and, every 2
of them, emits their flattened collection: the application's 4 events in arrival order. Both
windows' emissions go to `out`; partial windows at the end of input emit nothing.

So every run of 4 consecutive events of an application (positions 4k..4k+3) holds both
emissions of the tilt frame: its two halves (when full) and, when it has all 4 events, the
whole. The job groups by those runs once (one parse, one shuffle) and emits their windows."""

from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F

from handwritten import as_json, in_order, parsed


def run(frame):
    """Every full window of 2 and of 4 events of an application."""
    key = F.col("e.application")
    position = F.row_number().over(Window.partitionBy(key).orderBy("seq")) - 1
    events = parsed(frame).select("seq", "e", key.alias("k"), F.floor(position / 4).alias("w"))
    runs = events.groupBy("k", "w").agg(F.count("*").alias("c"), in_order().alias("events"))
    count, run_events = F.col("c"), F.col("events")
    windows = F.array(
        F.when(count >= 2, F.slice(run_events, 1, 2)),
        F.when(count == 4, F.slice(run_events, 3, 2)),
        F.when(count == 4, run_events),
    )
    full = runs.select(F.explode(F.filter(windows, lambda window: window.isNotNull())).alias("w"))
    return full.select(as_json("w"))
