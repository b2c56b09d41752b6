"""``std::record``: functions over records (new records are returned, in insertion order)."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import FnError, native, want_array, want_record, want_str

M = "std::record"


@native(f"{M}::len", 1)
def len_(r: Any) -> int:
    """Number of fields."""
    return len(want_record(r))


@native(f"{M}::is_empty", 1)
def is_empty(r: Any) -> bool:
    """True for ``{}``."""
    return not want_record(r)


@native(f"{M}::contains", 2)
def contains(r: Any, key: Any) -> bool:
    """``present r[key]``."""
    return want_str(key) in want_record(r)


@native(f"{M}::keys", 1)
def keys(r: Any) -> list:
    """Field names in record order."""
    return list(want_record(r))


@native(f"{M}::values", 1)
def values(r: Any) -> list:
    """Field values in record order."""
    return list(want_record(r).values())


@native(f"{M}::to_array", 1)
def to_array(r: Any) -> list:
    """``[[key, value], …]``."""
    return [[k, v] for k, v in want_record(r).items()]


@native(f"{M}::from_array", 1)
def from_array(a: Any) -> dict:
    """``[[key, value], …]`` into a record; keys must be strings, pairs two elements long.

    >>> from_array([["a", 1], ["b", 2], ["a", 3]])
    {'a': 3, 'b': 2}
    """
    out: dict = {}
    for pair in want_array(a):
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
            raise FnError(
                "Onlay arrays that consist of tuples (arrays of two elements) can be turned "
                "into records"
            )
        out[pair[0]] = pair[1]
    return out


@native(f"{M}::extract", 2)
def extract(r: Any, names: Any) -> dict:
    """The fields of ``r`` named in ``names`` (non-string names are ignored)."""
    rec = want_record(r)
    return {k: rec[k] for k in want_array(names) if type(k) is str and k in rec}


@native(f"{M}::combine", 2)
def combine(left: Any, right: Any) -> dict:
    """Shallow union; ``right`` wins."""
    return {**want_record(left), **want_record(right)}


@native(f"{M}::rename", 2)
def rename(r: Any, mapping: Any) -> dict:
    """Rename fields that ``mapping`` maps to a string; others keep their names.

    >>> rename({"a": 1, "b": 2}, {"a": "A", "b": 3})
    {'A': 1, 'b': 2}
    """
    rec, names = want_record(r), want_record(mapping)
    out: dict = {}
    for k, v in rec.items():
        new = names.get(k)
        out[new if type(new) is str else k] = v
    return out
