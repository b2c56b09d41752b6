"""The planner's phases that shape the fused stages into the job's stages (after
:mod:`compiler.plan.phases` fused them): what ``STAGES`` holds and the job renders.

Rules, in phase order:

- keyed stages fed by the same stages run as one (:func:`merge_keyed_siblings`);
- a forward stage of passthroughs whose events all leave the job runs inside each stage
  feeding it (:func:`absorb_forwarders`);
- :func:`wire_stages`: the source stage (every input stream) also emits ``err`` (undecodable
  input lines); a stage whose only downstream stage is keyed sends its job outputs along with
  its events (``carry``) rather than making Spark compute or keep it twice; a stage read by
  several downstream stages, or by one and the job's ports, is persisted (its ports alone are
  read in one pass, or kept by the caller: ``runtime_support.spark.port_frames``); with ``counted``
  every stage is;
- :func:`keyed_entries`: a keyed stage that a batch run feeds straight from the input (the JVM
  reads the shuffle key, ``runtime_support.spark.entry_keys``), bypassing the source stage;
- :func:`flush_transparent`: a single stage whose only stateful members are flush-transparent
  batches (:mod:`compiler.passes.batch_flush`) whose batch events reach only job outputs that
  no other node feeds and whose sinks do not read ``$``, from one input stream, in a job that
  counts no events and has no ``exit`` sink, runs in parallel with them as passthroughs when
  the run flushes;
- :func:`mark_repeats`: a source stage that feeds no other stage and holds a select that emits
  an event's output once per group sends equal outputs in a row as one row with a count (the
  JVM expands it, ``runtime_support.spark.port_frames``);
- :func:`name_stages`: each stage is named after what it runs (a Python identifier made of
  its root's kind and name, never raw user text).
"""

from __future__ import annotations

import keyword
import re
from dataclasses import replace

from ..ir.scope import Keyed, Stateless
from .model import Plan, Stage


def merge_keyed_siblings(plan: Plan) -> Plan:
    """Keyed stages fed by the same stages share one shuffle: each row is keyed by its own
    node's keyer and every node keeps its state per key, so a node still sees all the events
    of one key in one partition in ``(seq, path)`` order; the feeding stage is read once
    (the ``match`` workload's two buckets on one ``$class`` shuffle, no persisted source)."""
    where = plan.stage_index()
    stages = list(plan.stages)
    first: dict[frozenset[int], int] = {}
    dropped: set[int] = set()
    for index, stage in enumerate(plan.stages):
        members = set(stage.members)
        if stage.kind != "hash" or any(plan.node(m).reads for m in members):
            continue
        feeders = frozenset(
            where[e.source[0]]
            for e in plan.edges
            if e.target[0] in members and e.source[0] not in members
        )
        host = first.setdefault(feeders, index)
        if feeders and host != index:
            stages[host] = replace(stages[host], members=stages[host].members + stage.members)
            dropped.add(index)
    return replace(plan, stages=tuple(s for i, s in enumerate(stages) if i not in dropped))


def absorb_forwarders(plan: Plan) -> Plan:
    """A forward stage of passthroughs only whose events all leave the job (a fan-in of several
    stages into an output) runs instead inside each stage feeding it: a passthrough keeps no
    state and each output keeps its ``(seq, path)`` order, so the job saves a Python pass and
    the pickling of every event. Such a node is a member of several stages (of no other)."""
    where = plan.stage_index()
    stages = list(plan.stages)
    dropped: set[int] = set()
    for index, stage in enumerate(plan.stages):
        members = set(stage.members)
        nodes = [plan.node(m) for m in stage.members]
        if stage.kind != "forward" or not all(n.forwards and not n.reads for n in nodes):
            continue
        edges = [e for e in plan.edges if (e.source[0] in members) != (e.target[0] in members)]
        feeders = {where[e.source[0]] for e in edges if e.target[0] in members}
        if not feeders or any(e.source[0] in members for e in edges):
            continue
        for feeder in feeders:
            stages[feeder] = replace(stages[feeder], members=stages[feeder].members + stage.members)
        dropped.add(index)
    return replace(plan, stages=tuple(s for i, s in enumerate(stages) if i not in dropped))


def wire_stages(plan: Plan) -> Plan:
    """Each stage's inputs, carry, persistence and job outputs (see the module)."""
    where, home = plan.stage_index(), plan.homes()
    count = len(plan.stages)
    downstream: list[set[int]] = [set() for _ in range(count)]
    upstream: list[set[int]] = [set() for _ in range(count)]
    for edge in plan.edges:
        for src in home[edge.source[0]]:
            if edge.target[0] not in plan.stages[src].members:
                dst = where[edge.target[0]]
                downstream[src].add(dst)
                upstream[dst].add(src)
    collectors = dict(plan.collectors)
    ports: list[set[str]] = [set() for _ in range(count)]
    for edge in plan.output_links:
        for index in home.get(edge.source[0], ()):
            ports[index].add(collectors[edge.target[0]])
    stages = []
    for index, stage in enumerate(plan.stages):
        if any(plan.node(m).reads for m in stage.members):
            ports[index].add("err")
        carry = None
        if len(downstream[index]) == 1 and ports[index]:
            (only,) = downstream[index]
            carry = only if plan.stages[only].kind == "hash" else None
        if carry is not None:
            ports[carry] |= ports[index]
        own = () if carry is not None else tuple(sorted(ports[index]))
        # Its ports count as one reader: the caller reads them in one pass or keeps the stage.
        readers = len(downstream[index]) + (1 if own else 0)
        stages.append(
            replace(
                stage,
                inputs=tuple(sorted(upstream[index])),
                carry=carry,
                persist=readers > 1 or plan.counted,
                ports=own,
            )
        )
    return replace(plan, stages=tuple(stages))


def _streams(plan: Plan) -> tuple[str, ...]:
    return tuple(n.name for n in plan.nodes if n.reads)


def _links(plan: Plan) -> list[tuple[str, str]]:
    """``(source node, target node)`` of every link, job outputs included, in link order."""
    return [(e.source[0], e.target[0]) for e in (*plan.edges, *plan.output_links)]


def keyed_entries(plan: Plan) -> Plan:
    """Each keyed stage that a batch run may feed straight from the input gets ``entry``
    (``runtime_support.spark.entry_keys``: the JVM reads the shuffle key), and the source stage it
    skips ``bypassed``: the job's one input stream, alone in the source stage with nodes that
    nothing feeds, is linked only to a select of that stage grouped by one top-level event
    field, and that stage has no other input. Not when the job counts its events."""
    streams = _streams(plan)
    if plan.counted or len(streams) != 1:
        return plan
    (stream,) = streams
    links = _links(plan)
    fed = {dst for _, dst in links}
    stages = list(plan.stages)
    for index, stage in enumerate(plan.stages):
        others = [m for m in stage.members if m != stream]
        if stage.kind != "source" or stage.carry is None or any(m in fed for m in others):
            continue
        targets = [dst for src, dst in links if src == stream]
        target = plan.stages[stage.carry]
        node = plan.node(targets[0]) if len(targets) == 1 and targets[0] in target.members else None
        if (
            node is None
            or not node.entry_field
            or target.kind != "hash"
            or target.inputs != (index,)
        ):
            continue
        stages[index] = replace(stage, bypassed=True)
        stages[stage.carry] = replace(target, entry=(stream, node.entry_field))
    return replace(plan, stages=tuple(stages))


def flush_transparent(plan: Plan) -> Plan:
    """Each single stage's batches that may run as passthroughs when the run flushes: all its
    stateful members, when each of them is a flush-transparent batch whose events are
    invisible in the job (:func:`_invisible`). Not when the job counts its events or has an
    ``exit`` sink (the run ends at its first event, by ``(seq, sub)``, where a batch's events
    sit at the event that closed it)."""
    if plan.counted or plan.exits:
        return plan
    stages = []
    for stage in plan.stages:
        members = [plan.node(m) for m in stage.members if not plan.node(m).reads]
        stateful = [n for n in members if n.stateful or not isinstance(n.scope, Stateless)]
        if (
            stage.kind == "single"
            and stateful
            and all(n.flush_transparent and _invisible(plan, n.name) for n in stateful)
        ):
            stage = replace(stage, transparent=tuple(n.name for n in stateful))
        stages.append(stage)
    return replace(plan, stages=tuple(stages))


def _invisible(plan: Plan, batch: str) -> bool:
    """Every path out of ``batch`` in the job leads through passthroughs to outputs whose sinks
    do not read ``$``, other than ``err`` (a source stage's undecodable lines go there); every
    link into a node on those paths comes from ``batch`` or from another one of them; at most
    one input stream feeds ``batch`` (the single stage orders two streams' equal ``seq``)."""
    collectors = dict(plan.collectors)
    streams = set(_streams(plan))
    links = _links(plan)
    reached: set[str] = set()
    todo = [batch]
    while todo:
        here = todo.pop()
        for src, dst in links:
            if src != here or dst in reached:
                continue
            if dst in collectors:
                if collectors[dst] in plan.meta_ports or collectors[dst] == "err":
                    return False
            elif dst == batch or dst in streams:
                return False
            elif not plan.node(dst).forwards:
                return False  # a node that would see a batch event
            else:
                todo.append(dst)
            reached.add(dst)
    inside = reached | {batch}
    if any(dst in reached and src not in inside for src, dst in links):
        return False  # another producer into one of its outputs
    return len(_feeding_streams(batch, links) & streams) <= 1


def _feeding_streams(node: str, links: list[tuple[str, str]]) -> set[str]:
    """The nodes with a path to ``node`` (``node`` included)."""
    seen = {node}
    todo = [node]
    while todo:
        here = todo.pop()
        for src, dst in links:
            if dst == here and src not in seen:
                seen.add(src)
                todo.append(src)
    return seen


def mark_repeats(plan: Plan) -> Plan:
    """``repeats`` for a source stage that no other stage reads, with no carry (so neither a
    keyed entry nor bypassed for one), holding a node that emits an event's output once per
    group."""
    read = {i for stage in plan.stages for i in stage.inputs}
    stages = tuple(
        (
            replace(stage, repeats=True)
            if stage.kind == "source"
            and any(plan.node(m).reads for m in stage.members)
            and stage.carry is None
            and index not in read
            and any(plan.node(m).repeats for m in stage.members)
            else stage
        )
        for index, stage in enumerate(plan.stages)
    )
    return replace(plan, stages=stages)


#: Names a stage's variable must not take in the job's plan functions (their parameters,
#: locals and the names they call).
RESERVED = frozenset(
    {
        "F",
        "GRAPH",
        "REPEAT_ROW_SCHEMA",
        "ROW_SCHEMA",
        "STAGES",
        "StorageLevel",
        "batch_plan",
        "entry_rows",
        "event_columns",
        "events",
        "flush_at_end",
        "inputs",
        "native_rows",
        "parts",
        "passthroughs",
        "port_frames",
        "python_splits",
        "read_native",
        "refuse_input_meta",
        "run_pipeline",
        "shuffle_partitions",
        "spark",
        "stage_mapper",
        "state_stage",
        "stream_outputs",
        "stream_plan",
        "streaming",
        "with_native_rows",
    }
)


def identifier(text: str) -> str:
    """``text`` as a lower-case ASCII identifier: runs of other characters become ``_``.

    >>> identifier("#select1"), identifier("main/enrich/batch"), identifier("$class")
    ('select1', 'main_enrich_batch', 'class')
    """
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def _what(plan: Plan, stage: Stage) -> str:
    """The base of a stage's name: ``source_<stream>`` for a source stage (or a stateless one
    reading the input), else its (first stateful) root's kind and last name part, and
    ``_by_<key>`` when keyed (``select1_by_host``, ``script_enrich``, ``bucket_by_class``); keyed
    siblings sharing a shuffle: the first two joined by ``_and_`` (``_and_more`` for others)."""
    streams = [m for m in stage.members if plan.node(m).reads]
    stateful = [m for m in stage.members if not isinstance(plan.node(m).scope, Stateless)]
    if streams and (stage.kind == "source" or not stateful):
        return "source_" + (identifier(streams[0].split("/")[-2 if "/" in streams[0] else -1]))
    if len(stateful) > 1:  # keyed siblings sharing one shuffle
        first, second = (
            _what(plan, Stage(members=(m,), partitioning=stage.partitioning)) for m in stateful[:2]
        )
        return f"{first}_and_{second}" + ("_and_more" if len(stateful) > 2 else "")
    root = plan.node(stateful[0] if stateful else stage.members[0])
    part = identifier(root.name.split("/")[-1])
    kind = identifier(root.label.split(" ")[0])
    if kind == "operator":  # its label's kind: `operator NAME (generic::batch…)`
        kind = identifier(root.label.split("(")[-1].split(",")[0].split(")")[0].split("::")[-1])
    base = part if part.startswith(kind) else f"{kind}_{part}".strip("_")
    if isinstance(root.scope, Keyed):
        words = [w for w in identifier(root.scope.key).split("_") if w not in ("event", "each")]
        base += "_by_" + "_".join(words[:3]) if words else ""
    return base


def name_stages(plan: Plan) -> Plan:
    """Each stage's ``name`` (see :func:`_what`), unique in the plan and never a Python keyword
    or a name of :data:`RESERVED` (a ``_2``… suffix when taken)."""
    taken: set[str] = set()
    stages = []
    for stage in plan.stages:
        base = _what(plan, stage) or "stage"
        if base[0].isdigit():
            base = "stage_" + base
        name, n = base, 1
        while name in taken or name in RESERVED or keyword.iskeyword(name):
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        stages.append(replace(stage, name=name))
    return replace(plan, stages=tuple(stages))
