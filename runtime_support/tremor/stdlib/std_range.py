"""``std::range``: integer ranges as arrays."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor import value_ops as ops
from runtime_support.tremor.stdlib._table import native, tremor_fn, want_int

M = "std::range"


@native(f"{M}::range", 2)
def range_(start: Any, end: Any) -> list:
    """``[start, start + 1, …, end - 1]`` (empty when ``start >= end``)."""
    return list(range(want_int(start), want_int(end)))


@tremor_fn(f"{M}::contains", 2)
def contains(r: Any, n: Any) -> bool:
    """``r[0] <= n and r[-1] >= n``; an empty range contains nothing.

    >>> contains([0, 1, 2, 3, 4], 4), contains([0, 1, 2, 3, 4], 5), contains([], 1)
    (True, False, False)
    """
    if r == []:
        return False
    return ops.le(r[0], n) and ops.ge(r[-1], n)
