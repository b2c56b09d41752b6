"""Frozen, slotted dataclasses whose methods are shared or made on first use, not at import.

The AST, IR and plan classes (about a hundred) and the compiler's other frozen value classes are
``@record`` classes deriving :class:`Record`.
A record behaves as ``@dataclass(frozen=True, slots=True, kw_only=True)``: the same fields,
``__init__`` (its signature, defaults, default factories, ``init=False`` fields and
``__post_init__``), immutability (``FrozenInstanceError``), ``dataclasses.fields``/``replace``,
copying and pickling. What differs is when the methods come to exist. ``dataclass`` compiles
every method it generates with ``exec`` when the class is created, six per frozen class, and
every ``tremorc`` run paid that at import for classes most builds never instantiate. Here
``__eq__``, ``__hash__``, ``__repr__``, ``__setattr__`` and ``__delattr__`` are :class:`Record`'s
own, read from each class's fields once; ``__init__`` is compiled the first time the class is
instantiated, then replaces the stub on that class.
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
    """The shared methods of every ``@record`` class (see the module doc)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Compile this class's ``__init__``, put it on the class, and run it."""
        _compile_init(self.__class__)(self, *args, **kwargs)

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

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> list[object]:
        return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]

    def __setstate__(self, state: list[object]) -> None:
        for f, value in zip(dataclasses.fields(self), state, strict=True):  # type: ignore[arg-type]
            object.__setattr__(self, f.name, value)


def record(cls: T | None = None, *, kw_only: bool = True) -> Any:
    """``@dataclass(frozen=True, slots=True, kw_only=kw_only)`` whose methods are
    :class:`Record`'s, which the class must derive; its ``__init__`` is compiled on first use."""

    def wrap(cls: T) -> T:
        assert issubclass(cls, Record), f"{cls.__name__} must derive Record"
        made = dataclasses.dataclass(slots=True, kw_only=kw_only, init=False, eq=False, repr=False)(
            cls
        )
        _check_order(made)
        made.__init__ = Record.__init__  # type: ignore[misc] # each class compiles its own
        return made  # type: ignore[no-any-return]

    return wrap if cls is None else wrap(cls)


def _check_order(cls: type) -> None:
    """What ``dataclass`` checks when it makes ``__init__``: no positional parameter without a
    default after one with a default."""
    defaulted = False
    for f in dataclasses.fields(cls):
        if not f.init or f.kw_only:
            continue
        has_default = f.default is not dataclasses.MISSING
        has_default = has_default or f.default_factory is not dataclasses.MISSING
        if defaulted and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        defaulted = defaulted or has_default


_NO_ARGUMENT = object()  # a default factory's parameter default: the factory runs instead


def _compile_init(cls: type) -> Any:
    """``cls``'s ``__init__`` as ``dataclass(frozen=True)`` writes it (each field stored through
    its slot's descriptor), set on ``cls``."""
    names: dict[str, object] = {"_NO_ARGUMENT": _NO_ARGUMENT}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):
        names[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default_factory is not dataclasses.MISSING:
            names[f"_factory_{f.name}"] = f.default_factory
            made = f"_factory_{f.name}()"
            if f.init:
                param = f"{f.name}=_NO_ARGUMENT"
                value = f"{made} if {f.name} is _NO_ARGUMENT else {f.name}"
            else:
                param, value = "", made
        elif f.default is not dataclasses.MISSING:
            names[f"_default_{f.name}"] = f.default
            param, value = f"{f.name}=_default_{f.name}", f.name
            if not f.init:
                param, value = "", f"_default_{f.name}"
        else:
            param, value = (f.name, f.name) if f.init else ("", "")
        if param:
            (keyword if f.kw_only else positional).append(param)
        if value:
            body.append(f"    _set_{f.name}(self, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + ("\n".join(body) or "    pass")
    exec(source, names)  # noqa: S102 - the parameter and field names are identifiers
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[misc]
    return init


__all__ = ["Record", "record"]
