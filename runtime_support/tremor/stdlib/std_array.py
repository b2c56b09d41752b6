"""``std::array``: functions over arrays (new arrays are returned; inputs are never mutated)."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

from runtime_support.tremor.stdlib._table import FnError, native, want_array, want_str
from runtime_support.tremor.values import structural_eq, total_cmp

M = "std::array"


@native(f"{M}::len", 1)
def len_(a: Any) -> int:
    """Element count."""
    return len(want_array(a))


@native(f"{M}::is_empty", 1)
def is_empty(a: Any) -> bool:
    """True for ``[]``."""
    return not want_array(a)


@native(f"{M}::contains", 2)
def contains(a: Any, v: Any) -> bool:
    """Membership by exact per-type equality (``1`` is not ``1.0``)."""
    return any(structural_eq(e, v) for e in want_array(a))


@native(f"{M}::push", 2)
def push(a: Any, v: Any) -> list:
    """A copy of ``a`` with ``v`` appended."""
    return [*want_array(a), v]


@native(f"{M}::concatenate", 2)
def concatenate(left: Any, right: Any) -> list:
    """``left + right``."""
    return [*want_array(left), *want_array(right)]


@native(f"{M}::zip", 2)
def zip_(left: Any, right: Any) -> list:
    """Pairs ``[[l0, r0], …]``; arrays of different lengths are an error."""
    left, right = want_array(left), want_array(right)
    if len(left) != len(right):
        raise FnError(
            "Zipping two arrays requires them to have the same length, but the first array "
            f"provided has {len(left)} elements while the second one has {len(right)} elements"
        )
    return [[x, y] for x, y in zip(left, right, strict=True)]


@native(f"{M}::unzip", 1)
def unzip(a: Any) -> list:
    """``[[a, b], …]`` into ``[[a, …], [b, …]]``; every element must be a pair."""
    firsts, seconds = [], []
    for e in want_array(a):
        if type(e) is not list:
            raise FnError(
                "Onlay arrays that consist of tuples (arrays of two elements) can be unzipped "
                f"but this array contained: {rust_debug(e)}"
            )
        if len(e) != 2:
            raise FnError(
                "Onlay arrays that consist of tuples (arrays of two elements) can be unzipped "
                f"but this array contained {len(e)} elements"
            )
        firsts.append(e[0])
        seconds.append(e[1])
    return [firsts, seconds]


def _flatten(v: Any, out: list) -> list:
    if type(v) is list:
        for e in v:
            _flatten(e, out)
    else:
        out.append(v)
    return out


@native(f"{M}::flatten", 1)
def flatten(v: Any) -> list:
    """Recursively flattened elements; a non-array ``v`` gives ``[v]``."""
    return _flatten(v, [])


@native(f"{M}::coalesce", 1)
def coalesce(a: Any) -> list:
    """The elements that are not ``null``."""
    return [e for e in want_array(a) if e is not None]


@native(f"{M}::join", 2)
def join(a: Any, sep: Any) -> str:
    """Elements rendered with Rust ``Display`` (strings raw), separated by ``sep``.

    >>> join(["a", 1, 1.0, 1.5, None, True], ",")
    'a,1,1,1.5,null,true'
    """
    return want_str(sep).join(rust_display(e) for e in want_array(a))


@native(f"{M}::sort", 1)
def sort(a: Any) -> list:
    """Ascending by Tremor's total order (stable)."""
    return sorted(want_array(a), key=functools.cmp_to_key(total_cmp))


@native(f"{M}::reverse", 1)
def reverse(a: Any) -> list:
    """Reversed copy."""
    return list(reversed(want_array(a)))


def rust_float(f: float) -> str:
    """A float as Rust's ``Display`` prints it: shortest digits, never an exponent.

    >>> rust_float(1.0), rust_float(1e16), rust_float(1.5e-7), rust_float(float("nan"))
    ('1', '10000000000000000', '0.00000015', 'NaN')
    """
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    s = format(Decimal(repr(f)), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def rust_display(v: Any) -> str:
    """Tremor value ``Display``: strings raw, scalars plain, collections in debug form."""
    t = type(v)
    if t is str:
        return v
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return rust_float(v)
    return rust_debug(v)


def rust_debug(v: Any) -> str:
    """An approximation of Rust's ``{:?}`` of a Tremor value (only seen in odd error texts)."""
    t = type(v)
    if t is str:
        return f'String("{v}")'
    if t is list:
        return "[" + ", ".join(rust_debug(e) for e in v) + "]"
    if t is dict:
        inner = ", ".join(f'"{k}": {rust_debug(e)}' for k, e in v.items())
        return "Object({" + inner + "})"
    if t is bytes:
        return f"Bytes({list(v)})"
    if v is None:
        return "Static(Null)"
    if t is bool:
        return f"Static(Bool({'true' if v else 'false'}))"
    if t is int:
        return f"Static({'I64' if v < 0 else 'U64'}({v}))"
    return f"Static(F64({v!r}))"
