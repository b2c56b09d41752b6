"""Tests for runtime_support.tremor.patching: patch, merge and comprehension folds."""

import pytest

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.patching import (
    deep_merge,
    fold_init,
    fold_step,
    fold_stops,
    merge,
    patch,
)


def _err(fn, *args):
    with pytest.raises(TremorError) as info:
        fn(*args)
    return info.value


def test_merge_corpus_case_sets_null():
    out = merge({"aa": 1, "bb": 2}, {"cc": 2, "bb": 3, "aa": None})
    assert out == {"aa": None, "bb": 3, "cc": 2}


def test_merge_does_not_mutate_inputs():
    target = {"a": {"x": 1}}
    spec = {"a": {"y": 2}}
    out = merge(target, spec)
    assert out == {"a": {"x": 1, "y": 2}}
    assert target == {"a": {"x": 1}}
    assert spec == {"a": {"y": 2}}


def test_merge_type_errors():
    err = _err(merge, 7, {"snot": "badger"}, 3, 4)
    assert (err.message, err.site) == ("Conflicting types, got integer but expected record", 3)
    err = _err(merge, {}, 7, 3, 4)
    assert (err.message, err.site) == ("Conflicting types, got integer but expected record", 4)


def test_deep_merge_replaces_non_records():
    assert deep_merge({"a": [1]}, {"a": {"b": 1}}) == {"a": {"b": 1}}
    assert deep_merge({"a": {"b": 1}}, {"a": 5}) == {"a": 5}
    assert deep_merge(1, {"a": 1}) == {"a": 1}


def test_patch_operations_in_order():
    target = {"a": 1, "b": 2, "m": {"x": 1}}
    ops = [
        ("insert", "c", 3, 0),
        ("upsert", "a", 10, 1),
        ("update", "b", 20, 2),
        ("erase", "zzz", None, 3),
        ("move", "c", "d", 4),
        ("copy", "a", "e", 5),
        ("copy", "missing", "f", 6),
        ("merge", "m", {"y": 2}, 7),
        ("merge", "n", {"z": 3}, 8),
        ("default", "a", lambda: pytest.fail("default must be lazy"), 9),
        ("default", "g", lambda: "dflt", 10),
    ]
    out = patch(target, ops)
    assert out == {
        "a": 10,
        "b": 20,
        "m": {"x": 1, "y": 2},
        "d": 3,
        "e": 10,
        "n": {"z": 3},
        "g": "dflt",
    }
    assert target == {"a": 1, "b": 2, "m": {"x": 1}}


def test_patch_default_record_corpus_cases():
    ops = [("default_record", None, lambda: {"snot": {"badger": "goose"}}, 0)]
    assert patch({"snot": {"badger": 42}}, ops) == {"snot": {"badger": 42}}
    assert patch({"snot": {"otter": 42}}, ops) == {"snot": {"otter": 42, "badger": "goose"}}
    assert patch({"null": None}, ops) == {"null": None, "snot": {"badger": "goose"}}


def test_patch_merge_record():
    assert patch({"a": {"b": 1}}, [("merge_record", None, {"a": {"c": 2}}, 0)]) == {
        "a": {"b": 1, "c": 2}
    }


@pytest.mark.parametrize(
    ("target", "op", "message"),
    [
        (
            {"a": 1},
            ("insert", "a", 2, 5),
            "The key that is supposed to be written to already exists: a",
        ),
        ({}, ("update", "a", 2, 5), "The key that is supposed to be updated does not exists: a"),
        (
            {"a": 1, "b": 2},
            ("move", "a", "b", 5),
            "The key that is supposed to be written to already exists: b",
        ),
        (
            {"b": 2},
            ("copy", "a", "b", 5),
            "The key that is supposed to be written to already exists: b",
        ),
        (
            {},
            ("merge_record", None, "snot", 5),
            "Merge can only be performed on keys that either do not exist or are records but the "
            "key '<target>' has the type string",
        ),
        (
            {"key": 42},
            ("merge", "key", 7, 5),
            "Merge can only be performed on keys that either do not exist or are records but the "
            "key 'key' has the type integer",
        ),
        (
            {"key": {}},
            ("merge", "key", 7, 5),
            "Merge can only be performed on keys that either do not exist or are records but the "
            "key 'key' has the type record",
        ),
        (
            {},
            ("default_record", None, lambda: 1, 5),
            "Conflicting types, got integer but expected record",
        ),
    ],
)
def test_patch_errors(target, op, message):
    err = _err(patch, target, [op])
    assert (err.message, err.site) == (message, 5)


def test_patch_on_non_record():
    err = _err(patch, [], [("move", "a", "b", 1)], 9)
    assert (err.message, err.site) == ("Conflicting types, got array but expected record", 9)
    assert patch([], []) == []  # Tremor only checks the target when applying an operation


def _fold(initial, values, op="+"):
    acc = fold_init(initial)
    for v in values:
        acc = fold_step(acc, v, op, 1)
        if fold_stops(acc, op):
            break
    return acc


def test_folds():
    initial = [1]
    assert _fold(initial, [2, 3]) == [1, 2, 3]
    assert initial == [1]
    assert _fold({}, [{"0": 2}, {"1": 3}, {"0": 4}]) == {"0": 4, "1": 3}
    assert _fold(1, [1, 2, 3, 4], "*") == 24
    assert _fold(0, [1, 2.5], "+") == 3.5
    assert _fold(100, [2, 5], "/") == 10.0
    assert _fold(True, [True, True], "and") is True
    assert _fold(True, [False, 7], "and") is False  # short-circuits before the bad value
    assert _fold(False, [True, 7], "or") is True
    assert _fold(False, [True, True], "xor") is False


@pytest.mark.parametrize(
    ("initial", "values", "op", "message"),
    [
        ([], [1], "/", "Invalid fold operation /"),
        ({}, [{"a": 1}], "/", "Invalid fold operation /"),
        ([], [True], "and", "Invalid fold operation and"),
        ({}, [["k", 1]], "+", "Type error: Expected object, found array"),
        (
            True,
            [1],
            "and",
            "The binary operation `and` is not defined for the type `integer` and `<not executed>`",
        ),
        (
            False,
            [1],
            "or",
            "The binary operation `or` is not defined for the type `integer` and `<not executed>`",
        ),
        (
            "",
            ["a"],
            "+",
            "The binary operation `+` is not defined for the type `string` and `string`",
        ),
        (
            True,
            [True],
            "&",
            "The binary operation `&` is not defined for the type `bool` and `bool`",
        ),
        (2**64 - 1, [1], "+", "The binary operation `+` caused an over- or underflow"),
    ],
)
def test_fold_errors(initial, values, op, message):
    with pytest.raises(TremorError) as info:
        _fold(initial, values, op)
    assert info.value.message == message
    assert info.value.site == 1


def test_fold_over_nothing_keeps_initial():
    assert _fold([], [], "/") == []
