"""Tests for runtime_support.tremor.values: Tremor equality, type names and ordering."""

from functools import cmp_to_key

import pytest

from runtime_support.tremor.values import structural_eq, total_cmp, tremor_eq, type_name


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 1.0, True),
        (1e-17, 0.0, True),
        (0.1 + 0.2, 0.3, True),
        (1.0, 1.1, False),
        (2**64 - 1, 2**64 - 2, False),  # exact integer compare, no f64 rounding
        (-1, 2**64 - 1, False),
        ("a", b"a", True),
        (b"a", "b", False),
        (True, 1, False),
        (None, None, True),
        (None, False, False),
        ([1, [2.0]], [1.0, [2]], True),
        ([1], [1, 2], False),
        ({"a": 1, "b": 2}, {"b": 2.0, "a": 1}, True),
        ({"a": 1}, {"b": 1}, False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        (float("nan"), float("nan"), False),
    ],
)
def test_tremor_eq(a, b, expected):
    assert tremor_eq(a, b) is expected
    assert tremor_eq(b, a) is expected


def test_structural_eq_is_exact():
    assert not structural_eq(1, 1.0)
    assert not structural_eq("a", b"a")
    assert not structural_eq(True, 1)
    assert structural_eq({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not structural_eq({"a": [1]}, {"a": [1.0]})


def test_type_names():
    assert type_name(True) == "bool"
    assert type_name(2**64 - 1) == "integer"
    with pytest.raises(TypeError):
        type_name(object())


def test_total_order_between_types():
    values = [None, True, 1, "s", [1], {"a": 1}, b"a", 0.5]
    ordered = sorted(values, key=cmp_to_key(total_cmp))
    assert ordered == [{"a": 1}, [1], b"a", "s", 0.5, 1, True, None]


def test_total_order_within_types():
    assert total_cmp([1, 2], [1, 3]) == -1
    assert total_cmp([1, 2], [1]) == 1
    assert total_cmp({"a": 1}, {"a": 1, "b": 0}) == -1
    assert total_cmp({"a": 2}, {"b": 1}) == -1
    assert total_cmp({"a": 2}, {"a": 1}) == 1
    assert total_cmp(False, True) == -1
    assert total_cmp(2**64 - 1, 2**64 - 2) == 1
    assert total_cmp("é", "z") == 1  # UTF-8 bytes, not code points of a narrow encoding
