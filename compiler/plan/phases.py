"""The planner's ordered phases, each a pure function from plan to plan (Beam's optimisation
phases, without shared context): partition the edges, seed one stage per node, fuse, shape the
job's stages (:mod:`compiler.plan.job_phases`), name and explain them.

Rules (the only ones):

- an edge into a keyed node is ``hash(key)``, into a global node ``single``, else ``forward``;
- a stage's root fixes its partitioning: keyed → hash, global → single, stateless → the
  partitions of its inputs (``forward``), or ``source`` when it has no input;
- :func:`can_fuse` (Flink's ``isChainable``): a stateless node whose inputs are all forward and
  all come from one stage joins that stage. So stateful nodes are always stage roots, and a
  fan-in from several stages starts a stage of its own;
- every node without input that would root a ``source`` stage joins the first one: the job
  reads its input once, as one DataFrame, in one source stage;
- :func:`fold_source`: a source stage that only forwards events into one ``single`` stage joins
  it (the input goes to the one partition as read, with no stage in between);
- then :mod:`compiler.plan.job_phases` (merge, absorb, wire, keyed entries, flush-transparent
  batches, repeats, names), and :func:`explain_stages` says why each stage is partitioned so.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import replace
from typing import assert_never

from ..ir.scope import Global, Keyed, Stateless, StateScope
from .job_phases import (
    absorb_forwarders,
    flush_transparent,
    keyed_entries,
    mark_repeats,
    merge_keyed_siblings,
    name_stages,
    wire_stages,
)
from .model import Forward, Hash, Partitioning, Plan, Single, Source, Stage

Phase = Callable[[Plan], Plan]


def _delivery(scope: StateScope) -> Partitioning:
    """How a node with ``scope`` must receive its events."""
    match scope:
        case Keyed(key=key):
            return Hash(key)
        case Global():
            return Single()
        case Stateless():
            return Forward()
        case _:
            assert_never(scope)


def partition_edges(plan: Plan) -> Plan:
    """Give each edge the partitioning its consumer's state scope needs."""
    edges = tuple(
        replace(e, partitioning=_delivery(plan.node(e.target[0]).scope)) for e in plan.edges
    )
    return replace(plan, edges=edges)


def topological(plan: Plan) -> list[str]:
    """Node names, producers first, ties (and any cycle's nodes) in IR order."""
    order = {n.name: i for i, n in enumerate(plan.nodes)}
    waiting = {n.name: 0 for n in plan.nodes}
    for edge in plan.edges:
        if edge.source[0] != edge.target[0]:
            waiting[edge.target[0]] += 1
    ready = [order[name] for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    result: list[str] = []
    while ready:
        name = plan.nodes[heapq.heappop(ready)].name
        result.append(name)
        for edge in plan.outputs(name):
            if edge.target[0] != name:
                waiting[edge.target[0]] -= 1
                if waiting[edge.target[0]] == 0:
                    heapq.heappush(ready, order[edge.target[0]])
    placed = set(result)
    return result + [n.name for n in plan.nodes if n.name not in placed]


def _rooted(plan: Plan, name: str) -> Partitioning:
    """The partitioning of a stage rooted at node ``name``."""
    part = _delivery(plan.node(name).scope)
    return Source() if isinstance(part, Forward) and not plan.inputs(name) else part


def seed_stages(plan: Plan) -> Plan:
    """One stage per node, in topological order, partitioned as its node's scope says."""
    stages = (Stage(members=(n,), partitioning=_rooted(plan, n)) for n in topological(plan))
    return replace(plan, stages=tuple(stages))


def can_fuse(plan: Plan, name: str, where: dict[str, int]) -> int | None:
    """The stage (index in ``where``) node ``name`` joins, or None when it starts a stage.

    It joins when it is stateless, has inputs, all of them forward, all from one placed stage.
    """
    inputs = plan.inputs(name)
    if not isinstance(plan.node(name).scope, Stateless) or not inputs:
        return None
    if any(not isinstance(e.partitioning, Forward) for e in inputs):
        return None
    stages = {where.get(e.source[0]) for e in inputs}
    if len(stages) != 1 or None in stages:
        return None
    return stages.pop()


def fuse_stages(plan: Plan) -> Plan:
    """Greedily fuse, in stage order, every node :func:`can_fuse` allows into its producer's
    stage, and every source root into the first source stage (idempotent)."""
    groups: list[list[str]] = []
    parts: list[Partitioning] = []
    where: dict[str, int] = {}
    for stage in plan.stages:
        for name in stage.members:
            target = can_fuse(plan, name, where)
            rooted = _rooted(plan, name)
            if target is None and isinstance(rooted, Source) and Source() in parts:
                target = parts.index(Source())
            if target is None:
                target = len(groups)
                groups.append([])
                parts.append(rooted)
            groups[target].append(name)
            where[name] = target
    stages = tuple(
        Stage(members=tuple(g), partitioning=p) for g, p in zip(groups, parts, strict=True)
    )
    return replace(plan, stages=stages)


def fold_source(plan: Plan) -> Plan:
    """Merge a source stage of forwarding nodes into its only consumer when that is a
    ``single`` stage fed by nothing else (idempotent: a folded plan has no such source)."""
    where = plan.stage_index()
    for index, stage in enumerate(plan.stages):
        if not isinstance(stage.partitioning, Source):
            continue
        if not all(plan.node(m).forwards for m in stage.members):
            continue
        out = {where[e.target[0]] for e in plan.edges if where[e.source[0]] == index} - {index}
        if len(out) != 1:
            continue
        (target,) = out
        feeders = {where[e.source[0]] for e in plan.edges if where[e.target[0]] == target}
        if not isinstance(plan.stages[target].partitioning, Single) or feeders - {index, target}:
            continue
        merged = Stage(members=stage.members + plan.stages[target].members, partitioning=Single())
        stages = [s for i, s in enumerate(plan.stages) if i not in (index, target)]
        stages.insert(min(index, target), merged)
        return replace(plan, stages=tuple(stages))
    return plan


def _roots(plan: Plan, stage: Stage) -> list[str]:
    """The members whose state fixes the stage's partitioning (several in a merged keyed
    stage), or its first member."""
    if isinstance(stage.partitioning, Source | Forward):
        return [stage.members[0]]
    stateful = [m for m in stage.members if not isinstance(plan.node(m).scope, Stateless)]
    return stateful or [stage.members[0]]


def explain_stages(plan: Plan) -> Plan:
    """Record why each stage is partitioned as it is (from its roots and their inputs)."""
    where = plan.stage_index()
    stages = []
    for index, stage in enumerate(plan.stages):
        whys = []
        for name in _roots(plan, stage):
            root = plan.node(name)
            feeding = sorted({where[e.source[0]] for e in plan.inputs(name)} - {index})
            feeders = ", ".join(f"`{plan.stages[i].title}`" for i in feeding)
            match root.scope:
                case Keyed(key=key):
                    why = f"{root.noun} per group of `{key}`"
                case Global(reason=reason):
                    why = f"{reason}, in one ordered partition"
                case Stateless() if not feeding:
                    why = (
                        "a source, runs on the reader's splits (merged to the job's parallelism)"
                        if root.reads
                        else "no input, no events"
                    )
                case Stateless():
                    why = f"stateless, runs on the partitions of {feeders}"
                case _:
                    assert_never(root.scope)
            whys.append(f"{root.label}: {why}")
        stages.append(replace(stage, why="; ".join(whys)))
    return replace(plan, stages=tuple(stages))


#: The planner, in order: ``(name, phase)``.
PHASES: tuple[tuple[str, Phase], ...] = (
    ("partition_edges", partition_edges),
    ("seed_stages", seed_stages),
    ("fuse_stages", fuse_stages),
    ("fold_source", fold_source),
    ("merge_keyed_siblings", merge_keyed_siblings),
    ("absorb_forwarders", absorb_forwarders),
    ("wire_stages", wire_stages),
    ("keyed_entries", keyed_entries),
    ("flush_transparent", flush_transparent),
    ("mark_repeats", mark_repeats),
    ("name_stages", name_stages),
    ("explain_stages", explain_stages),
)


def run_phases(plan: Plan) -> list[tuple[str, Plan]]:
    """The plan after each phase, in order (the last is the result)."""
    steps = []
    for name, phase in PHASES:
        plan = phase(plan)
        steps.append((name, plan))
    return steps
