"""Exact native lowerings of ``std::type`` and ``std::math`` (contract: ``native_base``).

Type tests read ``schema_of_variant``; the one ambiguity is a ``DECIMAL(p>=19,0)`` (a u64 above
i64::MAX or a long float such as ``1e20`` written ``100000000000000000000.0``), for which
``is_float`` and ``as_string`` stay unknown. Rounding keeps integers as they are and computes a
float's result on the DECIMAL itself (at most 15 digits: the same integer as rounding the
correctly rounded double) or on a DOUBLE below 2**52 (Spark's ``round`` is HALF_UP, i.e. half
away from zero like Rust's ``f64::round``). ``min``/``max`` keep two integers integral and
otherwise compare doubles, except two zeros (Python keeps the first one's sign).
"""

from __future__ import annotations

from typing import Any

from runtime_support.spark.std_native.base import (
    F,
    as_variant,
    dec_exact,
    definite_float,
    kind,
    lowers,
    typed,
)
from runtime_support.tremor.stdlib import std_math, std_type  # noqa: F401  (registers them first)

T = "std::type"
M = "std::math"
EXACT_DOUBLE_INT = float(2**52)


def _type_test(name: str, test: Any, certain: Any = None) -> None:
    """Register ``type::name`` as ``test(kind)``; ``certain(kind)`` says when it is exact."""

    def build(v: Any) -> tuple[Any, Any]:
        k = kind(v)
        exact = k.isNotNull() if certain is None else k.isNotNull() & certain(k)
        return as_variant(test(k)), exact

    build.__doc__ = f"``type::{name}`` from ``schema_of_variant``."
    lowers(f"{T}::{name}", "bool")(build)


def _is_number(k: Any) -> Any:
    return k.isin("BIGINT", "DOUBLE") | k.startswith("DECIMAL")


def _certain_float(k: Any) -> Any:
    """False only for an ambiguous DECIMAL(p>=19,0)."""
    return ~k.startswith("DECIMAL") | definite_float(k)


_type_test("is_null", lambda k: k == "VOID")
_type_test("is_bool", lambda k: k == "BOOLEAN")
# (quirk) a u64 above i64::MAX is no "integer"; such values read as DECIMAL(p>=19,0).
_type_test("is_integer", lambda k: k == "BIGINT")
_type_test("is_float", lambda k: (k == "DOUBLE") | definite_float(k), _certain_float)
_type_test("is_number", _is_number)
_type_test("is_string", lambda k: k == "STRING")
_type_test("is_array", lambda k: k.startswith("ARRAY"))
_type_test("is_record", lambda k: k.startswith("OBJECT"))
_type_test("is_binary", lambda k: F().lit(False))  # no binary value in JSON


@lowers(f"{T}::as_string", "string", "unknown for a DECIMAL(p>=19,0) (u64 or float)")
def as_string(v: Any) -> tuple[Any, Any]:
    f, k = F(), kind(v)
    name = (
        f.when(k == "VOID", f.lit("null"))
        .when(k == "BOOLEAN", f.lit("bool"))
        .when(k == "BIGINT", f.lit("integer"))
        .when(k == "STRING", f.lit("string"))
        .when(k.startswith("ARRAY"), f.lit("array"))
        .when(k.startswith("OBJECT"), f.lit("record"))
        .when(definite_float(k), f.lit("float"))
    )
    return as_variant(name), k.isNotNull() & _certain_float(k)


def _rounder(name: str, on_decimal: Any, on_double: Any) -> None:
    def build(n: Any) -> tuple[Any, Any]:
        f, k = F(), kind(n)
        dec = typed(n, "decimal(38,18)")
        dbl = typed(n, "double")
        small_dec = k.startswith("DECIMAL") & dec_exact(k)
        small_dbl = (k == "DOUBLE") & (f.abs(dbl) < f.lit(EXACT_DOUBLE_INT))
        out = (
            f.when(k == "BIGINT", typed(n, "bigint"))
            .when(small_dec, on_decimal(dec).cast("bigint"))
            .when(small_dbl, on_double(dbl).cast("bigint"))
        )
        return as_variant(out), (k == "BIGINT") | small_dec | small_dbl

    build.__doc__ = f"``math::{name}``: integers unchanged, small floats rounded to an integer."
    lowers(f"{M}::{name}", "integer", "floats: DECIMAL of <= 15 digits or |x| < 2**52")(build)


def _trunc(x: Any) -> Any:
    f = F()
    return f.when(x < 0, f.ceil(x)).otherwise(f.floor(x))


_rounder("floor", lambda d: F().floor(d), lambda x: F().floor(x))
_rounder("ceil", lambda d: F().ceil(d), lambda x: F().ceil(x))
_rounder("round", lambda d: F().round(d, 0), lambda x: F().round(x, 0))
_rounder("trunc", _trunc, _trunc)


def _pick(a: Any, b: Any, want_max: bool) -> tuple[Any, Any]:
    f = F()
    ka, kb = kind(a), kind(b)
    ints = (ka == "BIGINT") & (kb == "BIGINT")
    num_a = (ka == "BIGINT") | (definite_float(ka) & dec_exact(ka))
    num_b = (kb == "BIGINT") | (definite_float(kb) & dec_exact(kb))
    pick = f.greatest if want_max else f.least
    da, db = typed(a, "double"), typed(b, "double")
    # VARIANT reads -0.0 as DECIMAL 0: a float zero argument could be either sign, and it may be
    # the result (min(1, -0.0) is -0.0), so any float zero makes the result unknown.
    float_zero = ((ka != "BIGINT") & (da == 0)) | ((kb != "BIGINT") & (db == 0))
    out = f.when(ints, as_variant(pick(typed(a, "bigint"), typed(b, "bigint")))).otherwise(
        as_variant(pick(da, db))
    )
    return out, ints | (num_a & num_b & ~float_zero)


@lowers(f"{M}::max", "integer|float", "unknown when a float argument is zero (its sign)")
def max_(a: Any, b: Any) -> tuple[Any, Any]:
    return _pick(a, b, True)


@lowers(f"{M}::min", "integer|float", "unknown when a float argument is zero (its sign)")
def min_(a: Any, b: Any) -> tuple[Any, Any]:
    return _pick(a, b, False)
