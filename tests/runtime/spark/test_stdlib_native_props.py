"""Property tests: every std function's native lowering agrees with its Python implementation.

For each function with ``Function.lowering``, hypothesis draws argument tuples (right and wrong
types, unicode, white space, big and u64 integers, floats such as 1.0, -0.0, halves and exponent
forms), encodes each tuple as the JSON text the Python backend would read, and evaluates the
lowering over ``try_parse_json`` of all rows in one Spark job. Wherever the guard says exact,
the Python implementation (run on ``decode_json`` of the same text) must not raise and must give
the same value, int/float identity included; wherever Python raises, the guard must not say
exact. Each function must also be exact on some rows (the lowering is not vacuous).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.jsonio import decode_json, encode_json
from runtime_support.tremor.stdlib import registry
from runtime_support.tremor.stdlib.std_string import _WS

LOWERED = sorted(f.name for f in registry.functions() if f.lowering is not None)

SPECIAL_CHARS = list(_WS) + list("\x1c\x1f\x00İıßẞΣσςǅ😀é\\E{}'\"") + ["\u0301"]
CHARS = st.one_of(
    st.sampled_from(SPECIAL_CHARS),
    st.characters(max_codepoint=0x7F),
    st.characters(blacklist_categories=("Cs",)),
)
TEXT = st.text(CHARS, max_size=8)
INTS = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(2**63, 2**64 - 1),
)
FLOATS = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e16, 1.5e-7, 2.0**53, 1e300]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-1000, 1000).map(lambda n: n / 4),
)
SCALARS = st.one_of(st.none(), st.booleans(), INTS, FLOATS, TEXT)
ANY = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=6,
)
TYPED = {
    "s": TEXT,
    "u": st.one_of(st.integers(0, 12), INTS),
    "n": st.one_of(INTS, FLOATS),
    "a": st.lists(ANY, max_size=5),
    "r": st.dictionaries(TEXT, ANY, max_size=3),
    "v": ANY,
}
# Argument kinds per function (anything not listed: one value of any type per argument).
SPEC = {
    "std::string::substr": "suu",
    "std::string::replace": "sss",
    "std::string::contains": "ss",
    "std::string::split": "ss",
    "std::array::contains": "av",
    "std::array::push": "av",
    "std::array::concatenate": "aa",
    "std::record::contains": "rs",
    "std::math::max": "nn",
    "std::math::min": "nn",
}
# Fixed rows that must be exact (so no lowering is vacuous) plus known edge cases.
EDGES: dict[str, list[tuple]] = {
    "std::string::substr": [("snot badger", 5, 10), ("abc", 7, 9), ("abc", 2, 1), ("😀é", 1, 2)],
    "std::string::replace": [("aaa", "a", "bb"), ("abc", "", "x")],
    "std::string::split": [("a,,b,", ","), ("ab", ""), (",a", ",")],
    "std::string::contains": [("abc", ""), ("abc", "bc"), ("ab", "x")],
    "std::array::contains": [([1, 1.0, "a"], 1.0), ([1], 1), ([1.0], 1), ([[1]], [1]), ([], 1)],
    "std::math::max": [(1, 2), (1, 2.0), (-0.0, 0.0), (2.5, 2), (-1, -0.0)],
    "std::math::min": [(1, 2), (1, 2.0), (0, -0.0), (2.5, 2), (1, -0.0)],
    "std::record::contains": [({"a": 1}, "a"), ({}, "a")],
    "std::record::keys": [({"a": 1},), ({"b": 1, "a": 2},)],
    "std::record::values": [({"a": 1.0},), ({"b": 1, "a": 2},)],
    "std::math::round": [(2.5,), (-2.5,), (0.49999999999999994,), (1e20,), (7,)],
}


def _args(name: str) -> st.SearchStrategy[tuple]:
    fn = registry.lookup(name)
    spec = SPEC.get(name, "v" * fn.min_arity)
    typed = [st.one_of(TYPED[c], TYPED[c], TYPED[c], ANY) for c in spec]
    return st.tuples(*typed)


def _python(fn: registry.Function, text: str) -> tuple[bool, Any]:
    """(ok, value) of the Python implementation on the arguments as the backend reads them."""
    try:
        return True, registry.call(fn, tuple(decode_json(text)))
    except TremorError:
        return False, None


def matches(native: Any, py: Any) -> bool:
    """The VARIANT value (``toPython``) is the Python value: int/float identity included; a
    DECIMAL stands for a float unless it is integral (then for an equal int or float)."""
    if isinstance(native, Decimal):
        if type(py) is float:
            return float(native) == py
        return type(py) is int and native == py and native == native.to_integral_value()
    if type(native) is float:
        same_sign = math.copysign(1, native) == math.copysign(1, py) if type(py) is float else 0
        return type(py) is float and native == py and bool(same_sign)
    if isinstance(native, list):
        return type(py) is list and len(native) == len(py) and all(map(matches, native, py))
    if isinstance(native, dict):
        return (
            type(py) is dict
            and native.keys() == py.keys()
            and all(matches(native[k], py[k]) for k in native)
        )
    return type(native) is type(py) and native == py


def _evaluate(spark: Any, name: str, rows: list[tuple]) -> list[tuple[str, Any, Any]]:
    """``(json text, native value, exact)`` per argument tuple, in one Spark job."""
    from pyspark.sql import functions as F

    fn = registry.lookup(name)
    texts = [encode_json(list(r)) for r in rows]
    df = spark.createDataFrame([(t,) for t in texts], "t string")
    v = F.try_parse_json("t")
    args = [F.try_variant_get(v, f"$[{i}]", "variant") for i in range(fn.min_arity)]
    result, exact = fn.lowering.build(*args)
    out = df.select("t", F.when(exact, result).alias("r"), exact.alias("e")).collect()
    return [(row.t, None if row.r is None else row.r.toPython(), row.e) for row in out]


def _check(spark: Any, name: str, rows: list[tuple]) -> int:
    fn = registry.lookup(name)
    exact_rows = 0
    for text, native, exact in _evaluate(spark, name, rows):
        ok, py = _python(fn, text)
        if exact:
            exact_rows += 1
            assert ok, f"{name}{text}: native says exact, Python raises"
            assert matches(native, py), f"{name}{text}: native {native!r} != python {py!r}"
    return exact_rows


@pytest.mark.spark
@pytest.mark.parametrize("name", LOWERED)
def test_native_agrees_with_python(name: str, spark: Any) -> None:
    exact_total = 0

    @settings(
        max_examples=2,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(_args(name), min_size=40, max_size=60))
    def prop(rows: list[tuple]) -> None:
        nonlocal exact_total
        exact_total += _check(spark, name, [*EDGES.get(name, []), *rows])

    prop()
    assert exact_total > 0, f"{name}: the lowering was never exact"


def test_every_function_is_lowered_or_explains_why() -> None:
    for fn in registry.functions():
        assert (fn.lowering is None) != (not fn.fallback), fn.name
