"""``@record`` classes (compiler/records.py) compare, hash and print as the equivalent
``@dataclass(frozen=True, slots=True, kw_only=True)`` does, and every AST, IR and plan class
is one."""

from __future__ import annotations

import dataclasses
import importlib
import pickle
from dataclasses import dataclass, field

import pytest

from compiler.records import Record, record
from compiler.source import Span


@record
class Shown(Record):
    name: str
    items: tuple = ()
    hidden: int = field(default=0, repr=False)
    span: Span = field(default=Span(0, 0), compare=False, repr=False)
    weight: float = field(default=1.0, hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Generated:
    name: str
    items: tuple = ()
    hidden: int = field(default=0, repr=False)
    span: Span = field(default=Span(0, 0), compare=False, repr=False)
    weight: float = field(default=1.0, hash=False)


@record(kw_only=False)
class Positional(Record):
    a: int
    b: str = "x"


VALUES = [
    {"name": "a"},
    {"name": "a", "span": Span(3, 4)},
    {"name": "a", "hidden": 2},
    {"name": "a", "items": (1, (2, "b"))},
    {"name": "a", "weight": 2.0},
    {"name": "b", "items": (float("nan"),)},
]


@pytest.mark.parametrize("left", VALUES)
@pytest.mark.parametrize("right", VALUES)
def test_same_answers_as_dataclass(left: dict, right: dict) -> None:
    ours = (Shown(**left), Shown(**right))
    theirs = (Generated(**left), Generated(**right))
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) == (theirs[0] != theirs[1])
    assert hash(ours[0]) == hash(theirs[0])
    assert repr(ours[0]) == repr(theirs[0]).replace("Generated(", "Shown(")


def test_a_record_is_a_frozen_slotted_dataclass() -> None:
    value = Shown(name="a", items=(1,))
    assert dataclasses.is_dataclass(value) and not hasattr(value, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.name = "b"  # type: ignore[misc]
    assert dataclasses.replace(value, name="b") == Shown(name="b", items=(1,))
    assert pickle.loads(pickle.dumps(value)) == value
    assert value != Generated(name="a", items=(1,))  # another class is never equal
    assert (
        Positional(1) == Positional(a=1, b="x") and repr(Positional(1)) == "Positional(a=1, b='x')"
    )


@pytest.mark.parametrize(
    "module",
    [
        "compiler.ast.common",
        "compiler.ast.script",
        "compiler.ast.query",
        "compiler.ast.deploy",
        "compiler.ir.graph",
        "compiler.ir.flow",
        "compiler.plan.model",
    ],
)
def test_every_tree_class_is_a_record(module: str) -> None:
    classes = [
        value
        for value in vars(importlib.import_module(module)).values()
        if isinstance(value, type)
        and value.__module__ == module
        and dataclasses.is_dataclass(value)
    ]
    assert classes
    for cls in classes:
        assert issubclass(cls, Record), cls
        assert not {"__eq__", "__hash__", "__repr__"} & cls.__dict__.keys(), cls
