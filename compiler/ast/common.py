"""Base class and helpers shared by every AST node.

Invariants: nodes are frozen, slotted and keyword-only; children are nodes, tuples of nodes, or
plain values (str, int, float, bool, None); ``span`` is excluded from equality so rewritten trees
compare by meaning. Rewrite with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..source import NO_SPAN, Span

N = TypeVar("N", bound="Node")


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """Base of every AST node."""

    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def children(self) -> list[Node]:
        """Direct child nodes, in field order (fields that can only hold plain values are not
        looked at: see :func:`child_fields`)."""
        out: list[Node] = []
        for name in child_fields(self.__class__):
            value = getattr(self, name)
            if isinstance(value, Node):
                out.append(value)
            elif isinstance(value, tuple) and value:
                _add_nodes(out, value)
        return out

    def walk(self) -> Iterator[Node]:
        """This node and all descendants, pre-order."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            below = node.children()
            below.reverse()
            stack.extend(below)


_PLAIN = frozenset((str, int, float, bool, type(None), bytes, Span))


@functools.cache
def child_fields(cls: type) -> tuple[str, ...]:
    """The field names of a node class that may hold children, in order: all but ``span`` and
    those whose declared type (``typing.get_type_hints``) admits only plain values (str, int,
    float, bool, None, bytes, Span, tuples and unions of these). tests/compiler/ast/test_children.py
    checks the declared types against real trees."""
    hints = typing.get_type_hints(cls)
    return tuple(
        f.name
        for f in dataclasses.fields(cls)
        if f.name != "span" and _may_hold_node(hints[f.name])
    )


def _may_hold_node(tp: Any) -> bool:
    """False only when annotation ``tp`` provably admits no :class:`Node` (conservative)."""
    if tp in _PLAIN:
        return False
    origin = typing.get_origin(tp)
    if origin is tuple or origin is typing.Union or origin is types.UnionType:
        return any(_may_hold_node(arg) for arg in typing.get_args(tp) if arg is not Ellipsis)
    if origin is typing.Literal:
        return False
    return True


V = TypeVar("V")


def with_subclasses(kinds: dict[type, V]) -> dict[type, V]:
    """``kinds`` with every subclass of each class given its class's entry: a lookup by a
    node's exact class then answers as ``isinstance`` would (one dict lookup per node)."""
    found: dict[type, V] = {}
    for cls, value in kinds.items():
        pending = [cls]
        while pending:
            kind = pending.pop()
            found.setdefault(kind, value)
            pending.extend(kind.__subclasses__())
    return found


def _add_nodes(out: list[Node], value: tuple[Any, ...]) -> None:
    """Append the nodes inside ``value`` (nested tuples flattened), in order."""
    for item in value:
        if isinstance(item, Node):
            out.append(item)
        elif isinstance(item, tuple):
            _add_nodes(out, item)


def transform(node: N, fn: Callable[[Node], Node]) -> N:
    """Rebuild ``node`` bottom-up: children first, then ``fn`` on the rebuilt node.

    Nodes whose children did not change are passed to ``fn`` unchanged (identity preserved).
    """
    changes: dict[str, Any] = {}
    for name in child_fields(node.__class__):
        old = getattr(node, name)
        new = _transform_value(old, fn)
        if new is not old:
            changes[name] = new
    rebuilt = dataclasses.replace(node, **changes) if changes else node
    return fn(rebuilt)  # type: ignore[return-value]


def _transform_value(value: Any, fn: Callable[[Node], Node]) -> Any:
    if isinstance(value, Node):
        return transform(value, fn)
    if isinstance(value, tuple):
        items, changed = [], False
        for item in value:
            new = _transform_value(item, fn)
            changed = changed or new is not item
            items.append(new)
        return tuple(items) if changed else value
    return value


def dump(node: Any, indent: int = 0) -> str:
    """Stable, span-free indented text of a tree (used for goldens and ``tremorc dbg ast``)."""
    pad = "  " * indent
    if isinstance(node, Node):
        fields = [f for f in dataclasses.fields(node) if f.name != "span"]
        if not fields:
            return f"{pad}{type(node).__name__}"
        lines = [f"{pad}{type(node).__name__}"]
        for f in fields:
            value = getattr(node, f.name)
            if isinstance(value, (Node, tuple)) and value != ():
                lines.append(f"{pad}  {f.name}:")
                lines.append(dump(value, indent + 2))
            else:
                lines.append(f"{pad}  {f.name}: {value!r}")
        return "\n".join(lines)
    if isinstance(node, tuple):
        return "\n".join(
            dump(item, indent) if isinstance(item, (Node, tuple)) else f"{pad}- {item!r}"
            for item in node
        )
    return f"{pad}{node!r}"
