"""Runtime helpers used only by code generated from tremor-script (the Python backend).

Values follow :mod:`runtime_support.tremor.values`. Generated code never mutates a value in place:
nested assignment copies the containers along the path (copy-on-write), so aliasing between
locals, event, meta and state can never leak.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.highlight import render
from runtime_support.tremor.paths import INDEX_SEGMENT, assign_into_array, need_type
from runtime_support.tremor.values import total_cmp, type_name

__all__ = [
    "LITERAL_RUN",
    "LiteralTable",
    "NO_MATCH",
    "UNSET",
    "assign",
    "assign_key",
    "bad_assign",
    "binary_lit",
    "field_run_case",
    "guard",
    "items_of",
    "match_array",
    "need",
    "no_clause",
    "recursion_limit",
    "render_error",
]


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        # Pickle as a reference to the module global of that name, so the identity test
        # ``value is UNSET`` survives shipping generated code to Spark workers.
        return self.name


UNSET: Any = _Sentinel("UNSET")
"""Value of a local that was never assigned."""

try:  # the extractors' sentinel, so pattern code can compare with one object
    from runtime_support.tremor.extractors.base import NO_MATCH as NO_MATCH
except ImportError:  # pragma: no cover - extractors package not built yet
    NO_MATCH = _Sentinel("NO_MATCH")


def need(value: Any, name: str, site: int) -> Any:
    """Return a local's value, or raise Tremor's error if it was never assigned."""
    if value is UNSET:
        raise TremorError(f"Trying to access a non existing local key `{name}`", site)
    return value


def guard(value: Any, site: int) -> bool:
    """A ``when`` guard's value, which must be a bool (no truthiness)."""
    if type(value) is bool:
        return value
    raise TremorError(f"Conflicting types, got {type_name(value)} but expected bool", site)


def no_clause(site: int) -> TremorError:
    """The error of a ``match`` whose clauses all failed."""
    return TremorError("A match expression executed but no clause matched", site)


def recursion_limit(site: int) -> TremorError:
    """The error raised when ``recur`` exceeds the recursion limit."""
    return TremorError("Recursion limit Reached", site)


def bad_assign(site: int, message: str = "Can't assign to a constant expression") -> TremorError:
    """The error of a ``let`` to a target that cannot be assigned."""
    return TremorError(message, site)


def assign(root: Any, keys: tuple[Any, ...], value: Any, site: int) -> Any:
    """Return ``root`` with ``value`` stored at the record path ``keys`` (copy-on-write).

    Missing intermediate records are created; an existing non-record (``null`` included) on
    the way is an error (as in Tremor's nested ``let``). An index or range
    segment (``INDEX_SEGMENT``) or a non-string key is an error.

    >>> r = {"a": {"b": 1}}
    >>> assign(r, ("a", "c"), 2, 0), r
    ({'a': {'b': 1, 'c': 2}}, {'a': {'b': 1}})
    """
    if not keys:
        return value
    key = keys[0]
    if key is INDEX_SEGMENT:
        raise assign_into_array(site)
    if type(key) is not str:
        raise need_type(key, "string", site)
    if type(root) is not dict:
        raise need_type(root, "record", site)
    copy = dict(root)
    copy[key] = assign(root[key] if key in root else {}, keys[1:], value, site)
    return copy


def assign_key(root: Any, key: str, value: Any, site: int) -> Any:
    """``assign(root, (key,), value, site)`` for one field name ``key``: ``root`` (a record,
    else the same error) copied with ``key`` set to ``value``.

    >>> r = {"a": 1}
    >>> assign_key(r, "b", 2, 0), r
    ({'a': 1, 'b': 2}, {'a': 1})
    """
    if type(root) is not dict:
        raise need_type(root, "record", site)
    copy = dict(root)
    copy[key] = value
    return copy


def items_of(target: Any) -> Iterable[tuple[Any, Any]]:
    """The ``(key, value)`` pairs a ``for`` iterates: record items, array (index, element),
    nothing for any other value."""
    t = type(target)
    if t is dict:
        return list(target.items())
    if t is list:
        return list(enumerate(target))
    return ()


def match_array(target: list, preds: tuple[Callable[[Any], Any], ...]) -> Any:
    """``%[p1, …]``: each predicate must match some element; returns the ``[index, value]``
    pairs grouped by predicate, or NO_MATCH. A predicate returns NO_MATCH, or ``None`` to
    match without contributing (``_``), or the bound value wrapped in a 1-tuple."""
    found: list = []
    for pred in preds:
        hit = False
        for index, element in enumerate(target):
            res = pred(element)
            if res is NO_MATCH:
                continue
            hit = True
            if res is not None:
                found.append([index, res[0]])
        if not hit:
            return NO_MATCH
    return found


# -- binary literals ---------------------------------------------------------------------------

_LITTLE = ("little", "little_integer", "little_unsigned_integer", "little_signed_integer")


def _part_bits(value: Any, bits: int | None, kind: str, site: int) -> tuple[int, int]:
    """One binary-literal part as (number of bits, unsigned integer holding them)."""
    if kind == "binary":
        if type(value) is str:
            value = value.encode()
        if type(value) is not bytes:
            raise TremorError(f"Conflicting types, got {type_name(value)} but expected bytes", site)
        n = bits if bits is not None else 8 * len(value)
        whole = int.from_bytes(value, "big") if value else 0
        return n, whole >> max(0, 8 * len(value) - n) if n < 8 * len(value) else whole
    if type(value) is not int:
        raise TremorError(f"Conflicting types, got {type_name(value)} but expected integer", site)
    n = bits if bits is not None else 8
    signed = "signed" in kind and "unsigned" not in kind
    if not signed and value < 0:
        raise TremorError(f"Conflicting types, got {type_name(value)} but expected integer", site)
    raw = value & ((1 << n) - 1)
    if kind in _LITTLE and n % 8 == 0:
        raw = int.from_bytes(raw.to_bytes(n // 8, "big"), "little")
    return n, raw


def binary_lit(parts: tuple, site: int) -> bytes:
    """``<< data:bits/type, … >>``: parts packed big-endian bit by bit; a trailing partial byte
    is right-aligned."""
    acc = 0
    total = 0
    for value, bits, kind in parts:
        n, raw = _part_bits(value, bits, kind, site)
        acc = (acc << n) | raw
        total += n
    full, rest = divmod(total, 8)
    head = (acc >> rest).to_bytes(full, "big") if full else b""
    if rest:
        head += bytes([acc & ((1 << rest) - 1)])
    return head


def _clamp(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """Keep a span out of the empty line after a final newline (Rust ``lines()`` drops it)."""
    limit = len(text) - 1 if text.endswith("\n") else len(text)
    return (min(span[0], limit), max(min(span[1], limit), min(span[0], limit)))


def render_error(err: TremorError, source_text: str, sites: tuple) -> str:
    """Tremor's rendering of a runtime error raised by generated script code."""
    if err.site < 0 or err.site >= len(sites):
        return f"Error: {err.message}"
    i_start, i_end, o_start, o_end = sites[err.site]
    outer = _clamp(source_text, (o_start, o_end))
    return render(source_text, inner=(i_start, i_end), outer=outer, message=err.message)


LITERAL_RUN = 16
"""Tremor looks up a run of at least this many guard-free literal ``case``s in an ordered map."""


def _literal_cmp(a: Any, b: Any) -> int:
    """The ordered-map key order: §0's total order, except that a float and an integer compare
    by the integer the float truncates to (so ``1.5`` finds ``case 1``)."""
    a_num = type(a) in (int, float)
    b_num = type(b) in (int, float)
    if a_num and b_num and type(a) is not type(b):
        fa, ib = (a, b) if type(a) is float else (b, a)
        if fa != fa or fa in (float("inf"), float("-inf")):
            return total_cmp(a, b)
        t = math.trunc(fa)
        order = (t > ib) - (t < ib)
        return order if type(a) is float else -order
    return total_cmp(a, b)


def field_run_case(
    run: tuple[dict[str, int], tuple[tuple[int, dict[str, int]], ...]], subject: Any, key: str
) -> int:
    """The index of the first case of a field run on ``key`` that ``subject`` meets, or -1.
    ``run`` is ``(equal, prefixes)``: ``equal`` maps each ``== "string"`` case's string to its
    first index, ``prefixes`` (by ascending length) each ``~= glob|prefix*|`` case's prefix to
    its first index. Only a string field of a record meets either (``==`` with a string literal;
    a glob extractor takes strings only)."""
    if type(subject) is not dict:
        return -1
    value = subject.get(key)
    if type(value) is not str:
        return -1
    equal, prefixes = run
    best = equal.get(value, -1)
    size = len(value)
    for length, table in prefixes:
        if length > size:
            break
        found = table.get(value[:length], -1)
        if found != -1 and (best == -1 or found < best):
            best = found
    return best


class LiteralTable:
    """The keys of a literal ``case`` run, sorted for binary search; ``lookup`` gives the index
    of the case (in source order) that Tremor's ordered lookup finds, or -1."""

    __slots__ = ("keys", "cases")

    def __init__(self, literals: tuple[Any, ...]) -> None:
        entries: list[tuple[Any, int]] = []
        for index, value in enumerate(literals):
            if not any(_literal_cmp(value, k) == 0 for k, _ in entries):
                entries.append((value, index))
        entries.sort(key=cmp_to_key(lambda x, y: _literal_cmp(x[0], y[0])))
        self.keys = [k for k, _ in entries]
        self.cases = [i for _, i in entries]

    def lookup(self, subject: Any) -> int:
        lo, hi = 0, len(self.keys)
        while lo < hi:
            mid = (lo + hi) // 2
            order = _literal_cmp(self.keys[mid], subject)
            if order == 0:
                return self.cases[mid]
            if order < 0:
                lo = mid + 1
            else:
                hi = mid
        return -1
