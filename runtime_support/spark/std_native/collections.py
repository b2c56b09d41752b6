"""Exact native lowerings of ``std::array`` and ``std::record`` (contract: ``native_base``).

Arrays are read as ``array<variant>`` (elements keep their VARIANT reading, so an ambiguous
number stays ambiguous for whatever consumes it); records as ``map<string,variant>``, whose
keys Spark always sorts — functions that expose key order (``keys``, ``values``) are exact only
for records of at most one field.
"""

from __future__ import annotations

from typing import Any

from runtime_support.spark.std_native.base import (
    F,
    as_variant,
    dec_exact,
    definite_float,
    fallback,
    kind,
    lowers,
    typed,
)
from runtime_support.tremor.stdlib import (  # noqa: F401  (registers them first)
    std_array,
    std_record,
)

A = "std::array"
R = "std::record"


def _array(v: Any) -> tuple[Any, Any]:
    return v.try_cast("array<variant>"), kind(v).startswith("ARRAY")


def _record(v: Any) -> tuple[Any, Any]:
    return v.try_cast("map<string,variant>"), kind(v).startswith("OBJECT")


def structural_eq(a: Any, b: Any) -> Any:
    """Three-valued Rust ``PartialEq`` of two VARIANT values (``values.structural_eq``):
    TRUE/FALSE where certain, NULL where it cannot be decided natively (two containers,
    floats whose double value is not exact, an ambiguous DECIMAL)."""
    f = F()
    ka, kb = kind(a), kind(b)
    cont_a = ka.startswith("ARRAY") | ka.startswith("OBJECT")
    cont_b = kb.startswith("ARRAY") | kb.startswith("OBJECT")
    fa, fb = definite_float(ka), definite_float(kb)
    unknown = f.lit(None).cast("boolean")
    cat_a, cat_b = _category(ka), _category(kb)
    # An integer is never a float; a DECIMAL(p>=19,0) is a u64 above i64::MAX or a float:
    # either way it differs from every BIGINT.
    int_vs_number = ((ka == "BIGINT") & kb.startswith("DECIMAL")) | (
        (kb == "BIGINT") & ka.startswith("DECIMAL")
    )
    return (
        f.when(ka.isNull() | kb.isNull(), unknown)
        .when(cont_a & cont_b, unknown)
        .when(cont_a | cont_b, f.lit(False))
        .when(cat_a != cat_b, f.lit(False))
        .when((ka == "STRING") & (kb == "STRING"), typed(a, "string") == typed(b, "string"))
        .when((ka == "BIGINT") & (kb == "BIGINT"), typed(a, "bigint") == typed(b, "bigint"))
        .when((ka == "BOOLEAN") & (kb == "BOOLEAN"), typed(a, "boolean") == typed(b, "boolean"))
        .when((ka == "VOID") & (kb == "VOID"), f.lit(True))
        .when(fa & fb & dec_exact(ka) & dec_exact(kb), typed(a, "double") == typed(b, "double"))
        .when(fa & fb, unknown)
        .when(int_vs_number | ((ka == "BIGINT") & fb) | ((kb == "BIGINT") & fa), f.lit(False))
        .otherwise(unknown)
    )


def _category(k: Any) -> Any:
    """String, bool, null or number (kinds of different categories are never equal)."""
    f = F()
    return f.when(k.isin("STRING", "BOOLEAN", "VOID"), k).otherwise(f.lit("NUMBER"))


@lowers(f"{A}::len", "integer")
def array_len(a: Any) -> tuple[Any, Any]:
    arr, ok = _array(a)
    return as_variant(F().size(arr).cast("bigint")), ok


@lowers(f"{A}::is_empty", "bool")
def array_is_empty(a: Any) -> tuple[Any, Any]:
    arr, ok = _array(a)
    return as_variant(F().size(arr) == 0), ok


@lowers(f"{A}::contains", "bool", "unknown when only undecidable elements could match")
def array_contains(a: Any, v: Any) -> tuple[Any, Any]:
    """``exists`` is three-valued: TRUE on a certain match, NULL if an undecided one remains."""
    arr, ok = _array(a)
    found = F().exists(arr, lambda e: structural_eq(e, v))
    return as_variant(found), ok & found.isNotNull()


@lowers(f"{A}::reverse", "array")
def array_reverse(a: Any) -> tuple[Any, Any]:
    arr, ok = _array(a)
    return F().to_variant_object(F().reverse(arr)), ok


@lowers(f"{A}::push", "array")
def array_push(a: Any, v: Any) -> tuple[Any, Any]:
    arr, ok = _array(a)
    return F().to_variant_object(F().concat(arr, F().array(v))), ok & v.isNotNull()


@lowers(f"{A}::concatenate", "array")
def array_concatenate(a: Any, b: Any) -> tuple[Any, Any]:
    left, ok1 = _array(a)
    right, ok2 = _array(b)
    return F().to_variant_object(F().concat(left, right)), ok1 & ok2


@lowers(f"{A}::coalesce", "array")
def array_coalesce(a: Any) -> tuple[Any, Any]:
    f = F()
    arr, ok = _array(a)
    kept = f.filter(arr, lambda e: ~(e.isNull() | f.is_variant_null(e)))
    return f.to_variant_object(kept), ok


@lowers(f"{R}::len", "integer")
def record_len(r: Any) -> tuple[Any, Any]:
    m, ok = _record(r)
    return as_variant(F().size(m).cast("bigint")), ok


@lowers(f"{R}::is_empty", "bool")
def record_is_empty(r: Any) -> tuple[Any, Any]:
    m, ok = _record(r)
    return as_variant(F().size(m) == 0), ok


@lowers(f"{R}::contains", "bool")
def record_contains(r: Any, key: Any) -> tuple[Any, Any]:
    m, ok = _record(r)
    k = typed(key, "string")
    return as_variant(F().map_contains_key(m, k)), ok & (kind(key) == "STRING")


@lowers(f"{R}::keys", "array", "exact for records of at most one field (VARIANT sorts keys)")
def record_keys(r: Any) -> tuple[Any, Any]:
    m, ok = _record(r)
    return F().to_variant_object(F().map_keys(m)), ok & (F().size(m) <= 1)


@lowers(f"{R}::values", "array", "exact for records of at most one field (VARIANT sorts keys)")
def record_values(r: Any) -> tuple[Any, Any]:
    m, ok = _record(r)
    return F().to_variant_object(F().map_values(m)), ok & (F().size(m) <= 1)


fallback(
    "Tremor's total order (record < array < string < number < bool < null) has no Spark "
    "comparator",
    f"{A}::sort",
)
fallback("renders elements with Rust Display (float and container text)", f"{A}::join")
fallback(
    "recursive or pairwise restructuring with Tremor-specific errors (no predicate consumer)",
    f"{A}::flatten",
    f"{A}::zip",
    f"{A}::unzip",
)
fallback(
    "builds a record or pairs whose key order VARIANT cannot keep (it sorts keys)",
    f"{R}::to_array",
    f"{R}::from_array",
    f"{R}::extract",
    f"{R}::combine",
    f"{R}::rename",
)
fallback("VARIANT keys are sorted; Tremor keeps insertion order", f"{R}::")
