"""The Spark plan of a job as ``templates/run_pipeline.py.j2`` renders it: the job graph handed
to the planner (:mod:`compiler.plan`, which decides every stage), then the planned stages as
``STAGES`` and as the Spark calls of ``batch_plan`` and ``stream_plan``.

Rendering only: each stage is one ``mapInArrow`` pass (``stage_mapper``) over its input, read
from the input streams or from the stages feeding it (``filter`` on its index, ``unionByName``
of several), partitioned as the plan says (``repartition`` by key or to one partition, then
``sortWithinPartitions`` in Tremor's order); a streaming job runs stateful stages on Spark's
state store (``state_stage``). Everything user-derived reaches the job through ``repr()``;
stage names are the planner's identifiers.
"""

from __future__ import annotations

import textwrap

from runtime_support.spark.ports import METRICS_PORT

from ..plan import initial_plan
from ..plan.model import Plan, PlanNode, Stage, show_partitioning
from .graph import NodeCode, output_node

Link = tuple[tuple[str, str], tuple[str, str]]
WIDTH = 94


def job_node(node: NodeCode) -> PlanNode:
    """The plan node of one job graph node."""
    return PlanNode(
        name=node.name,
        label=node.label or node.name,
        scope=node.scope,
        noun=node.noun,
        forwards=node.factory == "Passthrough",
        stateful=node.stateful,
        entry_field=node.entry_field,
        flush_transparent=node.flush_transparent,
        repeats=node.repeats,
    )


def job_graph(
    *,
    streams: tuple[str, ...],
    output_ports: tuple[str, ...],
    nodes: tuple[NodeCode, ...],
    links: tuple[Link, ...],
    counted: bool = False,
    meta_ports: tuple[str, ...] = (),
    exits: bool = False,
) -> Plan:
    """The planner's input: the job graph (input ``streams``, ``nodes``, ``links``, outputs
    ``output_ports``). ``counted``: every stage also reports its event counts; ``meta_ports``:
    the outputs whose sinks read ``$``; ``exits``: an ``exit`` sink ends the run at its first
    event, by ``(seq, sub)``."""
    return initial_plan(
        streams,
        tuple(job_node(n) for n in nodes),
        links,
        {output_node(p): p for p in output_ports},
        counted=counted,
        exits=exits,
        meta_ports=meta_ports,
    )


def stages_expr(plan: Plan) -> str:
    """``(StageSpec(...), ...)`` source text."""
    items = "".join(
        f"StageSpec(name={s.name!r}, members={s.members!r}, partitioning={s.kind!r}"
        + (f", carry={s.carry!r}" if s.carry is not None else "")
        + (f", entry={s.entry!r}" if s.entry is not None else "")
        + (", repeats=True" if s.repeats else "")
        + "),"
        for s in plan.stages
    )
    return f"({items})"


def plan_context(plan: Plan, no_input_meta: tuple[str, ...] = ()) -> dict[str, object]:
    """What ``templates/run_pipeline.py.j2`` needs to render the planned ``plan``: the input
    streams (``repr``), ``STAGES``, per stage its comment and its batch and streaming code,
    per sorted output port (``err`` always: undecodable input goes there; ``#metrics`` when
    counted) the stages holding it, and ``plan_imports``: every name the plan functions call.
    ``no_input_meta``: the operators compiled assuming input events without metadata (the job
    refuses an input with a ``meta`` column, ``spark_exec.refuse_input_meta``)."""
    streams = tuple(n.name for n in plan.nodes if n.reads)
    ports = sorted({p for _, p in plan.collectors} | {"err"})
    stages = plan.stages
    outputs = [(repr(p), [s.name for s in stages if p in s.ports]) for p in ports]
    if plan.counted:
        outputs.append((repr(METRICS_PORT), [s.name for s in stages]))
    batch = [_batch_code(plan, i) for i in range(len(stages))]
    stream = [_stream_code(plan, i) for i in range(len(stages))]
    rendered = [
        {
            "name": stages[i].name,
            "kind": stages[i].kind,
            "comment": _comment(plan, i),
            "batch": batch[i],
            "stream": stream[i],
        }
        for i in range(len(stages))
    ]
    code = "\n".join(line for lines in batch + stream for line in lines)
    return {
        "streams": [repr(stream) for stream in streams],
        "stages_expr": stages_expr(plan),
        "no_input_meta": repr(no_input_meta) if no_input_meta else "",
        "stages": rendered,
        "outputs": outputs,
        "first": stages[0].name if stages else "",
        "plan_imports": _imports(code, bool(no_input_meta), bool(streams)),
    }


READ_INPUT = "runtime_support.spark.plan:event_columns"
#: What the plan functions may call: ``(name in the code, "module:name")``.
CALLS = (
    ("StorageLevel.", "pyspark:StorageLevel"),
    ("F.", "pyspark.sql:functions as F"),
    ("entry_rows(", "runtime_support.spark.entry_keys:entry_rows"),
    ("passthroughs(", "runtime_support.spark.plan:passthroughs"),
    ("python_splits(", "runtime_support.spark.plan:python_splits"),
    ("REPEAT_ROW_SCHEMA", "runtime_support.spark.stages:REPEAT_ROW_SCHEMA"),
    (" ROW_SCHEMA", "runtime_support.spark.stages:ROW_SCHEMA"),
    ("stage_mapper(", "runtime_support.spark.stages:stage_mapper"),
    ("state_stage(", "runtime_support.spark.state_store:state_stage"),
)


def _imports(code: str, refuses: bool, reads: bool) -> tuple[str, ...]:
    """The imports of the plan functions whose stage code is ``code`` (``reads``: the job has
    input streams; a native job reads them with ``read_native`` instead, ``job.py``)."""
    found = [item for name, item in CALLS if name in code]
    return (
        *found,
        *((READ_INPUT,) if reads else ()),
        "runtime_support.spark.port_frames:port_frames",
        "runtime_support.spark.plan:stream_outputs",
        "runtime_support.spark.stages:StageSpec",
        *(("runtime_support.spark.plan:refuse_input_meta",) if refuses else ()),
    )


def _schema(stage: Stage) -> str:
    """The name of the stage's row schema in the job (``runtime_support.spark.stages``)."""
    return "REPEAT_ROW_SCHEMA" if stage.repeats else "ROW_SCHEMA"


def _mapper(index: int, flush: str, extra: str = "", graph: str = "GRAPH") -> str:
    return f"stage_mapper({graph}, STAGES, {index}, {flush}{extra})"


def _fed(plan: Plan, stage: Stage, index: int) -> str:
    """The rows of the stages feeding ``stage`` that are for it (one union)."""
    parts = [f'{plan.stages[i].name}.filter(F.col("stage") == {index})' for i in stage.inputs]
    source = parts[0] + "".join(f".unionByName({p})" for p in parts[1:])
    return f"({source})" if len(parts) > 1 else source


def _sorted(order: tuple[str, ...]) -> str:
    """``.sortWithinPartitions("a", "b")`` (column names of the rows, not user text)."""
    return ".sortWithinPartitions(" + ", ".join(f'"{c}"' for c in order) + ")"


def _reads(plan: Plan, stage: Stage) -> bool:
    return any(plan.node(m).reads for m in stage.members)


def _batch_code(plan: Plan, index: int) -> list[str]:
    """The lines of ``batch_plan`` that compute stage ``index`` (none when a batch run skips
    it)."""
    stage = plan.stages[index]
    name, schema = stage.name, _schema(stage)
    if stage.bypassed:
        return []
    if stage.entry is not None:
        return [
            'parts = int(spark.conf.get("spark.sql.shuffle.partitions"))',
            f"{name} = entry_rows(events, {stage.entry[1]!r}, parts)"
            '.repartition("part").sortWithinPartitions("seq").drop("part", "stream")'
            f'.mapInArrow({_mapper(index, "flush_at_end", ", parts")}, {schema})',
        ]
    if _reads(plan, stage):
        order = ("seq", "stream")
        if stage.kind == "source":
            # A source stage's members are stateless (a stateful node roots a stage of its
            # own): each event runs alone, so its rows need no order; port_frames orders them.
            source = "python_splits(events)"
        else:
            source = "events"
    elif not stage.inputs:
        return [f"{name} = spark.createDataFrame([], ROW_SCHEMA)"]
    else:
        order, source = ("seq", "path"), _fed(plan, stage, index)
    if stage.transparent:
        ordered = f"{source}.repartition(1){_sorted(order)}"
        graph = f"passthroughs(GRAPH, {stage.transparent!r})"
        lines = [
            "if flush_at_end:",
            f"    {name} = {source}.mapInArrow({_mapper(index, 'True', graph=graph)}, {schema})",
            "else:",
            f"    {name} = {ordered}.mapInArrow({_mapper(index, 'False')}, {schema})",
        ]
    else:
        if stage.kind == "single":
            source += f".repartition(1){_sorted(order)}"
        elif _reads(plan, stage) and stage.kind != "source":
            source += _sorted(order)
        elif stage.kind == "hash":
            source += f'.repartition("key"){_sorted(order)}'
        lines = [f"{name} = {source}.mapInArrow({_mapper(index, 'flush_at_end')}, {schema})"]
    if stage.persist:
        lines.append(f"{name} = {name}.persist(StorageLevel.MEMORY_AND_DISK)")
    return lines


def _stream_code(plan: Plan, index: int) -> list[str]:
    """The lines of ``stream_plan`` that compute stage ``index``: a stateful stage on Spark's
    state store, the source stage spread over the shards."""
    stage = plan.stages[index]
    name, schema = stage.name, _schema(stage)
    reads = _reads(plan, stage)
    if not reads and not stage.inputs:
        return [f"{name} = spark.createDataFrame([], ROW_SCHEMA)"]
    if stage.kind in ("hash", "single"):
        source = "events" if reads else _fed(plan, stage, index)
        return [f"{name} = state_stage({source}, GRAPH, STAGES, {index}, streaming)"]
    source = "events.repartition(streaming.shards)" if reads else _fed(plan, stage, index)
    return [f"{name} = {source}.mapInArrow({_mapper(index, 'False')}, {schema})"]


def _comment(plan: Plan, index: int) -> list[str]:
    """The comment above stage ``index``: what it runs, how it is partitioned and why."""
    stage = plan.stages[index]
    title = f"Stage {index}, {stage.name} ({show_partitioning(stage.partitioning)}): {stage.why}."
    lines = textwrap.wrap(title, WIDTH)
    if stage.entry is not None:
        lines += textwrap.wrap(
            f"A batch run reads the input rows here: Spark's JSON reader reads event."
            f"{stage.entry[1]}, entry_rows sends each group to partition crc32(group) mod the "
            "shuffle partitions (checked against the decoded event: "
            "runtime_support.spark.entry_keys), each key's events in arrival order (seq); "
            "a streaming run reads "
            f"{plan.stages[stage.inputs[0]].name}'s rows, one per group.",
            WIDTH,
        )
    elif stage.kind == "hash":
        lines += textwrap.wrap(
            "Rows arrive one per group, keyed by the stage before the shuffle; each key's "
            "events run in Tremor's order (seq, path).",
            WIDTH,
        )
    elif stage.kind == "single" and stage.transparent:
        names = ", ".join(map(repr, stage.transparent))
        lines += textwrap.wrap(
            f"With flush_at_end (the default) batches {names} are invisible (only sinks that "
            "do not read $ see them, each event once, in order): the stage runs on its input's "
            "partitions with them as passthroughs (not a cached mapInArrow: a new graph each run, "
            "whose UDF is never reused). Without it, one partition: every event in Tremor's "
            "order (seq, path); an unfinished batch is not written.",
            WIDTH,
        )
    elif stage.kind == "single":
        lines.append("One partition: every event in Tremor's order (seq, path).")
    if stage.bypassed:
        lines += textwrap.wrap(
            f"A batch run skips it: its events go straight to {plan.stages[stage.carry].name}"
            " (stage carry), keyed there by Spark's JSON reader.",
            WIDTH,
        )
    elif stage.carry is not None:
        lines.append(
            f"Job outputs ride along into {plan.stages[stage.carry].name} (no second pass here)."
        )
    if stage.repeats:
        lines += textwrap.wrap(
            "An event's equal outputs in a row (one per group) leave Python as one row with a "
            "repeat count; the JVM expands it (runtime_support.spark.port_frames).",
            WIDTH,
        )
    if stage.persist:
        lines.append("A batch run keeps it (read more than once) rather than run it again.")
    return [line if line.isprintable() else repr(line)[1:-1] for line in lines]
