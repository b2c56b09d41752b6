"""The plan: job-graph nodes, partitioned edges and the Spark stages they are grouped into.

Invariants (checked by :func:`validate` once stages exist):

- node names are unique; every edge joins two nodes of the plan;
- an edge's partitioning is :class:`Forward`, :class:`Hash` or :class:`Single`, never
  :class:`Source` (which only says a stage has no input edge);
- once stages exist, every node is a member of exactly one stage (a forwarding node absorbed
  into the stages feeding it: of each of them), and only a stage's first member (its root), or
  in a hash stage a keyed node sharing its shuffle, has an input edge from outside the stage.

Everything is a frozen dataclass of tuples, so a plan compares and renders deterministically.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import assert_never

from ..ir.scope import Stateless, StateScope, describe

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
    reads: bool = False  # an input stream of the job
    forwards: bool = False  # it only passes events on (an input stream or a passthrough)
    stateful: bool = False  # it keeps state (a stateless scope may still hold a counter)
    entry_field: str = ""  # a keyed select grouped by this top-level event field
    flush_transparent: bool = False  # a ``generic::batch`` its pipeline proved invisible
    repeats: bool = False  # emits an event's output once per group, in a row


@dataclass(frozen=True, slots=True, kw_only=True)
class Edge:
    """A link from an output port to an input port, with the partitioning it is delivered in."""

    source: Endpoint
    target: Endpoint
    partitioning: Partitioning = Forward()


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """Nodes that run together in one Spark stage; ``members[0]`` is the root.

    The later phases (:mod:`compiler.plan.job_phases`) fill in what the job renders: ``name``
    (a Python identifier, unique in the plan), the stages it reads (``inputs``), the stage its
    job outputs ride along into (``carry``), whether it is kept (``persist``), the job
    outputs read from its rows (``ports``), the batches run as passthroughs when the run
    flushes (``transparent``), a batch run's keyed entry (``entry``: stream, field), whether a
    batch run skips it (``bypassed``) and whether its rows carry a repeat count (``repeats``).
    """

    members: tuple[str, ...]
    partitioning: Partitioning
    why: str = ""
    name: str = ""
    inputs: tuple[int, ...] = ()
    carry: int | None = None
    persist: bool = False
    ports: tuple[str, ...] = ()
    transparent: tuple[str, ...] = ()
    entry: tuple[str, str] | None = None
    bypassed: bool = False
    repeats: bool = False

    @property
    def title(self) -> str:
        """The name, or before naming the members joined by ``+`` (unique: node names are)."""
        return self.name or "+".join(self.members)

    @property
    def kind(self) -> str:
        """``source``, ``forward``, ``hash`` or ``single`` (``StageSpec.partitioning``)."""
        return show_partitioning(self.partitioning).split("(")[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """The job graph's nodes in graph order, edges in link order, stages in topological order
    (once seeded). Job outputs are no nodes: ``output_links`` are the links into them (their
    targets are ``collectors``' names, ``collectors`` maps each to its output port).
    ``counted``: every stage also reports its event counts (a ``metrics`` source);
    ``exits``: an ``exit`` sink ends the run; ``meta_ports``: outputs whose sinks read ``$``."""

    nodes: tuple[PlanNode, ...]
    edges: tuple[Edge, ...]
    stages: tuple[Stage, ...] = ()
    output_links: tuple[Edge, ...] = ()
    collectors: tuple[tuple[str, str], ...] = ()
    counted: bool = False
    exits: bool = False
    meta_ports: tuple[str, ...] = ()
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
        """Node name → index of its stage (its last, for a forwarder absorbed into several)."""
        return {m: i for i, s in enumerate(self.stages) for m in s.members}

    def homes(self) -> dict[str, list[int]]:
        """Node name → the indexes of the stages it is a member of, in order."""
        found: dict[str, list[int]] = {}
        for index, stage in enumerate(self.stages):
            for member in stage.members:
                found.setdefault(member, []).append(index)
        return found


def render(plan: Plan) -> str:
    """Stable text: the stages and the edges between them, or nodes and edges before stages.

    One ``stage TITLE | PARTITIONING[ | members …][ | …] | why: …`` line per stage (once stages
    are named: its index, its name and every field of the job's ``StageSpec``, then what the
    job renders of it), then one ``edge FROM -> TO | PARTITIONING | node/port -> node/port``
    line per edge that crosses stages (ordered by source stage, target stage, then link
    order).
    """
    if not plan.stages:
        lines = [f"node {n.name} | {n.label} | {describe(n.scope)}" for n in plan.nodes]
        lines += [f"link {_edge(e)} | {show_partitioning(e.partitioning)}" for e in plan.edges]
        return "\n".join(lines)
    count = len(plan.stages)
    lines = [f"plan: {len(plan.nodes)} nodes in {count} stage{'s' if count != 1 else ''}"]
    for index, stage in enumerate(plan.stages):
        lines.append(" | ".join([_stage_head(index, stage), *_stage_facts(plan, stage)]))
    where, homes = plan.stage_index(), plan.homes()  # an absorbed forwarder is in several
    crossing = [
        (src, where[e.target[0]], i, e)
        for i, e in enumerate(plan.edges)
        for src in homes[e.source[0]]
        if e.target[0] not in plan.stages[src].members
    ]
    for src, dst, _, edge in sorted(crossing, key=lambda t: t[:3]):
        names = f"{plan.stages[src].title} -> {plan.stages[dst].title}"
        lines.append(f"edge {names} | {show_partitioning(edge.partitioning)} | {_edge(edge)}")
    return "\n".join(lines)


def _stage_head(index: int, stage: Stage) -> str:
    head = f"stage {stage.title} | {show_partitioning(stage.partitioning)}"
    return f"stage {index} {head[6:]}" if stage.name else head


def _stage_facts(plan: Plan, stage: Stage) -> list[str]:
    """The named stage's ``StageSpec`` fields and rendering choices, then why."""
    facts = []
    if stage.name:
        facts.append("members " + ", ".join(stage.members))
        if stage.carry is not None:
            facts.append(f"carry {plan.stages[stage.carry].title}")
        if stage.entry is not None:
            facts.append(f"entry {stage.entry[0]}.{stage.entry[1]}")
        if stage.repeats:
            facts.append("repeats")
        if stage.inputs:
            facts.append("reads " + ", ".join(plan.stages[i].title for i in stage.inputs))
        if stage.ports:
            facts.append("ports " + ", ".join(stage.ports))
        if stage.persist:
            facts.append("persist")
        if stage.bypassed:
            facts.append("bypassed")
        if stage.transparent:
            facts.append("transparent " + ", ".join(stage.transparent))
    if stage.why:
        facts.append(f"why: {stage.why}")
    return facts


def _edge(edge: Edge) -> str:
    return f"{edge.source[0]}/{edge.source[1]} -> {edge.target[0]}/{edge.target[1]}"


def validate(plan: Plan) -> list[str]:
    """The broken invariants of a staged plan (empty when it is sound)."""
    problems: list[str] = []
    names = [n.name for n in plan.nodes]
    if len(set(names)) != len(names):
        problems.append("duplicate node names")
    members = [m for s in plan.stages for m in s.members]
    absorbed = {m for m, n in Counter(members).items() if n > 1}
    if set(members) != set(names) or any(not plan.node(m).forwards for m in absorbed):
        problems.append("not every node is in exactly one stage (or forwards, absorbed)")
    known = set(names)
    where, homes = plan.stage_index(), plan.homes()
    for edge in plan.edges:
        if edge.source[0] not in known or edge.target[0] not in known:
            problems.append(f"edge to an unknown node: {_edge(edge)}")
        elif isinstance(edge.partitioning, Source):
            problems.append(f"source partitioning on an edge: {_edge(edge)}")
        elif all(edge.target[0] not in plan.stages[i].members for i in homes[edge.source[0]]):
            stage = plan.stages[where[edge.target[0]]]
            keyed = stage.kind == "hash" and not isinstance(
                plan.node(edge.target[0]).scope, Stateless
            )
            if edge.target[0] != stage.members[0] and not keyed:
                problems.append(f"edge enters a stage below its root: {_edge(edge)}")
    return problems
