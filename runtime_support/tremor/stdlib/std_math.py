"""``std::math``: rounding and min/max (integers stay integers)."""

from __future__ import annotations

import math
from typing import Any

from runtime_support.tremor.stdlib._table import BadType, FnError, native

M = "std::math"


def _to_int(f: float) -> int:
    if not math.isfinite(f):
        raise FnError(f"value {f} can not be represented as an integer")
    return int(f)


def _rounder(name: str, op: Any) -> None:
    @native(f"{M}::{name}", 1)
    def impl(n: Any) -> int:
        if type(n) is int:
            return n
        if type(n) is float:
            return _to_int(op(n))
        raise BadType()

    impl.__doc__ = f"``{name}`` of a float as an integer; integers are returned unchanged."


def _round_half_away(f: float) -> float:
    r = math.floor(abs(f) + 0.5) if abs(f) % 1 == 0.5 else round(abs(f))
    return math.copysign(r, f)


_rounder("floor", math.floor)
_rounder("ceil", math.ceil)
_rounder("round", _round_half_away)
_rounder("trunc", math.trunc)


def _pick(a: Any, b: Any, want_max: bool) -> Any:
    ta, tb = type(a), type(b)
    if ta not in (int, float) or tb not in (int, float):
        raise BadType()
    if ta is int and tb is int:
        return max(a, b) if want_max else min(a, b)
    fa, fb = float(a), float(b)
    return max(fa, fb) if want_max else min(fa, fb)


@native(f"{M}::max", 2)
def max_(a: Any, b: Any) -> Any:
    """The larger number; a float result if either is a float.

    >>> max_(42.6, 42.5), max_(1, 2), max_(1, 2.0)
    (42.6, 2, 2.0)
    """
    return _pick(a, b, True)


@native(f"{M}::min", 2)
def min_(a: Any, b: Any) -> Any:
    """The smaller number; a float result if either is a float."""
    return _pick(a, b, False)
