"""``aggr::stats`` and ``aggr::win``: aggregate signatures (implemented by the trickle runtime).

Registered so the compiler can check names and arities; ``call`` refuses to run them.
"""

from __future__ import annotations

from runtime_support.tremor.stdlib._table import aggregate

_SIGNATURES = {
    "aggr::stats::count": (0, 0),
    "aggr::stats::sum": (1, 1),
    "aggr::stats::mean": (1, 1),
    "aggr::stats::min": (1, 1),
    "aggr::stats::max": (1, 1),
    "aggr::stats::var": (1, 1),
    "aggr::stats::stdev": (1, 1),
    "aggr::stats::hdr": (1, 2),
    "aggr::stats::dds": (1, 2),
    "aggr::win::first": (1, 1),
    "aggr::win::last": (1, 1),
    "aggr::win::collect_flattened": (1, 1),
    "aggr::win::collect_nested": (1, 1),
}

for _path, (_lo, _hi) in _SIGNATURES.items():
    aggregate(_path, _lo, _hi)
