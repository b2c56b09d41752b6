"""Tests for runtime_support.tremor.paths: access, present and let-assignment semantics."""

import pytest

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.paths import (
    INDEX_SEGMENT,
    get_field,
    get_index,
    get_range,
    missing_local,
    present,
)
from runtime_support.tremor.script_rt import assign


def _msg(fn, *args, **kwargs):
    with pytest.raises(TremorError) as info:
        fn(*args, **kwargs)
    return info.value


def test_field_access_and_missing_key_words():
    assert get_field({"a": {"b": 2}}, "a") == {"b": 2}
    assert _msg(get_field, {"snot": 1}, "badger", "event").message == (
        "Trying to access a non existing event key `badger`"
    )
    assert _msg(get_field, {}, "x", "meta").message == (
        "Trying to access a non existing global key `x`"
    )
    assert _msg(get_field, {}, "x", "state").message == (
        "Trying to access a non existing state key `x`"
    )
    assert _msg(get_field, {}, "x", "local").message == (
        "Trying to access a non existing local key `x`"
    )
    assert _msg(get_field, 42, "x", "event").message == (
        "Conflicting types, got integer but expected record"
    )


def test_missing_local_message():
    assert missing_local("missing_var", 3).message == (
        "Trying to access a non existing local key `missing_var`"
    )
    assert missing_local("x", 3).site == 3


def test_index_access():
    assert get_index([1, 2, 3], 0) == 1
    assert get_index({"badger": 1}, "badger") == 1
    err = _msg(get_index, [1, 2, 3], 42, "event", 7)
    assert err.message == (
        "Array index out of bounds, got index 42 but expected an index in the range 0:3"
    )
    assert err.site == 7
    assert _msg(get_index, 42, 42).message == "Conflicting types, got integer but expected array"
    assert _msg(get_index, {"a": 1}, [1]).message == (
        "Conflicting types, got array but expected string"
    )
    assert _msg(get_index, [1], "k").message == (
        "Conflicting types, got string but expected integer"
    )
    assert _msg(get_index, "str", "k").message == (
        "Conflicting types, got string but expected record"
    )
    assert _msg(get_index, {"a": 1}, "badger", "event").message == (
        "Trying to access a non existing event key `badger`"
    )
    assert _msg(get_index, [1, 2, 3], -1).message == (
        "Bad array index, got `-1` but expected an index in the range 0:3"
    )


def test_range_access():
    v = [0, 1, 2, 3]
    out = get_range(v, 1, 3)
    assert out == [1, 2]
    assert out is not v
    assert get_range(v, 4, 4) == []
    assert get_index(get_range(["a", "b", "c"], 1, 3), 1) == "c"
    assert _msg(get_index, get_range(["a", "b", "c"], 1, 3), 2).message == (
        "Array index out of bounds, got index 2 but expected an index in the range 0:2"
    )
    assert _msg(get_range, "abc", 1, 4).message == (
        "Conflicting types, got string but expected array"
    )
    err = _msg(get_range, [0, 1, 2], "bad", 2, 5, 9)
    assert err.message == "Conflicting types, got string but expected integer"
    assert err.site == 9
    assert _msg(get_range, [0, 1, 2], -1, 4).message == (
        "Bad array index, got `-1` but expected an index in the range 0:3"
    )
    assert _msg(get_range, [0, 1, 2], 2, 1).message == (
        "A range's end cannot be smaller than its start, 2:1 is invalid"
    )
    assert _msg(get_range, [0, 1, 2], 1, 5).message == (
        "Array index out of bounds, got index range 1:5 but expected a subrange of 0:3"
    )
    assert _msg(get_range, [0, 1, 2], 5, 5).message == (
        "Array index out of bounds, got index 5 but expected an index in the range 0:3"
    )


def test_present():
    v = {"a": [1, {"b": None}], "s": "x"}
    assert present(v, ())
    assert present(v, ("a", 1, "b"))
    assert not present(v, ("a", 2))
    assert not present(v, ("a", -1))
    assert not present(v, ("missing", "deeper"))
    assert not present(v, ("s", "x"))
    assert not present(v, ("a", 0, 0))
    assert present(v, ("a", (0, 2), 1))
    assert not present(v, ("a", (0, 3)))
    assert not present(v, ("a", (0, 2), 2))
    assert not present(v, (1,))  # integer key into a record
    assert _msg(present, v, ("a", "k")).message == (
        "Conflicting types, got string but expected integer"
    )
    assert _msg(present, v, ("a", (2, 1))).message == (
        "A range's end cannot be smaller than its start, 2:1 is invalid"
    )
    assert _msg(present, v, ("a", ("x", 1))).message == (
        "Conflicting types, got string but expected integer"
    )


def test_assign_creates_records_and_overwrites_without_mutating():
    d = {"a": {"keep": 1}}
    assert assign(d, ("a", "b", "c"), 5, 0) == {"a": {"keep": 1, "b": {"c": 5}}}
    assert d == {"a": {"keep": 1}}
    assert assign(d, ("a",), [1], 0) == {"a": [1]}


def test_assign_errors():
    err = _msg(assign, {"a": 5}, ("a", "b"), 1, 11)
    assert err.message == "Conflicting types, got integer but expected record"
    assert err.site == 11
    assert _msg(assign, {"a": None}, ("a", "b"), 1, 0).message == (
        "Conflicting types, got null but expected record"
    )
    assert _msg(assign, {"a": {}}, ("a", INDEX_SEGMENT), 1, 0).message == (
        "It is not supported to assign value into an array"
    )
    assert _msg(assign, {}, (3,), 1, 0).message == (
        "Conflicting types, got integer but expected string"
    )
    assert _msg(assign, 7, ("x",), 1, 0).message == (
        "Conflicting types, got integer but expected record"
    )
