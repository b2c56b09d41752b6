"""The plan: job-graph nodes, partitioned edges and the Spark stages they are grouped into.

Invariants (checked by :func:`validate` once stages exist):

- node names are unique; every edge joins two nodes of the plan;
- an edge's partitioning is :class:`Forward`, :class:`Hash` or :class:`Single`, never
  :class:`Source` (which only says a stage has no input edge);
- once stages exist, every node is a member of exactly one stage, and a stage's first member
  (its root) is the only one with an input edge from outside the stage.

Everything is a frozen dataclass of tuples, so a plan compares and renders deterministically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from ..ir.scope import StateScope, describe

#: ``(node name, port name)``.
Endpoint = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Source:
    """A stage with no input edge: it reads the job's input in the reader's splits, merged to
    at most the job's parallelism (a Python task has a fixed cost; ``spark_exec.python_splits``)."""


@dataclass(frozen=True, slots=True)
class Forward:
    """Events stay in the partitions they were produced in (no shuffle)."""


@dataclass(frozen=True, slots=True)
class Hash:
    """Events are hash-partitioned by ``key`` (source text), each key's events in input order."""

    key: str


@dataclass(frozen=True, slots=True)
class Single:
    """Every event goes to one partition, in emission order."""


Partitioning = Source | Forward | Hash | Single


def show_partitioning(part: Partitioning) -> str:
    """``source``, ``forward``, ``hash(<key>)`` or ``single``.

    >>> show_partitioning(Hash("each(event.host)"))
    'hash(each(event.host))'
    """
    match part:
        case Source():
            return "source"
        case Forward():
            return "forward"
        case Hash(key=key):
            return f"hash({key})"
        case Single():
            return "single"
        case _:
            assert_never(part)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanNode:
    """One node of the job graph as the planner sees it.

    ``label`` names it for people (``select #select1``, ``script enrich``); ``noun`` is what its
    keyed state holds (``windows``); ``reads`` is true for a node that reads the job's input.
    """

    name: str
    label: str
    scope: StateScope
    noun: str = "state"
    reads: bool = False
    forwards: bool = False  # it only passes events on (an input, output, stream or source)


@dataclass(frozen=True, slots=True, kw_only=True)
class Edge:
    """A link from an output port to an input port, with the partitioning it is delivered in."""

    source: Endpoint
    target: Endpoint
    partitioning: Partitioning = Forward()


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """Nodes that run together in one Spark stage; ``members[0]`` is the root."""

    members: tuple[str, ...]
    partitioning: Partitioning
    why: str = ""

    @property
    def name(self) -> str:
        """The members joined by ``+`` (unique because node names are)."""
        return "+".join(self.members)


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Nodes in IR order, edges in IR link order, stages in topological order (once seeded)."""

    nodes: tuple[PlanNode, ...]
    edges: tuple[Edge, ...]
    stages: tuple[Stage, ...] = ()
    # Look-ups by node name, built with the plan (a phase asks once per node: linear scans made
    # planning quadratic, a tenth of a second for a program of 700 nodes).
    _by_name: dict[str, PlanNode] = field(init=False, repr=False, compare=False)
    _inputs: dict[str, tuple[Edge, ...]] = field(init=False, repr=False, compare=False)
    _outputs: dict[str, tuple[Edge, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inputs: dict[str, list[Edge]] = {}
        outputs: dict[str, list[Edge]] = {}
        for edge in self.edges:
            inputs.setdefault(edge.target[0], []).append(edge)
            outputs.setdefault(edge.source[0], []).append(edge)
        by_name: dict[str, PlanNode] = {}
        for node in self.nodes:
            by_name.setdefault(node.name, node)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_inputs", {k: tuple(v) for k, v in inputs.items()})
        object.__setattr__(self, "_outputs", {k: tuple(v) for k, v in outputs.items()})

    def node(self, name: str) -> PlanNode:
        """The node called ``name`` (it exists: edges and stages only name plan nodes)."""
        return self._by_name[name]

    def inputs(self, name: str) -> tuple[Edge, ...]:
        """The edges into node ``name``, in edge order."""
        return self._inputs.get(name, ())

    def outputs(self, name: str) -> tuple[Edge, ...]:
        """The edges out of node ``name``, in edge order."""
        return self._outputs.get(name, ())

    def stage_index(self) -> dict[str, int]:
        """Node name → index of its stage."""
        return {m: i for i, s in enumerate(self.stages) for m in s.members}


def render(plan: Plan) -> str:
    """Stable text: the stages and the edges between them, or nodes and edges before stages.

    One ``stage MEMBER+MEMBER… | PARTITIONING | why: …`` line per stage, then one
    ``edge FROM -> TO | PARTITIONING | node/port -> node/port`` line per edge that crosses stages
    (ordered by source stage, target stage, then link order).
    """
    if not plan.stages:
        lines = [f"node {n.name} | {n.label} | {describe(n.scope)}" for n in plan.nodes]
        lines += [f"link {_edge(e)} | {show_partitioning(e.partitioning)}" for e in plan.edges]
        return "\n".join(lines)
    count = len(plan.stages)
    lines = [f"plan: {len(plan.nodes)} nodes in {count} stage{'s' if count != 1 else ''}"]
    for stage in plan.stages:
        why = f" | why: {stage.why}" if stage.why else ""
        lines.append(f"stage {stage.name} | {show_partitioning(stage.partitioning)}{why}")
    where = plan.stage_index()
    crossing = [
        (where[e.source[0]], where[e.target[0]], i, e)
        for i, e in enumerate(plan.edges)
        if where[e.source[0]] != where[e.target[0]]
    ]
    for src, dst, _, edge in sorted(crossing, key=lambda t: t[:3]):
        names = f"{plan.stages[src].name} -> {plan.stages[dst].name}"
        lines.append(f"edge {names} | {show_partitioning(edge.partitioning)} | {_edge(edge)}")
    return "\n".join(lines)


def _edge(edge: Edge) -> str:
    return f"{edge.source[0]}/{edge.source[1]} -> {edge.target[0]}/{edge.target[1]}"


def validate(plan: Plan) -> list[str]:
    """The broken invariants of a staged plan (empty when it is sound)."""
    problems: list[str] = []
    names = [n.name for n in plan.nodes]
    if len(set(names)) != len(names):
        problems.append("duplicate node names")
    members = [m for s in plan.stages for m in s.members]
    if sorted(members) != sorted(names):
        problems.append("not every node is in exactly one stage")
    known = set(names)
    where = plan.stage_index()
    for edge in plan.edges:
        if edge.source[0] not in known or edge.target[0] not in known:
            problems.append(f"edge to an unknown node: {_edge(edge)}")
        elif isinstance(edge.partitioning, Source):
            problems.append(f"source partitioning on an edge: {_edge(edge)}")
        elif where.get(edge.source[0]) != where.get(edge.target[0]):
            root = plan.stages[where[edge.target[0]]].members[0]
            if edge.target[0] != root:
                problems.append(f"edge enters a stage below its root: {_edge(edge)}")
    return problems
