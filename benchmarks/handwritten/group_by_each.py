"""`select event from in group by each(event.tags)`: one group per element of `tags`
(duplicates included, as Tremor's `GroupBy::Each` pushes one group per element), and the
select emits the event once per group."""

from __future__ import annotations

from pyspark.sql import functions as F

from handwritten import as_json, parsed


def run(frame):
    """Each event repeated once per element of its ``tags``."""
    events = parsed(frame).select("e", F.explode("e.tags").alias("group"))
    return events.select(as_json("e"))
