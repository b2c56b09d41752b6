"""``std::random``: pseudo-random values seeded from the event's ``ingest_ns``.

Every call reseeds from ``ctx.ingest_ns`` (as Tremor does), so results are deterministic per
event. The generator is Python's, not Rust's ``SmallRng``: types and ranges match Tremor,
exact values do not.
"""

from __future__ import annotations

import random
import string as _string
from typing import Any

from runtime_support.tremor.stdlib._table import BadType, FnError, native, want_int, want_uint

M = "std::random"
_ALPHANUMERIC = _string.ascii_letters + _string.digits
_ORDER_ERROR = "Invalid arguments. First argument must be lower than second argument"


def _rng(ctx: Any) -> random.Random:
    return random.Random(int(getattr(ctx, "ingest_ns", 0) or 0))


@native(f"{M}::bool", 0, const=False, needs_ctx=True)
def bool_(ctx: Any) -> bool:
    """A random bool."""
    return _rng(ctx).random() < 0.5


@native(f"{M}::string", 1, const=False, needs_ctx=True)
def string(ctx: Any, length: Any) -> str:
    """``length`` random ASCII letters and digits."""
    rng = _rng(ctx)
    return "".join(rng.choice(_ALPHANUMERIC) for _ in range(want_uint(length)))


@native(f"{M}::integer", (0, 2), const=False, needs_ctx=True)
def integer(ctx: Any, *bounds: Any) -> int:
    """Any i64, or ``[0, high)``, or ``[low, high)``.

    >>> from types import SimpleNamespace
    >>> 3 <= integer(SimpleNamespace(ingest_ns=7), 3, 5) < 5
    True
    """
    rng = _rng(ctx)
    if not bounds:
        return rng.randrange(-(2**63), 2**63)
    if len(bounds) == 1:
        high = want_uint(bounds[0])
        if high == 0:
            raise FnError("cannot sample empty range")
        return rng.randrange(0, high)
    low, high = want_int(bounds[0]), want_int(bounds[1])
    if not low < high:
        raise FnError(_ORDER_ERROR)
    return rng.randrange(low, high)


def _f64(v: Any) -> float:
    if type(v) not in (int, float):
        raise BadType()
    return float(v)


@native(f"{M}::float", (0, 2), const=False, needs_ctx=True)
def float_(ctx: Any, *bounds: Any) -> float:
    """A float in ``[0, 1)``, ``[0, high)`` or ``[low, high)``."""
    rng = _rng(ctx)
    if not bounds:
        return rng.random()
    low, high = (0.0, _f64(bounds[0])) if len(bounds) == 1 else map(_f64, bounds)
    if not low < high:
        raise FnError(_ORDER_ERROR)
    return low + (high - low) * rng.random()
