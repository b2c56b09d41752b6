"""Port names the runtime reserves for its own rows (a light module: the compiler imports it)."""

from __future__ import annotations

__all__ = ["METRICS_PORT"]

METRICS_PORT = "#metrics"
"""The job output of a counted graph's per-partition event counts (``GraphSpec.counted``)."""
