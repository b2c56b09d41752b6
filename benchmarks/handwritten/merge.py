"""`merge event of {"merged": "true"} end`: the record gains (or has replaced) `merged`."""

from __future__ import annotations

from pyspark.sql import functions as F

from handwritten import as_json, parsed, with_field


def run(frame):
    """Each event with ``merged = "true"``."""
    return parsed(frame).select(as_json(with_field("merged", F.lit("true"))))
