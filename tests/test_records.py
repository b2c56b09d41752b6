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


@record
class Parent(Record):
    name: str
    tags: list = field(default_factory=list)


@record
class Child(Parent):
    size: int = 0
    seen: list = field(default_factory=list, init=False)
    total: int = field(init=False, default=-1)

    def __post_init__(self) -> None:
        self.seen.append(self.size)


def test_init_is_made_on_first_use_per_class() -> None:
    assert Parent.__init__ is Child.__init__ is Record.__init__  # no class compiled one yet
    first, second = Parent(name="a"), Parent(name="b")
    assert Parent.__init__ is not Record.__init__ and Child.__init__ is Record.__init__
    assert first.tags == [] and first.tags is not second.tags  # a fresh list each time
    child = Child(name="c", size=2)  # a subclass does not inherit its parent's compiled init
    assert (child.name, child.tags, child.size, child.seen, child.total) == ("c", [], 2, [2], -1)
    with pytest.raises(TypeError):
        Child(name="c", seen=[])  # an init=False field is no parameter
    with pytest.raises(TypeError):
        Parent("a")  # keyword-only, as the dataclass
    with pytest.raises(dataclasses.FrozenInstanceError):
        del child.name


def test_positional_order_is_checked_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record(kw_only=False)
        class Bad(Record):
            a: int = 0
            b: int


def test_span_is_a_frozen_dataclass_with_its_own_init() -> None:
    span = Span(3, 4)
    assert span == Span(start=3, end=4) and hash(span) == hash(Span(3, 4)) and span != Span(3, 5)
    assert repr(span) == "Span(start=3, end=4)" and dataclasses.astuple(span) == (3, 4)
    assert pickle.loads(pickle.dumps(span)) == span == dataclasses.replace(Span(0, 4), start=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.start = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        Span(3)  # type: ignore[call-arg]
