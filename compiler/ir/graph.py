"""An instantiated trickle pipeline graph.

Invariants (established by :mod:`compiler.passes.query_instantiate`):

- node names are unique and carry their path prefix (``""`` at top level, ``"alias/"`` inside
  ``create pipeline alias``); sub-pipelines are inlined, selects are ``<prefix>#select<n>``, a
  pipeline's from/into ports are :class:`PortNode` ``<prefix><port>``;
- every link joins existing nodes (write to ``(node, "in")``-style ports, read from
  ``(node, "out")``-style ports);
- every embedded script has been through the tremor-script front end, and every ``args``,
  ``with``, ``state`` and config value is a plain constant (None/bool/int/float/str/list/dict).

Nodes and links are listed in the order code generation emits them (statement order, a
sub-pipeline's nodes where it is created), so rendering the IR in order is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..ast import script as S
from ..registry.operators import OPERATORS
from ..source import NO_SPAN, Source, Span
from .scope import Global, Keyed, Stateless, StateScope, describe

#: ``(node name, port name)``.
Endpoint = tuple[str, str]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True, kw_only=True)
class Embedded:
    """A checked tremor-script program and the source its spans point into."""

    script: S.Script
    source: Source = field(compare=False)

    def dump(self) -> str:
        return f"<script {len(self.script.items)} items from {self.source.name}>"


@dataclass(frozen=True, slots=True, kw_only=True)
class Constant:
    """A compile-time value that may itself be ``null`` (``state`` of a script or window)."""

    value: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class GraphNode:
    """Base of the nodes of a pipeline graph."""

    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def scope(self) -> StateScope:
        """What state the node keeps (passthrough nodes keep none)."""
        return Stateless()

    @property
    def in_ports(self) -> tuple[str, ...]:
        """The input ports the node reads."""
        return ("in",)

    @property
    def out_ports(self) -> tuple[str, ...]:
        """Every output port the node may emit on (links may use fewer)."""
        return ("out",)

    def dump(self) -> str:
        return f"{type(self).__name__} {self.name!r}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PortNode(GraphNode):
    """A ``from``/``into`` port of a pipeline (a passthrough)."""

    port: str
    direction: str  # "from" or "into"

    def dump(self) -> str:
        return f"PortNode {self.name!r} ({self.direction} {self.port})"


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamNode(GraphNode):
    """``create stream name`` (a passthrough)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NamedScript:
    """``script from port … end`` of a script definition."""

    port: str
    body: Embedded


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptNode(GraphNode):
    """``create script name from def with … end``: the checked body and bound args."""

    body: Embedded
    args: dict[str, Any]
    state: Constant | None = None
    named: tuple[NamedScript, ...] = ()
    stateful: bool = False
    #: nothing downstream reads the ``$`` its events leave with, and the script reads none
    #: (:mod:`compiler.passes.meta_liveness`): its ``let $key = …`` stores are dead
    meta_unread: bool = False

    @property
    def scope(self) -> StateScope:
        return Global(reason="script state") if self.stateful else Stateless()

    @property
    def in_ports(self) -> tuple[str, ...]:
        return ("in", *(n.port for n in self.named if n.port != "in"))

    @property
    def out_ports(self) -> tuple[str, ...]:
        bodies = (self.body, *(n.body for n in self.named))
        return ("out", "err", *_emit_ports(b.script for b in bodies))

    def dump(self) -> str:
        lines = [f"ScriptNode {self.name!r} args={_short(self.args)} stateful={self.stateful}"]
        lines[0] += " meta-unread" if self.meta_unread else ""
        lines.append(f"    body {self.body.dump()}")
        if self.state is not None:
            lines.append(f"    state {_short(self.state.value)}")
        lines += [f"    named {n.port!r} {n.body.dump()}" for n in self.named]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorNode(GraphNode):
    """``create operator name from def``: builtin ``kind`` with its evaluated config."""

    kind: str
    config: dict[str, Any]
    #: ``grouper::bucket`` only: its rate limit cannot change where an event goes, so it keeps
    #: no state and only checks ``$class`` (:mod:`compiler.passes.bucket_routing`).
    routes_only: bool = False
    #: ``routes_only`` and every event reaching it has a string ``$class`` and an int ``$rate``:
    #: it sends every event to ``out`` (a passthrough that reads no ``$``).
    always_out: bool = False
    #: ``routes_only`` was proven assuming the pipeline's input events carry no metadata (a
    #: ``.trickle`` job); its generated job refuses input with a ``meta`` column.
    assumes_no_input_meta: bool = False
    #: ``generic::batch`` only: everything it emits reaches only the pipeline's output ports,
    #: through passthroughs, and nothing else does, so with the end-of-input flush its batching
    #: is invisible (:mod:`compiler.passes.batch_flush`; the job decides whether it may run it
    #: as a passthrough).
    flush_transparent: bool = False

    @property
    def scope(self) -> StateScope:
        if self.routes_only:
            return Stateless()
        entry = OPERATORS.get(self.kind)
        assert entry is not None, "instantiation checked the kind against the registry"
        if entry.scope == "keyed":
            return Keyed(key=entry.keyed_by, span=self.span)
        if entry.scope == "global":
            return Global(reason=f"{self.kind} state")
        return Stateless()

    @property
    def out_ports(self) -> tuple[str, ...]:
        entry = OPERATORS.get(self.kind)
        assert entry is not None, "instantiation checked the kind against the registry"
        if self.kind == "qos::roundrobin":
            return (*self.config.get("outputs", ["out"]), *entry.ports)
        return entry.ports

    def dump(self) -> str:
        routes = " routes-only" if self.routes_only else ""
        routes += " always-out" if self.always_out else ""
        routes += " assumes-no-input-meta" if self.assumes_no_input_meta else ""
        routes += " flush-transparent" if self.flush_transparent else ""
        return f"OperatorNode {self.name!r} {self.kind}{routes} config={_short(self.config)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """A window a select reads through, from its ``define window`` and the select's args."""

    name: str
    kind: str  # "size", "interval", "state" or an extension kind (windows_ext.EXT_KINDS)
    amount: Any
    script: Embedded | None = None
    reply_span: tuple[int, int] | None = None  # the window script (its errors point here)
    init_state: Constant | None = None
    max_groups: Constant | None = None
    tick_script: Embedded | None = None  # ``script from tick`` (state windows, runtime ticks)
    tick_reply_span: tuple[int, int] | None = None  # the tick script (its errors point here)
    slide: int = 0  # sliding windows (docs/extensions.md)
    lateness: int = 0  # event-time windows
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def late(self) -> bool:
        """An extension time window on a script's time (event time): it may see late events."""
        return self.kind in ("sliding_interval", "session", "event_interval") and bool(self.script)

    def dump(self) -> str:
        extra = f" slide={self.slide}" if self.kind.startswith("sliding") else ""
        extra += " script" if self.script is not None else ""
        extra += f" lateness={self.lateness}" if self.late else ""
        extra += " tick-script" if self.tick_script is not None else ""
        return f"window {self.name!r} {self.kind}={self.amount!r}{extra}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """A ``group by``: ``set`` of items, or ``each``/``expr`` of one component expression."""

    kind: str  # "set", "each" or "expr"
    code: Embedded | None = None
    items: tuple[Group, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def multiplies(self) -> bool:
        """An event may fall in several groups (an ``each`` anywhere inside)."""
        return self.kind == "each" or any(item.multiplies for item in self.items)


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectNode(GraphNode):
    """A (non-passthrough) ``select``: every clause as a checked one-expression script.

    With windows, the target reads ``group[i]`` for group-by components and ``state[i]`` for
    aggregate call ``i`` (``aggregates`` names them, ``aggr_args`` computes their arguments).
    """

    target: Embedded
    where: Embedded | None = None
    having: Embedded | None = None
    group: Group | None = None
    windows: tuple[Window, ...] = ()
    aggregates: tuple[str, ...] = ()
    aggr_args: Embedded | None = None
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def stateful(self) -> bool:
        return bool(self.windows)

    @property
    def scope(self) -> StateScope:
        """Without windows each event stands alone; windows keep state per group, and the
        groups share state (a global count) under ``max_groups`` or ``win::cardinality()``."""
        if not self.windows:
            return Stateless()
        if self.group is None:
            return Global(reason="windows without group by: one group")
        if any(w.max_groups is not None for w in self.windows):
            return Global(reason="max_groups counts the groups of every key")
        if _reads_cardinality(self):
            return Global(reason="win::cardinality() counts the groups of every key")
        text, span = _group_text(self.group)
        return Keyed(key=text, span=span)

    @property
    def out_ports(self) -> tuple[str, ...]:
        """``late``: late events of an event-time window (docs/extensions.md)."""
        return ("out", "error", "late") if self.late else ("out", "error")

    @property
    def late(self) -> bool:
        return any(w.late for w in self.windows)

    def dump(self) -> str:
        clauses = [c for c in ("where", "having", "group") if getattr(self, c) is not None]
        lines = [f"SelectNode {self.name!r} clauses={clauses} aggregates={self.aggregates}"]
        lines += [f"    {w.dump()}" for w in self.windows]
        return "\n".join(lines)


def _select_scripts(select: SelectNode) -> Iterator[Embedded]:
    clauses = (select.where, select.target, select.having, select.aggr_args)
    yield from (c for c in clauses if c is not None)
    groups = [select.group] if select.group is not None else []
    while groups:
        group = groups.pop(0)
        groups.extend(group.items)
        if group.code is not None:
            yield group.code
    for window in select.windows:
        yield from (s for s in (window.script, window.tick_script) if s is not None)


def _emit_ports(scripts: Any) -> tuple[str, ...]:
    """Literal ``emit => "p"`` ports of ``scripts`` in first-use order (not ``out``/``err``)."""
    ports: list[str] = []
    for script in scripts:
        for node in script.walk():
            if isinstance(node, S.Emit) and isinstance(node.port, S.Literal):
                if node.port.value not in ("out", "err", *ports):
                    ports.append(node.port.value)
    return tuple(ports)


def _reads_cardinality(select: SelectNode) -> bool:
    codes = [c for c in (select.target, select.having, select.aggr_args) if c is not None]
    for code in codes:
        for node in code.script.walk():
            if isinstance(node, S.Call) and (*node.module, node.name)[-2:] == (
                "win",
                "cardinality",
            ):
                return True
    return False


def _group_text(group: Group) -> tuple[str, Span]:
    """The source text of a ``group by`` (``set(…)``/``each(…)`` rebuilt) and its span."""
    if group.kind == "set":
        parts = [_group_text(item) for item in group.items]
        span = Span(parts[0][1].start, parts[-1][1].end) if parts else NO_SPAN
        return "set(" + ", ".join(text for text, _ in parts) + ")", span
    assert group.code is not None, "each/expr groups carry their expression"
    expr = group.code.script.items[-1]  # after the implicit `use` items
    text = group.code.source.text[expr.span.start : expr.span.end]
    return (f"each({text})" if group.kind == "each" else text), expr.span


@dataclass(frozen=True, slots=True, kw_only=True)
class Link:
    """An edge from an output port of one node to an input port of another."""

    source: Endpoint
    target: Endpoint

    def dump(self) -> str:
        return f"{self.source[0]}/{self.source[1]} -> {self.target[0]}/{self.target[1]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PipelineGraph:
    """One instantiated pipeline: nodes, links, its ports and where select errors leave.

    ``inputs``/``outputs`` map the from/into port names to their :class:`PortNode` names;
    ``errors`` lists the ``(node, "error")`` endpoints of selects (the job decides where they go).
    """

    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]
    nodes: tuple[GraphNode, ...]
    links: tuple[Link, ...]
    errors: tuple[Endpoint, ...] = ()

    def dump(self) -> str:
        """Stable text for debugging (``tremorc dbg ir``)."""
        lines = [
            "pipeline",
            "  inputs: " + ", ".join(f"{p}={n!r}" for p, n in self.inputs),
            "  outputs: " + ", ".join(f"{p}={n!r}" for p, n in self.outputs),
        ]
        for node in self.nodes:
            lines += ["  " + line for line in node.dump().splitlines()]
            lines.append("      " + node_facts(node))
        lines += ["  link " + link.dump() for link in self.links]
        lines += [f"  error {n}/{p} -> error_log" for n, p in self.errors]
        return "\n".join(lines)

    def embedded(self) -> Iterator[Embedded]:
        """Every checked script of the graph, in node order (what runs per event)."""
        for node in self.nodes:
            if isinstance(node, ScriptNode):
                yield node.body
                yield from (n.body for n in node.named)
            elif isinstance(node, SelectNode):
                yield from _select_scripts(node)

    def reachable(self, start: str, admits: Callable[[str], bool]) -> set[str] | None:
        """Every node a path of links from ``start`` reaches (``start`` itself only through a
        cycle), or None as soon as a reached node is not ``admits``."""
        onward: dict[str, list[str]] = {}
        for link in self.links:
            onward.setdefault(link.source[0], []).append(link.target[0])
        reached: set[str] = set()
        todo = [start]
        while todo:
            for name in onward.get(todo.pop(), ()):
                if name in reached:
                    continue
                if not admits(name):
                    return None
                reached.add(name)
                todo.append(name)
        return reached

    def reaching(self, hits: Callable[[str], bool]) -> set[str]:
        """Every node from which a path of one link or more reaches a node ``hits`` holds for
        (``reachable(name, not hits)`` is None exactly for these names): one walk back over
        the links from all those nodes at once, not one walk forward per node."""
        back: dict[str, list[str]] = {}
        for link in self.links:
            back.setdefault(link.target[0], []).append(link.source[0])
        todo = [name for name in back if hits(name)]
        found: set[str] = set()
        while todo:
            for name in back.get(todo.pop(), ()):
                if name not in found:
                    found.add(name)
                    todo.append(name)
        return found


def node_facts(node: GraphNode) -> str:
    """``scope: … | in: … | out: …`` of one node (what ``dbg ir`` and ``dbg dot`` show)."""
    return (
        f"scope: {describe(node.scope)} | in: {', '.join(node.in_ports)}"
        f" | out: {', '.join(node.out_ports)}"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptGraph:
    """A standalone ``.tremor`` script as a one-node graph ``in → script → ports``."""

    ports: tuple[str, ...]  # "out", "err", then literal ``emit`` ports in first-use order
    stateful: bool
    # The checked script (None only in hand-built graphs); not part of the graph's facts.
    body: Embedded | None = field(default=None, compare=False, repr=False)

    @property
    def scope(self) -> StateScope:
        """A script with ``state`` sees every event in order; otherwise events stand alone."""
        return Global(reason="script state") if self.stateful else Stateless()

    def dump(self) -> str:
        """Stable text for debugging (``tremorc dbg ir``)."""
        return (
            f"script ports={self.ports!r} stateful={self.stateful}\n"
            f"  scope: {describe(self.scope)} | in: in | out: {', '.join(self.ports)}"
        )
