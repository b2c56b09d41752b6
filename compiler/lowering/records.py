"""Symbolic values of the typed lowering: a typed Column IR (``Val``) and a record whose keys,
order and presence are tracked at compile time (``Rec``).

Invariant: a ``Rec`` lists its keys in Tremor's order (insertion order; a new key goes last).
A key in ``maybe`` is a struct field that may be absent (NULL) in a row: reading or replacing it
adds a check sending rows where it is absent to the Python path (a missing key is an error; a
key set while absent would be appended by Tremor, not kept at its struct position).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .predicate import NotNative


class AlwaysPython(Exception):
    """Tremor raises an error on every row reaching this point: the Python path reports it."""


@dataclass(frozen=True)
class Val:
    """A typed value: its IR and its schema type (``"string"``, ``("struct", ...)`` …)."""

    ir: tuple
    typ: object


@dataclass
class Rec:
    """A record under construction: ordered entries, and the keys that may be absent."""

    entries: dict[str, Val | Rec] = field(default_factory=dict)
    maybe: set[str] = field(default_factory=set)

    def copy(self) -> Rec:
        return Rec(
            {k: v.copy() if isinstance(v, Rec) else v for k, v in self.entries.items()},
            set(self.maybe),
        )

    def ir(self) -> tuple:
        """The struct IR (absent-at-runtime keys are NULL: ``to_json`` leaves them out)."""
        if not self.entries:
            raise NotNative("an empty record (Spark has no empty struct)")
        return ("struct", tuple((k, _ir(v)) for k, v in self.entries.items()))

    def present_ir(self, key: str) -> tuple:
        """Boolean IR: is ``key`` present?"""
        if key not in self.entries:
            return ("lit", False)
        if key in self.maybe:
            return ("notnull", _ir(self.entries[key]))
        return ("lit", True)

    def get(self, key: str, checks: list) -> Val | Rec:
        """Read ``key``: absent for sure is an error; maybe absent adds a check."""
        if key not in self.entries:
            raise AlwaysPython(key)
        if key in self.maybe:
            checks.append(("isnull", _ir(self.entries[key])))
            self.maybe.discard(key)
        return self.entries[key]

    def upsert(self, key: str, value: Val | Rec, checks: list) -> None:
        """``let``/``upsert``: replace in place, or append a new key."""
        if key in self.maybe:
            checks.append(("isnull", _ir(self.entries[key])))
            self.maybe.discard(key)
        self.entries[key] = value.copy() if isinstance(value, Rec) else value

    def insert(self, key: str, value: Val | Rec, checks: list) -> None:
        """``insert``: an error when the key is there; appended otherwise."""
        if key in self.entries and (key not in self.maybe or list(self.entries)[-1] != key):
            raise AlwaysPython(key)
        if key in self.maybe:
            checks.append(("notnull", _ir(self.entries[key])))
            self.maybe.discard(key)
        self.entries[key] = value.copy() if isinstance(value, Rec) else value

    def update(self, key: str, value: Val | Rec, checks: list) -> None:
        """``update``: an error when the key is absent."""
        self.get(key, checks)
        self.entries[key] = value.copy() if isinstance(value, Rec) else value

    def erase(self, key: str) -> None:
        self.entries.pop(key, None)
        self.maybe.discard(key)

    def merge(self, spec: Rec, checks: list) -> None:
        """Tremor's merge of a record into this one (a record onto a record recurses)."""
        if spec.maybe:
            raise NotNative("merge of a record whose keys may be absent")
        for key, value in spec.entries.items():
            old = self.entries.get(key)
            if isinstance(value, Rec) and old is not None and _is_record(old):
                raise NotNative("merge of a record into a record (recursive merge)")
            self.upsert(key, value, checks)

    def child_for_write(self, key: str, checks: list) -> Rec:
        """The record at ``key``, expanded for ``let event.key.sub = ...``."""
        value = self.get(key, checks)
        if isinstance(value, Rec):
            return value
        if not _is_record(value):
            raise AlwaysPython(key)
        child = rec_of(value)
        self.entries[key] = child
        return child


def _ir(value: Val | Rec) -> tuple:
    return value.ir() if isinstance(value, Rec) else value.ir


def _is_record(value: Val | Rec) -> bool:
    return isinstance(value, Rec) or (isinstance(value.typ, tuple) and value.typ[0] == "struct")


def rec_of(value: Val) -> Rec:
    """A struct-typed value as a record whose every field may be absent."""
    _, fields = value.typ
    entries = {name: Val(("get", value.ir, name), typ) for name, typ in fields}
    return Rec(entries, set(entries))


def field_of(name: str) -> str:
    """A key the typed path can carry (``to_json`` and orjson write it the same way)."""
    if any(ch in name for ch in '"\\') or any(ord(ch) < 0x20 for ch in name):
        raise NotNative("a key with a quote, backslash or control character")
    return name
