"""A node's live state as bytes for Spark's state store, and back.

What is stored is only what changes while events run: groups, window frames, aggregates,
counters, script ``state``, batch buffers. The program's parts an operator holds (its spec,
window definitions, generated code, configuration) are not stored: the pickle refers to them by
their position in a fixed walk of a fresh operator (pickle's persistent ids), so a restored state
is attached to the code of the job that restores it. A part's id is its attribute path from the
operator (``spec.windows.0``), so a rebuilt job whose edit adds or changes other parts (a
``where``, a target) still finds the parts a state refers to; whether the state keeps its meaning
is :func:`runtime_support.spark.state_store.state_fingerprint`'s to check before the job starts.

Keyed nodes store one entry per key (:class:`KeyedState`): a select's group (its window chain
and creation position) or ``grouper::bucket``'s class. Every other node stores its whole state.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import pickle
import types
from typing import Any

__all__ = ["KeyedState", "StateCodec", "keyed_state"]

_PROGRAM_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
    type,
)


def _is_program_part(value: Any) -> bool:
    """Frozen dataclasses (specs, window definitions, compiled code) and callables."""
    if isinstance(value, _PROGRAM_TYPES):
        return True
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and params.frozen


class StateCodec:
    """Pickles state reachable from one operator, its program parts replaced by their
    attribute path in a fresh instance of that operator (found breadth-first: shortest path)."""

    def __init__(self, fresh_op: Any) -> None:
        self.parts: dict[str, Any] = {}
        self.index: dict[int, str] = {}
        queue: list[tuple[str, Any]] = list(_children(fresh_op, ""))
        seen: set[int] = set()
        while queue:
            path, value = queue.pop(0)
            if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None))):
                continue
            seen.add(id(value))
            if _is_program_part(value):
                self.index[id(value)] = path
                self.parts[path] = value
                if not dataclasses.is_dataclass(value) or isinstance(value, type):
                    continue
            queue.extend(_children(value, path))

    def dumps(self, state: Any) -> bytes:
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        index = self.index

        def persistent_id(value: Any) -> str | None:
            if isinstance(value, (str, int, float, bool, type(None))):
                return None
            found = index.get(id(value))
            if found is None and _is_program_part(value) and not isinstance(value, type):
                raise TypeError(f"state refers to program code not in the job: {value!r}")
            return found

        pickler.persistent_id = persistent_id  # type: ignore[method-assign]
        pickler.dump(state)
        return buffer.getvalue()

    def loads(self, data: bytes) -> Any:
        unpickler = pickle.Unpickler(io.BytesIO(data))
        unpickler.persistent_load = self._part  # type: ignore[method-assign]
        return unpickler.load()

    def _part(self, path: str) -> Any:
        try:
            return self.parts[path]
        except KeyError:
            raise ValueError(f"the stored state refers to {path}, which this job lacks") from None


def _children(value: Any, path: str) -> list[tuple[str, Any]]:
    """``(path, child)`` below ``value``: dict values by key, sequence items by index,
    attributes and dataclass fields by name."""
    prefix = f"{path}." if path else ""
    if isinstance(value, dict):
        return [(f"{prefix}{key!r}", item) for key, item in value.items()]
    if isinstance(value, (list, tuple)):
        return [(f"{prefix}{i}", item) for i, item in enumerate(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f"{prefix}{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value)]
    attrs = getattr(value, "__dict__", None)
    found = (
        [(f"{prefix}{name}", attrs[name]) for name in sorted(attrs)]
        if isinstance(attrs, dict)
        else []
    )
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(value, name):
                found.append((f"{prefix}{name}", getattr(value, name)))
    return found


class KeyedState:
    """The per-key state of a keyed operator: ``keys()``, ``take(key)`` (the key's state, or
    None; the operator forgets it) and ``put(key, state)``. Between two calls of a streaming
    stage the operator holds no key: each call puts the keys it runs and takes them back."""

    def __init__(self, op: Any, attrs: tuple[str, ...]) -> None:
        self.op = op
        self.attrs = attrs

    def keys(self) -> list[str]:
        return list(getattr(self.op, self.attrs[0]))

    def take(self, key: str) -> tuple[Any, ...] | None:
        maps = [getattr(self.op, attr) for attr in self.attrs]
        if key not in maps[0]:
            for table in maps:
                table.pop(key, None)
            return None
        return tuple(table.pop(key, None) for table in maps)

    def put(self, key: str, state: tuple[Any, ...]) -> None:
        for attr, part in zip(self.attrs, state, strict=True):
            getattr(self.op, attr)[key] = part


_KEYED_ATTRS = {
    "SelectOperator": ("groups", "created"),
    "Bucket": ("classes",),
}


def keyed_state(op: Any) -> KeyedState | None:
    """The :class:`KeyedState` view of a keyed operator (a select's groups, a bucket's
    classes); None for an operator whose state is one whole."""
    attrs = _KEYED_ATTRS.get(type(op).__name__)
    return None if attrs is None else KeyedState(op, attrs)
