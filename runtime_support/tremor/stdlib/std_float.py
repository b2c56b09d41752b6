"""``std::float``: float parsing and classification."""

from __future__ import annotations

import math
import re
from typing import Any

from runtime_support.tremor.stdlib._table import BadType, FnError, native, want_str

M = "std::float"

# Rust's `f64::from_str`: optional sign, digits with optional fraction and exponent, or
# inf/infinity/nan in any case; no whitespace, no underscores, no hex.
_RUST_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.I
)


def _num(v: Any) -> float:
    if type(v) is int or type(v) is float:
        return float(v)
    raise BadType()


@native(f"{M}::parse", 1)
def parse(text: Any) -> float:
    """Rust ``f64`` parsing (``"1e5"``, ``"inf"``, ``"NaN"`` accepted).

    >>> parse("42.42"), parse("1e5"), parse("-inf")
    (42.42, 100000.0, -inf)
    """
    s = want_str(text)
    if not _RUST_FLOAT.fullmatch(s):
        raise FnError("invalid float literal")
    return float(s)


@native(f"{M}::is_finite", 1)
def is_finite(n: Any) -> bool:
    """Neither infinite nor NaN."""
    return math.isfinite(_num(n))


@native(f"{M}::is_nan", 1)
def is_nan(n: Any) -> bool:
    """NaN."""
    return math.isnan(_num(n))


@native(f"{M}::is_infinite", 1)
def is_infinite(n: Any) -> bool:
    """Positive or negative infinity."""
    return math.isinf(_num(n))
