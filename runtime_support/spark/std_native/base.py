"""Shared machinery of the exact native (Spark) lowerings of std-lib functions.

A :class:`Lowering` is attached to a registry entry (``Function.lowering``) by :func:`lowers`.
Its ``build`` takes one VARIANT Column per argument and returns ``(result, exact)``: ``result`` a
VARIANT Column, ``exact`` a boolean Column. Invariant every builder keeps: wherever ``exact`` is
TRUE, ``result`` is the Python implementation's value for the same arguments (the Python
backend reads the event with orjson; the VARIANT with ``parse_json``; the caller guarantees the
two readings agree, see ``runtime_support/spark/prefilter.py``), and the Python implementation does
not raise. Wherever the semantics could differ, or Python raises (wrong types), ``exact`` is FALSE
or NULL; callers treat that as "unknown" and leave the event to Python.

How VARIANT numbers map to Tremor values (probed on Spark 4; see docs/stdlib.md):
``BIGINT`` is an i64 integer; ``DOUBLE`` is a float (exponent form); ``DECIMAL(p,s)`` is a float
when ``s > 0`` or ``p <= 18`` (``1.0`` reads as ``DECIMAL(1,0)``), and ambiguous otherwise (a
u64 above i64::MAX or a long float). Its double value is exact only for ``p <= 15``.

pyspark is imported lazily: the runtime package must import without a Spark session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from runtime_support.tremor.stdlib._table import FUNCTIONS

__all__ = [
    "F",
    "Lowering",
    "as_variant",
    "dec_exact",
    "definite_float",
    "fallback",
    "kind",
    "lowers",
    "typed",
]

Builder = Callable[..., tuple[Any, Any]]


@dataclass(frozen=True)
class Lowering:
    """An exact native lowering: ``build(*variant_columns) -> (variant_result, exact)``."""

    build: Builder
    note: str = ""


def lowers(path: str, returns: str, note: str = "") -> Callable[[Builder], Builder]:
    """Decorator attaching ``build`` as the lowering of the registered function ``path``."""

    def deco(build: Builder) -> Builder:
        fn = FUNCTIONS[path]
        if fn.lowering is not None:
            raise ValueError(f"duplicate lowering for {path}")
        FUNCTIONS[path] = replace(fn, lowering=Lowering(build, note), returns=returns, fallback="")
        return build

    return deco


def fallback(reason: str, *paths: str) -> None:
    """Record why the functions ``paths`` (or every function under a ``prefix::``) stay in
    Python; functions that have a lowering are never touched."""
    for path, fn in list(FUNCTIONS.items()):
        hit = path in paths or any(p.endswith("::") and path.startswith(p) for p in paths)
        if hit and fn.lowering is None and not fn.fallback:
            FUNCTIONS[path] = replace(fn, fallback=reason)


def F() -> Any:
    """``pyspark.sql.functions`` (imported on first use)."""
    from pyspark.sql import functions

    return functions


def kind(v: Any) -> Any:
    """``schema_of_variant(v)``: ``STRING``, ``BIGINT``, ``DECIMAL(p,s)``, ``OBJECT<…>``…"""
    return F().schema_of_variant(v)


def typed(v: Any, spark_type: str) -> Any:
    """The VARIANT ``v`` read as ``spark_type`` (only meaningful after a kind check)."""
    return F().try_variant_get(v, "$", spark_type)


def as_variant(col: Any) -> Any:
    """A scalar Column (string, bigint, boolean, double) as a VARIANT."""
    return col.cast("variant")


def _decimal_ps(k: Any) -> tuple[Any, Any]:
    f = F()
    p = f.regexp_extract(k, r"^DECIMAL\((\d+),(\d+)\)$", 1).try_cast("int")
    s = f.regexp_extract(k, r"^DECIMAL\((\d+),(\d+)\)$", 2).try_cast("int")
    return p, s


def definite_float(k: Any) -> Any:
    """The kind ``k`` is certainly a Tremor float (DOUBLE, or a DECIMAL that is no integer)."""
    p, s = _decimal_ps(k)
    return (k == "DOUBLE") | (k.startswith("DECIMAL") & ((s > 0) | (p <= 18)))


def dec_exact(k: Any) -> Any:
    """The kind ``k`` is a float whose double value Spark computes exactly (DOUBLE, or a
    DECIMAL of at most 15 digits: its unscaled value and 10**scale are exact doubles)."""
    p, _ = _decimal_ps(k)
    return (k == "DOUBLE") | (k.startswith("DECIMAL") & (p <= 15))
