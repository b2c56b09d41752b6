"""The Spark plan of a job: the planner (:mod:`compiler.plan`) run over the job's graph, and
what ``templates/run_pipeline.py.j2`` renders of it, one ``mapInArrow`` stage per plan stage.

Input streams and graph nodes are plan nodes; output collectors are not: a link into one is a
job output of the stage that holds its producer. Rules on top of the planner's:

- the source stage (every input stream) also emits ``err`` (undecodable input lines);
- a stage whose only downstream stage is keyed sends its job outputs along with its events
  (``carry``) rather than making Spark compute or keep it twice;
- keyed stages fed by the same stages run as one (:func:`merge_keyed_siblings`);
- a stage read by several downstream stages, or by one and the job's ports, is persisted (its
  ports alone are read in one pass, or kept by the caller: runtime_support.spark.port_frames);
- a forward stage of passthroughs whose events all leave the job runs inside each stage
  feeding it (:func:`absorb_forwarders`).
- a source stage that feeds no other stage and holds a select that emits an event's output
  once per group (``NodeCode.repeats``) sends equal outputs in a row as one row with a count
  (``repeats``; the JVM expands it, runtime_support.spark.port_frames);
- a single stage whose only stateful members are flush-transparent batches
  (:mod:`compiler.passes.batch_flush`) whose batch events reach only job outputs that no
  other node feeds and whose sinks do not read ``$``, from one input stream, in a job that
  counts no events and has no ``exit`` sink, runs in parallel with them as passthroughs when
  the run flushes (:func:`flush_transparent`; ``spark_exec.single_unless_flushing``).

Everything user-derived reaches the job through ``repr()``.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

from runtime_support.spark.ports import METRICS_PORT

from ..ir.scope import Stateless
from ..plan import run_phases
from ..plan.model import Edge, Hash, Plan, PlanNode, Single, Source, show_partitioning
from ..records import Record, record
from .graph import NodeCode, output_node

Link = tuple[tuple[str, str], tuple[str, str]]


@record(kw_only=False)
class StageCode(Record):
    """One stage as the job renders it (``index`` is its position in ``STAGES``)."""

    index: int
    members: tuple[str, ...]
    kind: str  # source, forward, hash or single
    reads: bool  # it holds the input streams (reads the job's input)
    why: str
    inputs: tuple[int, ...]
    carry: int | None
    persist: bool
    ports: tuple[str, ...]  # job outputs read from this stage's rows
    transparent: tuple[str, ...] = ()  # batches run as passthroughs when the run flushes
    entry: tuple[str, str] | None = None  # batch: fed straight by this stream, keyed by field
    bypassed: bool = False  # batch: a source stage whose events go straight to an entry
    repeats: bool = False  # its rows carry a repeat count (REPEAT_ROW_SCHEMA)


def job_plan(inputs: tuple[str, ...], nodes: tuple[NodeCode, ...], links: tuple[Link, ...]) -> Plan:
    """The planner's plan of the job graph (input streams, nodes and the links among them)."""
    known = {*inputs, *(n.name for n in nodes)}
    plan_nodes = [
        PlanNode(name=s, label=f"input {s}", scope=Stateless(), reads=True, forwards=True)
        for s in inputs
    ]
    plan_nodes += [
        PlanNode(
            name=n.name,
            label=n.label or n.name,
            scope=n.scope,
            noun=n.noun,
            forwards=n.factory == "Passthrough",
        )
        for n in nodes
        if n.name not in inputs
    ]
    edges = [Edge(source=s, target=t) for s, t in links if s[0] in known and t[0] in known]
    planned = run_phases(Plan(nodes=tuple(plan_nodes), edges=tuple(edges)))[-1][1]
    return absorb_forwarders(merge_keyed_siblings(planned))


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
        if _kind(stage.partitioning) != "hash" or any(plan.node(m).reads for m in members):
            continue
        feeders = frozenset(
            where[e.source[0]]
            for e in plan.edges
            if e.target[0] in members and e.source[0] not in members
        )
        host = first.setdefault(feeders, index)
        if feeders and host != index:
            merged = (stages[host].members + stage.members, f"{stages[host].why}; {stage.why}")
            stages[host] = replace(stages[host], members=merged[0], why=merged[1])
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
        if _kind(stage.partitioning) != "forward" or not all(
            n.forwards and not n.reads for n in nodes
        ):
            continue
        edges = [e for e in plan.edges if (e.source[0] in members) != (e.target[0] in members)]
        feeders = {where[e.source[0]] for e in edges if e.target[0] in members}
        if not feeders or any(e.source[0] in members for e in edges):
            continue
        for feeder in feeders:
            stages[feeder] = replace(stages[feeder], members=stages[feeder].members + stage.members)
        dropped.add(index)
    return replace(plan, stages=tuple(s for i, s in enumerate(stages) if i not in dropped))


def stage_codes(
    plan: Plan, links: tuple[Link, ...], collectors: dict[str, str], inputs: tuple[str, ...]
) -> list[StageCode]:
    """The stages of ``plan`` with their inputs, carries, persistence and output ports
    (``collectors``: output node name → port; ``inputs``: the input streams)."""
    where = plan.stage_index()
    homes: dict[str, list[int]] = {}  # a node absorbed into several stages has several
    for index, stage in enumerate(plan.stages):
        for member in stage.members:
            homes.setdefault(member, []).append(index)
    count = len(plan.stages)
    downstream: list[set[int]] = [set() for _ in range(count)]
    upstream: list[set[int]] = [set() for _ in range(count)]
    for edge in plan.edges:
        for src in homes[edge.source[0]]:
            if edge.target[0] not in plan.stages[src].members:
                dst = where[edge.target[0]]
                downstream[src].add(dst)
                upstream[dst].add(src)
    ports: list[set[str]] = [set() for _ in range(count)]
    for (src, _), (dst, _) in links:
        if dst in collectors:
            for home in homes.get(src, ()):
                ports[home].add(collectors[dst])
    kinds = [_kind(stage.partitioning) for stage in plan.stages]
    codes: list[StageCode] = []
    for index, stage in enumerate(plan.stages):
        reads = any(m in inputs for m in stage.members)
        if reads:
            ports[index].add("err")
        carry = None
        if len(downstream[index]) == 1 and ports[index]:
            (only,) = downstream[index]
            carry = only if kinds[only] == "hash" else None
        if carry is not None:
            ports[carry] |= ports[index]
        own = () if carry is not None else tuple(sorted(ports[index]))
        # Its ports count as one reader: the caller reads them in one pass or keeps the stage.
        readers = len(downstream[index]) + (1 if own else 0)
        codes.append(
            StageCode(
                index=index,
                members=stage.members,
                kind=kinds[index],
                reads=reads,
                why=stage.why,
                inputs=tuple(sorted(upstream[index])),
                carry=carry,
                persist=readers > 1,
                ports=own,
            )
        )
    return codes


def repeats(code: StageCode, codes: list[StageCode], nodes: tuple[NodeCode, ...]) -> bool:
    """``code`` is a source stage that no other stage reads, with no carry (so neither a keyed
    entry nor bypassed for one), holding a node that emits an event's output once per group
    (:attr:`NodeCode.repeats`)."""
    fed = any(code.index in other.inputs for other in codes)
    mine = set(code.members)
    return (
        code.kind == "source"
        and code.reads
        and code.carry is None
        and not fed
        and any(node.repeats for node in nodes if node.name in mine)
    )


def keyed_entries(
    codes: list[StageCode],
    nodes: tuple[NodeCode, ...],
    links: tuple[Link, ...],
    streams: tuple[str, ...],
) -> list[StageCode]:
    """``codes`` with each keyed stage that a batch run may feed straight from the input
    (``runtime_support.spark.entry_keys``: the JVM reads the shuffle key): the job's one input
    stream, alone in the source stage with nodes that nothing feeds, is linked only to a
    select of that stage grouped by one top-level event field, and that stage has no other
    input."""
    by_name = {node.name: node for node in nodes}
    fed = {dst for _, (dst, _) in links}
    found = list(codes)
    for code in codes:
        others = [m for m in code.members if m not in streams]
        if (
            code.kind != "source"
            or len(streams) != 1
            or code.carry is None
            or any(m in fed for m in others)
        ):
            continue
        (stream,) = streams
        targets = [dst for (src, _), (dst, _) in links if src == stream]
        target = codes[code.carry]
        node = by_name.get(targets[0]) if len(targets) == 1 else None
        if (
            node is None
            or not node.entry_field
            or target.kind != "hash"
            or target.inputs != (code.index,)
            or node.name not in target.members
        ):
            continue
        found[code.index] = replace(code, bypassed=True)
        found[target.index] = replace(target, entry=(stream, node.entry_field))
    return found


def _kind(partitioning: object) -> str:
    match partitioning:
        case Source():
            return "source"
        case Hash():
            return "hash"
        case Single():
            return "single"
        case _:
            return "forward"


def stages_expr(codes: list[StageCode]) -> str:
    """``(StageSpec(...), ...)`` source text."""
    items = "".join(
        f"StageSpec(members={c.members!r}, partitioning={c.kind!r}, carry={c.carry!r}"
        + (f", entry={c.entry!r}" if c.entry is not None else "")
        + (", repeats=True" if c.repeats else "")
        + "),"
        for c in codes
    )
    return f"({items})"


def stage_context(plan: Plan, codes: list[StageCode], ports: list[str]) -> dict[str, object]:
    """What the template renders: per stage its comment lines and its DataFrame expression;
    per port the stages whose rows hold it."""
    rendered = []
    for code in codes:
        part = plan.stages[code.index].partitioning
        rendered.append(
            {
                "name": f"stage{code.index}",
                "comment": _comment(code, show_partitioning(part)),
                "expr": None if code.bypassed else _expr(code),
                "stream_expr": _stream_expr(code),
                "persist": code.persist,
            }
        )
    outputs = [
        (repr(port), [f"stage{c.index}" for c in codes if port in c.ports]) for port in ports
    ]
    return {"stages": rendered, "outputs": outputs}


def _comment(code: StageCode, partitioning: str) -> list[str]:
    title = f"Stage {code.index} ({partitioning}): {code.why}."
    lines = textwrap.wrap(title, 94)
    if code.entry is not None:
        lines += textwrap.wrap(
            "A batch run reads the input rows here, keyed by event."
            f"{code.entry[1]} as Spark's JSON reader reads it, so a group's events share a "
            "partition (runtime_support.spark.entry_keys), each key's events in arrival order "
            "(seq); "
            "a streaming run reads stage 0's rows, one per group.",
            94,
        )
    elif code.kind == "hash":
        lines += textwrap.wrap(
            "Rows arrive one per group, keyed by the stage before the shuffle; each key's "
            "events run in Tremor's order (seq, path).",
            94,
        )
    elif code.kind == "single" and code.transparent:
        names = ", ".join(map(repr, code.transparent))
        lines += textwrap.wrap(
            f"With flush_at_end (the default) batches {names} are invisible (only sinks that "
            "do not read $ see them, each event once, in order): the stage runs on its input's "
            "partitions with them as passthroughs. Without it, one partition: every event in "
            "Tremor's order (seq, path); an unfinished batch is not written.",
            94,
        )
    elif code.kind == "single":
        lines.append("One partition: every event in Tremor's order (seq, path).")
    if code.bypassed:
        lines += textwrap.wrap(
            f"A batch run skips it: its events go straight to stage {code.carry}, keyed there "
            "by Spark's JSON reader.",
            94,
        )
    elif code.carry is not None:
        lines.append(f"Job outputs ride along into stage {code.carry} (no second pass here).")
    if code.repeats:
        lines += textwrap.wrap(
            "An event's equal outputs in a row (one per group) leave Python as one row with a "
            "repeat count; the JVM expands it (runtime_support.spark.port_frames).",
            94,
        )
    return [line if line.isprintable() else repr(line)[1:-1] for line in lines]


def _expr(code: StageCode) -> str:
    if code.entry is not None:
        return f"keyed_entry(events, GRAPH, STAGES, {code.index}, flush_at_end)"
    mapper = f"stage_mapper(GRAPH, STAGES, {code.index}, flush_at_end)"
    if code.reads:
        # A source stage's members are stateless (a stateful node roots a stage of its own):
        # each event runs alone, so its rows need no order; write_ports orders the outputs.
        if code.kind == "source":
            source = "python_splits(events)"
        elif code.transparent:
            return _unless_flushing(code, "events", ("seq", "stream"))
        else:
            source = "events.repartition(1)" if code.kind == "single" else "events"
            source += '.sortWithinPartitions("seq", "stream")'
    elif not code.inputs:
        return "spark.createDataFrame([], ROW_SCHEMA)"
    else:
        parts = [f'stage{i}.filter(F.col("stage") == {code.index})' for i in code.inputs]
        source = parts[0] + "".join(f".unionByName({p})" for p in parts[1:])
        if len(parts) > 1:
            source = f"({source})"
        if code.transparent:
            return _unless_flushing(code, source, ("seq", "path"))
        if code.kind == "hash":
            source += '.repartition("key").sortWithinPartitions("seq", "path")'
        elif code.kind == "single":
            source += '.repartition(1).sortWithinPartitions("seq", "path")'
    return f"{source}.mapInArrow({mapper}, {_schema(code)})"


def _schema(code: StageCode) -> str:
    """The name of the stage's row schema in the job (``runtime_support.spark.stages``)."""
    return "REPEAT_ROW_SCHEMA" if code.repeats else "ROW_SCHEMA"


def _unless_flushing(code: StageCode, source: str, order: tuple[str, ...]) -> str:
    """A single stage whose batches run as passthroughs when the run flushes."""
    return (
        f"single_unless_flushing({source}, {order!r}, GRAPH, STAGES, {code.index}, "
        f"flush_at_end, {code.transparent!r})"
    )


def _stream_expr(code: StageCode) -> str | None:
    """The stage in a streaming job, where it differs from the batch one: a stateful stage on
    Spark's state store, the source stage spread over the shards (None: the same)."""
    if code.kind in ("hash", "single"):
        if code.reads:
            source = "events"
        elif not code.inputs:
            return None
        else:
            parts = [f'stage{i}.filter(F.col("stage") == {code.index})' for i in code.inputs]
            source = parts[0] + "".join(f".unionByName({p})" for p in parts[1:])
        return f"state_stage({source}, GRAPH, STAGES, {code.index}, streaming)"
    if code.reads:
        mapper = f"stage_mapper(GRAPH, STAGES, {code.index}, False)"
        return f"events.repartition(streaming.shards).mapInArrow({mapper}, {_schema(code)})"
    return None


def flush_transparent(
    code: StageCode,
    nodes: tuple[NodeCode, ...],
    links: tuple[Link, ...],
    streams: tuple[str, ...],
    collectors: dict[str, str],
    meta_ports: tuple[str, ...],
) -> tuple[str, ...]:
    """The batches of ``code`` that may run as passthroughs when the run flushes: all its
    stateful members, when it is a single stage and each of them is a flush-transparent
    batch whose events are invisible in the job (:func:`_invisible`); else ``()``."""
    if code.kind != "single":
        return ()
    by_name = {node.name: node for node in nodes}
    members = [by_name[m] for m in code.members if m in by_name]
    stateful = [n for n in members if n.stateful or not isinstance(n.scope, Stateless)]
    if not stateful or not all(
        n.flush_transparent and _invisible(n.name, by_name, links, streams, collectors, meta_ports)
        for n in stateful
    ):
        return ()
    return tuple(n.name for n in stateful)


def _invisible(
    batch: str,
    by_name: dict[str, NodeCode],
    links: tuple[Link, ...],
    streams: tuple[str, ...],
    collectors: dict[str, str],
    meta_ports: tuple[str, ...],
) -> bool:
    """Every path out of ``batch`` in the job leads through passthroughs to outputs whose sinks
    do not read ``$``, other than ``err`` (a source stage's undecodable lines go there); every
    link into a node on those paths comes from ``batch`` or from another one of them; at most
    one input stream feeds ``batch`` (the single stage orders two streams' equal ``seq``)."""
    reached: set[str] = set()
    todo = [batch]
    while todo:
        here = todo.pop()
        for (src, _), (dst, _) in links:
            if src != here or dst in reached:
                continue
            if dst in collectors:
                if collectors[dst] in meta_ports or collectors[dst] == "err":
                    return False
            elif dst == batch or dst in streams:
                return False
            elif getattr(by_name.get(dst), "factory", None) != "Passthrough":
                return False  # a node that would see a batch event
            else:
                todo.append(dst)
            reached.add(dst)
    inside = reached | {batch}
    if any(dst in reached and src not in inside for (src, _), (dst, _) in links):
        return False  # another producer into one of its outputs
    return len(_feeding_streams(batch, links, streams)) <= 1


def _feeding_streams(node: str, links: tuple[Link, ...], streams: tuple[str, ...]) -> set[str]:
    """The input streams with a path to ``node``."""
    seen = {node}
    todo = [node]
    while todo:
        here = todo.pop()
        for (src, _), (dst, _) in links:
            if dst == here and src not in seen:
                seen.add(src)
                todo.append(src)
    return seen & set(streams)


def plan_context(
    *,
    streams: tuple[str, ...],
    output_ports: tuple[str, ...],
    nodes: tuple[NodeCode, ...],
    links: tuple[tuple[tuple[str, str], tuple[str, str]], ...],
    counted: bool = False,
    no_input_meta: tuple[str, ...] = (),
    meta_ports: tuple[str, ...] = (),
    exits: bool = False,
) -> dict[str, object]:
    """What ``templates/run_pipeline.py.j2`` needs to render a job's Spark plan: the input
    streams (``repr``), the stages (``STAGES`` and each stage's DataFrame with its comment) and
    per sorted output port (``err`` always: undecodable input goes there) the stages holding it.
    ``counted``: every stage also holds the port ``#metrics`` (its event counts) and is kept.
    ``no_input_meta``: the operators compiled assuming input events without metadata (the job
    refuses an input with a ``meta`` column, ``spark_exec.refuse_input_meta``).
    ``meta_ports``: the outputs whose sinks read ``$``; ``exits``: an ``exit`` sink ends the
    run at the first event reaching it, by ``(seq, sub)``, where a batch's events sit at the
    event that closed it (no batch runs as a passthrough then). ``plan_imports``: what the
    stages call beyond ``PLAN_IMPORTS``."""
    ports = sorted(set(output_ports) | {"err"})
    plan = job_plan(streams, nodes, links)
    collectors = {output_node(p): p for p in output_ports}
    codes = stage_codes(plan, links, collectors, streams)
    if not counted:
        codes = keyed_entries(codes, nodes, links, streams)
    if not counted and not exits:
        codes = [
            replace(
                code,
                transparent=flush_transparent(code, nodes, links, streams, collectors, meta_ports),
            )
            for code in codes
        ]
    codes = [replace(code, repeats=repeats(code, codes, nodes)) for code in codes]
    context = stage_context(plan, codes, ports)
    if counted:
        context["outputs"].append((repr(METRICS_PORT), [f"stage{c.index}" for c in codes]))
        for stage in context["stages"]:
            stage["persist"] = True
    return {
        "streams": [repr(stream) for stream in streams],
        "stages_expr": stages_expr(codes),
        "no_input_meta": repr(no_input_meta) if no_input_meta else "",
        "plan_imports": (
            *(
                ("runtime_support.spark.plan:single_unless_flushing",)
                if any(code.transparent for code in codes)
                else ()
            ),
            *(
                ("runtime_support.spark.plan:keyed_entry",)
                if any(code.entry for code in codes)
                else ()
            ),
            *(
                ("runtime_support.spark.stages:REPEAT_ROW_SCHEMA",)
                if any(code.repeats for code in codes)
                else ()
            ),
        ),
        **context,
    }
