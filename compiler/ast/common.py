"""Base class and helpers shared by every AST node.

Invariants: nodes are frozen, slotted and keyword-only; children are nodes, tuples of nodes, or
plain values (str, int, float, bool, None); ``span`` is excluded from equality so rewritten trees
compare by meaning. Rewrite with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
import sys
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
        return (_CHILDREN.get(self.__class__) or _children_reader(self.__class__))(self)

    def walk(self) -> Iterator[Node]:
        """This node and all descendants, pre-order (an explicit stack: no generator per level;
        each class's children read by its own :func:`_children_reader`)."""
        stack: list[Node] = [self]
        pop, extend, readers = stack.pop, stack.extend, _CHILDREN
        while stack:
            node = pop()
            yield node
            below = (readers.get(node.__class__) or _children_reader(node.__class__))(node)
            if below:
                below.reverse()
                extend(below)


_CHILDREN: dict[type, Callable[[Node], list[Node]]] = {}


def _children_reader(cls: type) -> Callable[[Node], list[Node]]:
    """The function giving a node of ``cls`` its direct children in field order: one attribute
    read per field of :func:`child_fields` (compiled once per class on first use, field names
    are identifiers), no loop over the names and no ``getattr``."""
    body = ["def children(node):", "    out = []"]
    for name in child_fields(cls):
        body += [
            f"    value = node.{name}",
            "    if isinstance(value, Node):",
            "        out.append(value)",
            "    elif isinstance(value, tuple) and value:",
            "        _add_nodes(out, value)",
        ]
    body.append("    return out")
    names: dict[str, Any] = {"Node": Node, "_add_nodes": _add_nodes}
    exec("\n".join(body), names)  # noqa: S102 - dataclass field names only
    reader = _CHILDREN[cls] = names["children"]
    return reader  # type: ignore[no-any-return]


_PLAIN = frozenset((str, int, float, bool, type(None), bytes, Span))


_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The field names of a node class that may hold children, in order: all but ``span`` and
    those whose type annotation admits only plain values (str, int, float, bool, None, bytes,
    Span, tuples and unions of these). An annotation that cannot be resolved or read counts as
    one that may hold nodes, so a field is skipped only when its declared type rules nodes out
    (tests/test_ast_children.py checks the declared types against real trees, and this table
    against ``typing.get_type_hints``)."""
    found = _FIELDS.get(cls)
    if found is not None:
        return found
    names = _FIELDS[cls] = tuple(
        f.name
        for f in dataclasses.fields(cls)
        if f.name != "span" and _may_hold_node(_declared_type(cls, f.name, f.type))
    )
    return names


#: Annotation texts compiled once per process (the AST's ~70 classes share a few dozen).
_ANNOTATIONS: dict[str, Any] = {}
_UNREADABLE: Any = object()  # an annotation that does not evaluate: it may hold nodes


def _declared_type(cls: type, name: str, annotation: Any) -> Any:
    """The type field ``name`` of ``cls`` declares: its annotation text evaluated in the module
    of the class that declares it, as ``typing.get_type_hints`` would (which compiles every
    annotation of the class and its bases again for each class: a tenth of a small program's
    build went there)."""
    if not isinstance(annotation, str):
        return annotation
    owner = next((k for k in cls.__mro__ if name in k.__dict__.get("__annotations__", {})), cls)
    code = _ANNOTATIONS.get(annotation)
    if code is None:
        try:
            code = _ANNOTATIONS[annotation] = compile(annotation, "<annotation>", "eval")
        except SyntaxError:
            return _UNREADABLE
    try:
        declared = eval(code, vars(sys.modules[owner.__module__]))  # noqa: S307 - own annotations
    except Exception:  # noqa: BLE001 - a name only imported for type checking, …
        return _UNREADABLE
    return type(None) if declared is None else declared


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
