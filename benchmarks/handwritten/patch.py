"""`patch event of insert "merged" => "true" end`: `insert` adds `merged`; on an event that
already has it Tremor's patch fails (the event goes to `err`, nothing to `out`)."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from handwritten import EVENT, as_json, parsed

# The schema knows `merged`, so an event that already has it can be told apart.
SCHEMA = StructType([*EVENT.fields, StructField("merged", StringType())])


def run(frame):
    """Each event without ``merged``, with ``merged = "true"``."""
    events = parsed(frame, SCHEMA).where(F.col("e.merged").isNull())
    return events.select(as_json(F.col("e").withField("merged", F.lit("true"))))
