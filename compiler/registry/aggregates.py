"""Aggregate functions (``aggr::stats::*``, ``aggr::win::*``, TREMOR.md §2.4).

Invariant: every aggregate Tremor has is listed with its arity and its class in
``runtime_support.tremor.aggregates`` (``AGGREGATES`` there must agree, see
tests/compiler/registry/test_registry.py).
Aggregates live in a window's group, so their scope is that of the select.
"""

from __future__ import annotations

from .common import Entry, Registry

RT = "runtime_support.tremor.aggregates."

_ROWS = (
    ("aggr::stats::count", "Count", "0", "integer count"),
    ("aggr::stats::sum", "Sum", "1", "float sum"),
    ("aggr::stats::mean", "Mean", "1", "float mean, null if empty"),
    ("aggr::stats::min", "Min", "1", "float min (0.0 if empty)"),
    ("aggr::stats::max", "Max", "1", "float max (0.0 if empty)"),
    ("aggr::stats::var", "Var", "1", "sample variance"),
    ("aggr::stats::stdev", "Stdev", "1", "sample standard deviation"),
    ("aggr::stats::hdr", "Hdr", "1..2", "exact percentiles (Tremor: HDR histogram)"),
    ("aggr::stats::dds", "Dds", "1..2", "exact percentiles (Tremor: DDSketch)"),
    ("aggr::win::first", "First", "1", "first value"),
    ("aggr::win::last", "Last", "1", "last value"),
    ("aggr::win::collect_flattened", "CollectFlattened", "1", "array of values (flat merge)"),
    ("aggr::win::collect_nested", "CollectNested", "1", "array of values (nested merge)"),
)

AGGREGATES = Registry(
    "aggregate",
    tuple(
        Entry(name=name, factory=RT + cls, scope="keyed", keyed_by="group by", doc=f"{ar}: {doc}")
        for name, cls, ar, doc in _ROWS
    ),
)
