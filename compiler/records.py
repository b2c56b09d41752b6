"""Frozen, slotted dataclasses whose comparison, hash and repr are shared, not generated.

The AST, IR and plan classes (about a hundred) are ``@record`` classes deriving :class:`Record`.
A record behaves as ``@dataclass(frozen=True, slots=True, kw_only=True)``: the same fields,
``__init__``, immutability, ``dataclasses.fields``/``replace`` and pickling. Its ``__eq__``,
``__hash__`` and ``__repr__`` come from :class:`Record` and give what the dataclass-generated
ones give (same class and equal compared fields; the hash of the hashed fields' tuple; the
class name with the shown fields), read from each class's fields once. ``dataclass`` compiles
every method it generates with ``exec`` when the class is created; leaving these three out
halves what creating the classes costs, which every ``tremorc`` run paid at import. A build
compares or hashes almost no records, so the shared versions cost nothing there.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_SHAPES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _shape(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The fields ``cls`` compares, hashes and shows, as ``dataclass`` chooses them."""
    found = _SHAPES.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        found = _SHAPES[cls] = (
            tuple(f.name for f in fields if f.compare),
            tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)),
            tuple(f.name for f in fields if f.repr),
        )
    return found


class Record:
    """The comparison, hash and repr of every ``@record`` class (see the module doc)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = _shape(self.__class__)[0]
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _shape(self.__class__)[1]))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _shape(self.__class__)[2])
        return f"{self.__class__.__qualname__}({shown})"


def record(cls: T | None = None, *, kw_only: bool = True) -> Any:
    """``@dataclass(frozen=True, slots=True, kw_only=kw_only)`` without generated ``__eq__``,
    ``__hash__`` and ``__repr__``: the class must derive :class:`Record`."""

    def wrap(cls: T) -> T:
        assert issubclass(cls, Record), f"{cls.__name__} must derive Record"
        return dataclasses.dataclass(  # type: ignore[no-any-return]
            frozen=True, slots=True, kw_only=kw_only, eq=False, repr=False
        )(cls)

    return wrap if cls is None else wrap(cls)


__all__ = ["Record", "record"]
