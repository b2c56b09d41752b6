"""Path access (``a.b[1][2:3]``), ``present`` checks and ``let`` assignment, as Tremor does them.

Missing keys and indices are errors, never null. ``root`` is the kind of value a path starts
at, which picks the word in "Trying to access a non existing <word> key": ``event`` ->
"event", ``meta`` (``$``) -> "global", ``state`` -> "state", anything else -> "local".
"""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.values import type_name

__all__ = [
    "INDEX_SEGMENT",
    "assign_into_array",
    "bad_key",
    "get_field",
    "get_index",
    "get_range",
    "missing_local",
    "need_type",
    "present",
]

_ROOT_WORDS = {"event": "event", "meta": "global", "global": "global", "state": "state"}


class _IndexSegment:
    """Marker for an index or range segment in an assignment target (always an error)."""

    def __repr__(self) -> str:
        return "INDEX_SEGMENT"

    def __reduce__(self) -> str:
        return "INDEX_SEGMENT"  # unpickles as the module's singleton (``is`` tests hold in workers)


INDEX_SEGMENT = _IndexSegment()


def need_type(got: Any, expected: str, site: int = -1) -> TremorError:
    """``Conflicting types, got <type of got> but expected <expected>``."""
    return TremorError(f"Conflicting types, got {type_name(got)} but expected {expected}", site)


def bad_key(key: str, root: str, site: int = -1) -> TremorError:
    """The error for a missing record key under a path rooted at ``root``."""
    word = _ROOT_WORDS.get(root, "local")
    return TremorError(f"Trying to access a non existing {word} key `{key}`", site)


def missing_local(name: str, site: int = -1) -> TremorError:
    """The error for reading a local that was never assigned."""
    return bad_key(name, "local", site)


def assign_into_array(site: int = -1) -> TremorError:
    """The error for an index or range segment in an assignment target."""
    return TremorError("It is not supported to assign value into an array", site)


def _out_of_bounds(start: int, end: int, length: int, site: int) -> TremorError:
    if start == end:
        got, want = f"index {start}", f"an index in the range 0:{length}"
    else:
        got, want = f"index range {start}:{end}", f"a subrange of 0:{length}"
    return TremorError(f"Array index out of bounds, got {got} but expected {want}", site)


def get_field(v: Any, key: str, root: str = "local", site: int = -1) -> Any:
    """``v.key``: a record lookup.

    >>> get_field({"a": 1}, "a")
    1
    """
    if type(v) is dict:
        try:
            return v[key]
        except KeyError:
            raise bad_key(key, root, site) from None
    raise need_type(v, "record", site)


def _to_index(idx: Any, length: int, site: int) -> int:
    """A value used as an array index (or range bound): a non-negative integer."""
    if type(idx) is int:
        if idx >= 0:
            return idx
        raise TremorError(
            f"Bad array index, got `{idx}` but expected an index in the range 0:{length}", site
        )
    raise need_type(idx, "integer", site)


def get_index(v: Any, idx: Any, root: str = "local", site: int = -1) -> Any:
    """``v[idx]``: a string indexes a record, an integer an array.

    >>> get_index([1, 2, 3], 2), get_index({"k": "v"}, "k")
    (3, 'v')
    """
    tv, ti = type(v), type(idx)
    if tv is dict:
        if ti is str:
            return get_field(v, idx, root, site)
        raise need_type(idx, "string", site)
    if tv is list:
        i = _to_index(idx, len(v), site)
        if i < len(v):
            return v[i]
        raise _out_of_bounds(i, i, len(v), site)
    if ti is str:
        raise need_type(v, "record", site)
    if ti is int and idx >= 0:
        raise need_type(v, "array", site)
    raise TremorError("Oops: Bad path segments", site)


def get_range(
    v: Any, start: Any, end: Any, site: int = -1, start_site: int = -1, end_site: int = -1
) -> list:
    """``v[start:end]``: a fresh sub-array, end exclusive.

    ``site`` is the range segment, ``start_site``/``end_site`` the bound expressions (type and
    sign errors point at those; unknown ones fall back to ``site``).

    >>> get_range([0, 1, 2, 3], 1, 3)
    [1, 2]
    """
    if type(v) is not list:
        raise need_type(v, "array", site)
    n = len(v)
    s = _to_index(start, n, start_site if start_site >= 0 else site)
    e = _to_index(end, n, end_site if end_site >= 0 else site)
    if e < s:
        raise TremorError(
            f"A range's end cannot be smaller than its start, {s}:{e} is invalid", site
        )
    if e > n:
        raise _out_of_bounds(s, e, n, site)
    return v[s:e]


def _present_range(v: Any, bounds: tuple, site: int) -> tuple[bool, Any]:
    s, e = bounds
    if type(s) is not int:
        raise need_type(s, "integer", site)
    if type(e) is not int:
        raise need_type(e, "integer", site)
    if type(v) is not list or s < 0:
        return False, None
    if e < s:
        raise TremorError(
            f"A range's end cannot be smaller than its start, {s}:{e} is invalid", site
        )
    return e <= len(v), v[s:e]


def _present_step(v: Any, seg: Any, site: int) -> tuple[bool, Any]:
    ts = type(seg)
    if ts is tuple:
        return _present_range(v, seg, site)
    tv = type(v)
    if tv is dict:
        if ts is str and seg in v:
            return True, v[seg]
        return False, None
    if tv is list:
        if ts is not int:
            raise need_type(seg, "integer", site)
        if 0 <= seg < len(v):
            return True, v[seg]
    return False, None


def present(v: Any, segments: tuple = (), site: int = -1) -> bool:
    """``present <path>``: walk ``segments`` without failing on missing parts.

    A segment is a ``str`` (field or string key), an ``int`` (index) or a ``(start, end)``
    tuple (range). Only a decreasing range, a non-integer range bound or a non-integer key
    into an array raise.

    >>> present({"a": [1, 2]}, ("a", 1)), present({"a": [1, 2]}, ("a", 2)), present(3, ("x",))
    (True, False, False)
    """
    for seg in segments:
        ok, v = _present_step(v, seg, site)
        if not ok:
            return False
    return True
