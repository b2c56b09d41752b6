"""`patch event of insert "merged" => "true" end`: `insert` adds `merged`; on an event that
already has it Tremor's patch fails (the event goes to `err`, nothing to `out`)."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from handwritten import EVENT, as_json, parsed

# The schema knows `merged`, so an event that already has it can be told apart.
SCHEMA = StructType([*EVENT.fields, StructField("merged", StringType())])


def run(frame):
    """Each event without ``merged``, with ``merged = "true"``.

    The test runs inside a generator (``explode`` of the event kept or not) rather than a
    ``where``: the optimiser pushes a ``where`` on ``e.merged`` below the parse, which would
    parse each event a second time."""
    kept = F.filter(F.array("e"), lambda event: event["merged"].isNull())
    events = parsed(frame, SCHEMA).select(F.explode(kept).alias("e"))
    fields = [F.col("e")[field.name].alias(field.name) for field in EVENT.fields]
    return events.select(as_json(F.struct(*fields, F.lit("true").alias("merged"))))
