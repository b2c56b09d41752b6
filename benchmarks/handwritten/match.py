"""`match`: each event gains `timestamp = system::ingest_ns()`; the first `match` compares it
with the same instant plus an hour (never greater); the 285-case `match` only sets metadata
(`$class`, `$rate`, `$dimensions`) and the output port (`out` or `type2`), and both ports reach
`out` through a `grouper::bucket` whose `out` and `overflow` both go to `out`. So `out` holds
every event with its ingest time added."""

from __future__ import annotations

from pyspark.sql import functions as F

from handwritten import MATCH_EVENT, as_json, parsed, with_field


def run(frame):
    """Each event with ``timestamp`` = its ingest time in ns."""
    events = parsed(frame, MATCH_EVENT)
    return events.select(as_json(with_field("timestamp", F.col("ingest_ns"))))
