"""The AST, IR and plan classes are frozen, slotted dataclasses whose equality and hash ignore
``span`` (rewritten trees compare by meaning) and which survive pickling (Spark ships them)."""

from __future__ import annotations

import dataclasses
import importlib
import pickle

import pytest

from compiler.ast import script as S
from compiler.source import Span

MODULES = [
    "compiler.ast.common",
    "compiler.ast.script",
    "compiler.ast.query",
    "compiler.ast.deploy",
    "compiler.ir",
    "compiler.ir.graph",
    "compiler.ir.flow",
    "compiler.plan.model",
]


@pytest.mark.parametrize("module", MODULES)
def test_every_tree_class_is_a_frozen_slotted_dataclass(module: str) -> None:
    classes = [
        value
        for value in vars(importlib.import_module(module)).values()
        if isinstance(value, type) and value.__module__ == module
    ]
    assert classes
    for cls in classes:
        if issubclass(cls, BaseException) or not dataclasses.is_dataclass(cls):
            continue
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert params.frozen and params.eq, cls
        assert "__slots__" in cls.__dict__, cls


def test_a_node_compares_by_meaning_and_pickles() -> None:
    one = S.Literal(value=1, span=Span(0, 1))
    moved = S.Literal(value=1, span=Span(5, 6))
    assert one == moved and hash(one) == hash(moved) and one != S.Literal(value=2)
    assert not hasattr(one, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.value = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        S.Literal(1)  # type: ignore[misc]  # keyword-only
    back = pickle.loads(pickle.dumps(one))
    assert back == one and back.span == Span(0, 1)
    assert dataclasses.replace(one, value=2) == S.Literal(value=2)
