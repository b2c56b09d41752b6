"""Shared by the workloads whose `out` is every input event unchanged: the job parses each
event with the schema and writes it back (a Spark user's typed read → write)."""

from __future__ import annotations

from handwritten import as_json, parsed


def run(frame):
    """Every event, parsed and re-serialised."""
    return parsed(frame).select(as_json("e"))
