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

from dataclasses import dataclass, field
from typing import Any

from ..ast import script as S
from ..source import NO_SPAN, Source, Span

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

    def dump(self) -> str:
        lines = [f"ScriptNode {self.name!r} args={_short(self.args)} stateful={self.stateful}"]
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

    def dump(self) -> str:
        return f"OperatorNode {self.name!r} {self.kind} config={_short(self.config)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """A window a select reads through, from its ``define window`` and the select's args."""

    name: str
    kind: str  # "size", "interval" or "state"
    amount: Any
    script: Embedded | None = None
    reply_span: tuple[int, int] | None = None  # the window script (its errors point here)
    init_state: Constant | None = None
    max_groups: Constant | None = None
    tick_script: Embedded | None = None  # ``script from tick`` (state windows, runtime ticks)
    tick_reply_span: tuple[int, int] | None = None  # the tick script (its errors point here)
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def dump(self) -> str:
        extra = " script" if self.script is not None else ""
        extra += " tick-script" if self.tick_script is not None else ""
        return f"window {self.name!r} {self.kind}={self.amount!r}{extra}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """A ``group by``: ``set`` of items, or ``each``/``expr`` of one component expression."""

    kind: str  # "set", "each" or "expr"
    code: Embedded | None = None
    items: tuple[Group, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


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

    def dump(self) -> str:
        clauses = [c for c in ("where", "having", "group") if getattr(self, c) is not None]
        lines = [f"SelectNode {self.name!r} clauses={clauses} aggregates={self.aggregates}"]
        lines += [f"    {w.dump()}" for w in self.windows]
        return "\n".join(lines)


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
        lines += ["  link " + link.dump() for link in self.links]
        lines += [f"  error {n}/{p}" for n, p in self.errors]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptGraph:
    """A standalone ``.tremor`` script as a one-node graph ``in → script → ports``."""

    ports: tuple[str, ...]  # "out", "err", then literal ``emit`` ports in first-use order
    stateful: bool

    def dump(self) -> str:
        """Stable text for debugging (``tremorc dbg ir``)."""
        return f"script ports={self.ports!r} stateful={self.stateful}"
