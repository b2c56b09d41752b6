"""``std::path``: safe lookups into nested values."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import BadType, native, want_array

M = "std::path"


def _step(cur: Any, seg: Any) -> tuple[bool, Any]:
    if type(cur) is dict and type(seg) is str and seg in cur:
        return True, cur[seg]
    if type(cur) is list and type(seg) is int and 0 <= seg < len(cur):
        return True, cur[seg]
    return False, None


@native(f"{M}::try_default", 3)
def try_default(base: Any, segments: Any, default: Any) -> Any:
    """Walk ``base`` by string keys / integer indexes; any miss gives ``default``.

    >>> try_default({"snot": ["badger"]}, ["snot", 0], "horse")
    'badger'
    >>> try_default(None, [], "horse")
    'horse'
    """
    segs = want_array(segments)
    if base is None:
        return default
    if type(base) not in (dict, list):
        raise BadType()
    cur = base
    for seg in segs:
        found, cur = _step(cur, seg)
        if not found:
            return default
    return cur
