"""``patch``, ``merge`` and the folds of ``for … into … use op``, as Tremor runs them.

Everything here is copy-on-write: inputs are never mutated, so values may be shared freely
between locals, constants and the event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.paths import need_type
from runtime_support.tremor.value_ops import BINARY, invalid_binary
from runtime_support.tremor.values import type_name

__all__ = [
    "deep_merge",
    "fold_init",
    "fold_step",
    "fold_stops",
    "merge",
    "patch",
]

# A patch operation: (kind, key_or_from, value_or_to, site). ``value`` is already evaluated,
# except for "default" and "default_record", where it is a zero-argument callable.
PatchOp = tuple[str, Any, Any, int]


def deep_merge(target: Any, spec: Any) -> Any:
    """Tremor's merge: records merge key by key recursively, anything else replaces.

    ``null`` in ``spec`` sets ``null`` (no RFC 7396 deletion).

    >>> deep_merge({"a": {"x": 1}, "b": 2}, {"a": {"y": 2}, "b": None})
    {'a': {'x': 1, 'y': 2}, 'b': None}
    """
    if type(target) is not dict or type(spec) is not dict:
        return spec
    out = dict(target)
    for k, v in spec.items():
        out[k] = deep_merge(out[k], v) if k in out else v
    return out


def merge(target: Any, spec: Any, target_site: int = -1, spec_site: int = -1) -> dict:
    """``merge target of spec end``: both sides must be records."""
    if type(target) is not dict:
        raise need_type(target, "record", target_site)
    if type(spec) is not dict:
        raise need_type(spec, "record", spec_site)
    return deep_merge(target, spec)


def _merge_conflict(key: str, v: Any, site: int) -> TremorError:
    return TremorError(
        "Merge can only be performed on keys that either do not exist or are records but the "
        f"key '{key}' has the type {type_name(v)}",
        site,
    )


def _key_exists(key: str, site: int) -> TremorError:
    return TremorError(f"The key that is supposed to be written to already exists: {key}", site)


def _apply_default(target: dict, dflt: dict) -> dict:
    out = dict(target)
    for k, v in dflt.items():
        if k not in out:
            out[k] = v
        elif type(out[k]) is dict and type(v) is dict:
            out[k] = _apply_default(out[k], v)
    return out


def _apply_move_copy(obj: dict, kind: str, src: str, dst: str, site: int) -> None:
    if dst in obj:
        raise _key_exists(dst, site)
    if src in obj:
        obj[dst] = obj.pop(src) if kind == "move" else obj[src]


def _apply_merge(obj: dict, key: str, v: Any, site: int) -> None:
    if key not in obj:
        obj[key] = deep_merge({}, v)
        return
    old = obj[key]
    if type(old) is dict and type(v) is dict:
        obj[key] = deep_merge(old, v)
    else:
        raise _merge_conflict(key, old, site)


def _apply_op(obj: dict, op: PatchOp) -> dict:
    """Apply one patch operation to ``obj`` (a private copy); return the (new) record."""
    kind, key, value, site = op
    if kind == "insert":
        if key in obj:
            raise _key_exists(key, site)
        obj[key] = value
    elif kind == "upsert":
        obj[key] = value
    elif kind == "update":
        if key not in obj:
            raise TremorError(
                f"The key that is supposed to be updated does not exists: {key}", site
            )
        obj[key] = value
    elif kind == "erase":
        obj.pop(key, None)
    elif kind in ("move", "copy"):
        _apply_move_copy(obj, kind, key, value, site)
    elif kind == "merge":
        _apply_merge(obj, key, value, site)
    elif kind == "merge_record":
        if type(value) is not dict:
            raise _merge_conflict("<target>", value, site)
        return deep_merge(obj, value)
    elif kind == "default":
        if key not in obj:
            obj[key] = value()
    elif kind == "default_record":
        dflt = value()
        if type(dflt) is not dict:
            raise need_type(dflt, "record", site)
        return _apply_default(obj, dflt)
    else:
        raise ValueError(f"unknown patch operation {kind!r}")
    return obj


def patch(target: Any, ops: Sequence[PatchOp], target_site: int = -1) -> Any:
    """``patch target of ops end`` with every value pre-evaluated (lazy for defaults).

    The target must be a record, which Tremor checks only when there is an operation.

    >>> patch({"a": 1}, [("move", "a", "b", 0), ("insert", "c", 3, 1)])
    {'b': 1, 'c': 3}
    """
    if not ops:
        return target
    if type(target) is not dict:
        raise need_type(target, "record", target_site)
    obj = dict(target)
    for op in ops:
        obj = _apply_op(obj, op)
    return obj


def fold_init(initial: Any) -> Any:
    """A private copy of a comprehension's ``into`` value (``[]`` when there is none)."""
    t = type(initial)
    if t is list:
        return list(initial)
    if t is dict:
        return dict(initial)
    return initial


def _expected_name(v: Any) -> str:
    """value-trait's type names, used in "Type error: Expected object, found …"."""
    t = type(v)
    if t is int:
        return "u64" if v >= 0 else "i64"
    return {float: "f64", dict: "object", bytes: "bytes"}.get(t) or type_name(v)


def _fold_collection(acc: Any, v: Any, op: str, site: int) -> Any:
    if op != "+":
        raise TremorError(f"Invalid fold operation {op}", site)
    if type(acc) is list:
        acc.append(v)
        return acc
    if type(v) is not dict:
        raise TremorError(f"Type error: Expected object, found {_expected_name(v)}", site)
    acc.update(v)
    return acc


def _invalid_bool_fold(op: str, v: Any, site: int) -> TremorError:
    return TremorError(
        f"The binary operation `{op}` is not defined for the type `{type_name(v)}` and "
        "`<not executed>`",
        site,
    )


def _fold_logic(acc: Any, v: Any, op: str, site: int) -> bool:
    if type(acc) is not bool:
        raise _invalid_bool_fold(op, acc, site)
    if type(v) is not bool:
        raise _invalid_bool_fold(op, v, site)
    if op == "and":
        return acc and v
    if op == "or":
        return acc or v
    return acc is not v


def fold_step(acc: Any, v: Any, op: str = "+", site: int = -1) -> Any:
    """Fold one comprehension result ``v`` into ``acc`` (from :func:`fold_init`).

    Arrays collect with ``+``, records take the entries of record results with ``+``; any
    other accumulator folds numerically with an arithmetic op or logically with and/or/xor.

    >>> acc = fold_init(1)
    >>> for v in (2, 3, 4):
    ...     acc = fold_step(acc, v, "*")
    >>> acc
    24
    """
    t = type(acc)
    if t is list or t is dict:
        return _fold_collection(acc, v, op, site)
    if op in ("and", "or", "xor"):
        return _fold_logic(acc, v, op, site)
    ta, tv = type(acc), type(v)
    if (ta is int or ta is float) and (tv is int or tv is float):
        return BINARY[op](acc, v, site)
    raise invalid_binary(op, acc, v, site)


def fold_stops(acc: Any, op: str) -> bool:
    """Whether a logical fold is decided: ``and`` at ``false``, ``or`` at ``true``."""
    if op == "and":
        return acc is False
    if op == "or":
        return acc is True
    return False
