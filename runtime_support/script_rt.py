"""Runtime helpers used only by code generated from tremor-script (the Python backend).

Values follow :mod:`runtime_support.values`. Generated code never mutates a value in place:
nested assignment copies the containers along the path (copy-on-write), so aliasing between
locals, event, meta and state can never leak.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .errors import TremorError
from .highlight import render
from .ops import BINARY, check_bool
from .values import type_name

__all__ = [
    "NO_MATCH",
    "UNSET",
    "assign",
    "bad_assign",
    "binary_lit",
    "deep_merge",
    "fold_done",
    "fold_start",
    "fold_step",
    "guard",
    "items_of",
    "match_array",
    "merge_values",
    "need",
    "no_clause",
    "patch_apply",
    "recursion_limit",
    "render_error",
]


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNSET: Any = _Sentinel("UNSET")
"""Value of a local that was never assigned."""

try:  # the extractors' sentinel, so pattern code can compare with one object
    from .extractors import NO_MATCH as NO_MATCH  # type: ignore[attr-defined]
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

    Missing intermediate records are created; a ``null`` root becomes a record.

    >>> r = {"a": {"b": 1}}
    >>> assign(r, ("a", "c"), 2, 0), r
    ({'a': {'b': 1, 'c': 2}}, {'a': {'b': 1}})
    """
    if not keys:
        return value
    key = keys[0]
    if type(key) is not str:
        raise TremorError(f"Conflicting types, got {type_name(key)} but expected string", site)
    if root is None:
        root = {}
    elif type(root) is not dict:
        raise TremorError(f"Conflicting types, got {type_name(root)} but expected record", site)
    child = root.get(key)
    copy = dict(root)
    copy[key] = assign(child, keys[1:], value, site)
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


_BOOL_FOLDS = ("and", "or", "xor")


def fold_step(op: str, acc: Any, value: Any, site: int) -> Any:
    """One step of ``for … into acc use op``; ``value`` is the case result."""
    t = type(acc)
    if t is list:  # acc is the fold's private copy (fold_start): extend in place
        if op != "+":
            raise TremorError(f"Invalid fold operation {op}", site)
        acc.append(value)
        return acc
    if t is dict:
        if op != "+":
            raise TremorError(f"Invalid fold operation {op}", site)
        if type(value) is not dict:
            raise TremorError(f"Type error: Expected object, found {type_name(value)}", site)
        acc.update(value)
        return acc
    if op in _BOOL_FOLDS:
        v = check_bool(value, op, site)
        a = check_bool(acc, op, site)
        if op == "and":
            return v and a
        if op == "or":
            return v or a
        return v is not a
    fn = BINARY.get(op)
    if fn is None:
        raise TremorError(f"Invalid fold operation {op}", site)
    return fn(acc, value, site)


def fold_start(init: Any) -> Any:
    """The initial accumulator of a fold (a private copy of an array or record)."""
    t = type(init)
    if t is list:
        return list(init)
    if t is dict:
        return dict(init)
    return init


def fold_done(op: str, acc: Any) -> bool:
    """True when a boolean fold can stop early (``and`` at false, ``or`` at true)."""
    return (op == "and" and acc is False) or (op == "or" and acc is True)


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


# -- merge and patch ---------------------------------------------------------------------------


def deep_merge(target: Any, spec: Any) -> Any:
    """Tremor's merge: records merge recursively, anything else replaces (null included)."""
    if type(target) is dict and type(spec) is dict:
        out = dict(target)
        for key, value in spec.items():
            out[key] = deep_merge(out[key], value) if key in out else deep_merge({}, value)
        return out
    return spec


def merge_values(target: Any, spec: Any, target_site: int, spec_site: int) -> Any:
    """``merge target of spec end``: both must be records."""
    if type(target) is not dict:
        raise TremorError(f"Conflicting types, got {type_name(target)} but expected record", target_site)
    if type(spec) is not dict:
        raise TremorError(f"Conflicting types, got {type_name(spec)} but expected record", spec_site)
    return deep_merge(target, spec)


def _merge_conflict(key: str, value: Any, site: int) -> TremorError:
    return TremorError(
        "Merge can only be performed on keys that either do not exist or are records but the "
        f"key '{key}' has the type {type_name(value)}",
        site,
    )


def _default_record(target: dict, spec: dict) -> dict:
    out = dict(target)
    for key, value in spec.items():
        if key not in out:
            out[key] = value
        elif type(out[key]) is dict and type(value) is dict:
            out[key] = _default_record(out[key], value)
    return out


def _patch_one(rec: dict, kind: str, key: Any, value: Any, to: Any, site: int) -> None:
    if kind == "insert":
        if key in rec:
            raise TremorError(f"The key that is supposed to be written to already exists: {key}", site)
        rec[key] = value
    elif kind == "upsert":
        rec[key] = value
    elif kind == "update":
        if key not in rec:
            raise TremorError(f"The key that is supposed to be updated does not exists: {key}", site)
        rec[key] = value
    elif kind == "erase":
        rec.pop(key, None)
    elif kind in ("move", "copy"):
        if to in rec:
            raise TremorError(f"The key that is supposed to be written to already exists: {to}", site)
        if key in rec:
            rec[to] = rec.pop(key) if kind == "move" else rec[key]
    elif kind == "merge":
        if key is None:
            if type(value) is not dict:
                raise _merge_conflict("<target>", value, site)
            merged = deep_merge(rec, value)
            rec.clear()
            rec.update(merged)
        elif key not in rec:
            rec[key] = deep_merge({}, value)
        elif type(rec[key]) is dict and type(value) is dict:
            rec[key] = deep_merge(rec[key], value)
        else:
            raise _merge_conflict(key, value if type(value) is not dict else rec[key], site)
    elif kind in ("default", "default_record"):
        if key is None:
            spec = value() if callable(value) else value
            if type(spec) is not dict:
                raise _merge_conflict("<target>", spec, site)
            merged = _default_record(rec, spec)
            rec.clear()
            rec.update(merged)
        elif key not in rec:
            rec[key] = value() if callable(value) else value
    else:  # pragma: no cover - the parser only produces the kinds above
        raise TremorError(f"unknown patch operation {kind}", site)


def patch_apply(target: Any, ops: tuple, site: int) -> dict:
    """``patch target of ops end``; ``ops`` are ``(kind, key, value, to, site)`` with values
    already evaluated (``default`` values are zero-argument callables, evaluated lazily)."""
    if type(target) is not dict:
        raise TremorError(f"Conflicting types, got {type_name(target)} but expected record", site)
    rec = dict(target)
    for kind, key, value, to, op_site in ops:
        if key is not None and type(key) is not str:
            raise TremorError(f"Conflicting types, got {type_name(key)} but expected string", op_site)
        _patch_one(rec, kind, key, value, to, op_site)
    return rec


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
