"""Render a :class:`~compiler.ir.flow.Deployment` as one flow job: every deployed flow's
pipelines in one graph, connectors as a FlowSpec. Raises no user error.

Graph node names are the IR's ``<flow>/<pipeline>/<node>``; a connector source port is the input
stream ``<flow>/<connector>/<port>``, a connector sink port the output
``<flow>/<connector>/<port>``. Links follow the connections in order (Tremor's fan-out order).
Select errors of a pipeline go to its ``err`` port when it has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import flow as F
from ..plan import plan_of
from ..plan.model import Plan
from ..registry.connectors import SINK_FACTORIES, SOURCE_FACTORIES
from ..source import Source
from .deploy_metrics import METRICS_IMPORTS, metrics_expr
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import render_template
from .query import compile_pipeline
from .query_select import Emitter
from .stages import job_graph, plan_context

FLOW_IMPORTS = (
    "runtime_support.io.connectors.base:ConnectorSpec",
    "runtime_support.flows.batch:FlowSpec",
    "runtime_support.flows.cli:flow_main",
)
RUN_DOC = (
    "Run every pipeline of the deployed flows as one graph: ``inputs`` maps connector streams\n"
    "    to DataFrames with a JSON ``value`` column; returns one DataFrame (``value``, ``seq``,\n"
    "    ``sub``, ``meta``) per connected sink port. ``flush_at_end``: a final tick after the\n"
    "    last event flushes open windows and timed batches."
)

Link = tuple[tuple[str, str], tuple[str, str]]

#: Sink kinds that read each event's metadata (``$elastic``, ``$kafka_producer``, ``$binary``,
#: ``$kv``): their outputs carry it (``GraphSpec.meta_outputs``).
META_SINKS = frozenset({"dns_client", "elastic", "kafka_producer", "kv", "ws_client"})


@dataclass
class _Job:
    """What the flows contribute, accumulated in deploy order."""

    imports: set[str] = field(default_factory=set)
    sources: list[tuple[str, str]] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    nodes: list[NodeCode] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    connectors: list[str] = field(default_factory=list)
    inputs: list[tuple[int, str, str]] = field(default_factory=list)
    outputs: list[tuple[str, int, str]] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # each connector's kind, by index
    emitter: Emitter = field(default_factory=Emitter)
    described: list[str] = field(default_factory=list)  # connector summaries, by index
    writes: list[str] = field(default_factory=list)  # how each connector writes, by index
    aliases: list[str] = field(default_factory=list)  # ``flow::alias``, by index
    reports: list[int | None] = field(default_factory=list)  # metrics_interval_s, by index
    pipelines: list[tuple[str, F.DeployedPipeline]] = field(default_factory=list)  # (flow, p)
    args: list[str] = field(default_factory=list)  # FlowArg(...) of every deployed flow's args


def _add_pipeline(job: _Job, pipeline: F.DeployedPipeline) -> None:
    code = compile_pipeline(pipeline.graph, job.emitter)
    job.imports.update(code.imports)
    job.sources[:] = code.sources
    job.blocks.extend(code.blocks)
    job.nodes.extend(code.nodes)
    job.links.extend(code.links)
    outputs = dict(code.outputs)
    if "err" in outputs:
        job.links.extend((err, (outputs["err"], "in")) for err in code.errors)


def _connector_index(job: _Job, flow: F.Flow, alias: str) -> int:
    """Index of the connector instance ``alias`` in the FlowSpec (added on first use)."""
    inst = flow.connector(alias)
    source, sink = SOURCE_FACTORIES.get(inst.kind, ""), SINK_FACTORIES.get(inst.kind, "")
    text = (
        f"ConnectorSpec(alias={flow.alias + '::' + alias!r}, kind={inst.kind!r}, "
        f"params={inst.params!r}, source={source!r}, sink={sink!r})"
    )
    if text not in job.connectors:
        job.connectors.append(text)
        job.described.append(_describe(f"{flow.alias}::{alias}", inst.kind, inst.params))
        job.writes.append(_sink_way(inst.kind, inst.params))
        job.kinds.append(inst.kind)
        job.aliases.append(f"{flow.alias}::{alias}")
        job.reports.append(inst.params.get("metrics_interval_s"))
    return job.connectors.index(text)


def _describe(alias: str, kind: str, params: dict) -> str:
    """A connector for a plan comment: alias, kind, path and codec (user text via ``repr``)."""
    config = params.get("config")
    path = config.get("path") if isinstance(config, dict) else None
    codec = params.get("codec")
    codec = codec.get("name") if isinstance(codec, dict) else codec
    pairs = (("path", path), ("codec", codec))
    extra = "".join(f", {key} {value!r}" for key, value in pairs if value)
    return f"{alias!r} ({kind}{extra})"


def _sink_way(kind: str, params: dict) -> str:
    """How ``runtime_support.flows.batch.run_flow`` writes a sink of ``kind`` (for a plan
    comment)."""
    config = params.get("config")
    single = isinstance(config, dict) and config.get("single_file") is True
    if kind == "file" and not single:
        return "Spark's text writer: part files in the folder at path, each in emission order"
    if kind in ("file", "stdio"):
        return "on the driver, every event in the whole emission order (small outputs)"
    if kind == "exit" and isinstance(config, dict) and config.get("delay"):
        return "stops the run `delay` after its first event (batch: by the events' ingest_ns)"
    if kind == "exit":
        return "its first event stops the run: the events before it reach the sinks"
    if kind == "elastic":
        return "bulk requests from the executors (mapInArrow); its responses feed out/err"
    if kind == "dns_client":
        return "lookups from the executors (mapInArrow, dnspython); answers out/err"
    if kind == "kv":
        return "commands applied in emission order by one task (sqlite3 at path); answers out/err"
    return "discarded, never computed"


def _flow_lines(job: _Job) -> list[str]:
    """Comment lines of ``main``: which connector feeds which input stream, which output feeds
    which connector and how that sink is written."""
    lines = ["Sources read (Spark DataFrames, one per connected source port):"]
    lines += [f"  {job.described[c]} port {p!r} -> stream {s!r}" for c, p, s in job.inputs]
    lines.append("Sinks (each output is the DataFrame value, seq, sub):")
    for name, c, port in job.outputs:
        lines.append(f"  output {name!r} -> {job.described[c]} port {port!r}:")
        lines.append(f"    {job.writes[c]}")
    return lines


def _connect(job: _Job, flow: F.Flow, conn: F.Connection) -> None:
    """Add the links of one connection."""
    src, dst = conn.source, conn.target
    if isinstance(src, F.ConnectorEnd):
        assert isinstance(dst, F.PipelineEnd), "a connection joins at least one pipeline"
        stream = f"{flow.alias}/{src.connector}/{src.port}"
        if any(p.alias == src.connector for p in flow.pipelines):  # not a node of that pipeline
            stream = f"{flow.alias}/connector::{src.connector}/{src.port}"
        index = _connector_index(job, flow, src.connector)
        if all(s != stream for _, _, s in job.inputs):
            job.inputs.append((index, src.port, stream))
        job.links.append(((stream, "out"), (dst.node, "in")))
        return
    origin = (src.node, "out")
    if isinstance(dst, F.PipelineEnd):
        job.links.append((origin, (dst.node, "in")))
        return
    name = f"{flow.alias}/{dst.connector}/{dst.port}"
    index = _connector_index(job, flow, dst.connector)
    if all(n != name for n, _, _ in job.outputs):
        job.outputs.append((name, index, dst.port))
    job.links.append((origin, (output_node(name), "in")))


def _add_flow(job: _Job, flow: F.Flow) -> None:
    for pipeline in flow.pipelines:
        _add_pipeline(job, pipeline)
        job.pipelines.append((flow.alias, pipeline))
    for conn in flow.connections:
        _connect(job, flow, conn)


def _answered(job: _Job) -> tuple[str, ...]:
    """The outputs fed by a responding sink's ``out``/``err`` ports (the second pass of a
    batch run, see compiler/passes/response_ports.py), in output order."""
    from ..passes.response_ports import SECOND_PASS

    starts = [s for c, _, s in job.inputs if job.kinds[c] in SECOND_PASS]
    nexts: dict[str, list[str]] = {}
    for (src, _), (dst, _) in job.links:
        nexts.setdefault(src, []).append(dst)
    seen: set[str] = set()
    while starts:
        node = starts.pop()
        if node not in seen:
            seen.add(node)
            starts.extend(nexts.get(node, ()))
    return tuple(n for n, _, _ in job.outputs if output_node(n) in seen)


def _job_graph(job: _Job) -> Plan:
    """The planner's input: the job graph of every deployed flow."""
    return job_graph(
        streams=tuple(s for _, _, s in job.inputs),
        output_ports=tuple(n for n, _, _ in job.outputs),
        nodes=tuple(job.nodes),
        links=tuple(job.links),
        counted=bool(metrics_expr(job)),
        meta_ports=tuple(n for n, c, _ in job.outputs if job.kinds[c] in META_SINKS),
        exits="exit" in job.kinds,  # the run ends at an exit's first event, by (seq, sub)
    )


def _render(job: _Job, source: Source, job_name: str) -> str:
    streams = tuple(s for _, _, s in job.inputs)
    ports = tuple(n for n, _, _ in job.outputs)
    nodes = tuple(job.nodes)
    meta = tuple(n for n, c, _ in job.outputs if job.kinds[c] in META_SINKS)
    metrics = metrics_expr(job)
    graph = graph_expr(
        inputs=streams,
        output_ports=ports,
        nodes=nodes,
        links=tuple(job.links),
        meta_ports=meta,
        counted=bool(metrics),
    )
    plan = plan_context(plan_of(_job_graph(job)))
    answered = _answered(job)
    flow = (
        f"FlowSpec(connectors=({''.join(c + ',' for c in job.connectors)}), "
        f"sources={tuple(job.inputs)!r}, sinks={tuple(job.outputs)!r}"
        + (f", answered={answered!r}" if answered else "")
        + (f", metrics={metrics}" if metrics else "")
        + (f", args=({''.join(a + ',' for a in job.args)})" if job.args else "")
        + ")"
    )
    return render_template(
        "flow_job.py.j2",
        source_name=source.name,
        job_name=job_name,
        imports=(
            *sorted(job.imports),
            *GRAPH_IMPORTS,
            *FLOW_IMPORTS,
            *(METRICS_IMPORTS if metrics else ()),
            *(("runtime_support.flows.args:FlowArg",) if job.args else ()),
            *plan["plan_imports"],  # type: ignore[misc]
        ),
        sources=tuple(job.sources),
        blocks=tuple(job.blocks),
        graph=graph,
        flow=flow,
        flow_lines=_flow_lines(job),
        description=repr(f"Tremor flow {source.name} on Spark"),
        run_doc=RUN_DOC,
        native=False,
        **plan,
    )


def _add_args(job: _Job, flow: F.Flow, qualified: bool) -> None:
    """The flow's args as the job's run-time options (``flow.name`` when several flows are
    deployed); a site of a connector no connection uses is left out (the job has no such
    connector)."""
    for arg in flow.args:
        sites = tuple(
            (job.aliases.index(f"{flow.alias}::{alias}"), path)
            for alias, path in arg.sites
            if f"{flow.alias}::{alias}" in job.aliases
        )
        name = f"{flow.alias}.{arg.name}" if qualified else arg.name
        job.args.append(
            f"FlowArg(name={name!r}, value={arg.value!r}, sites={sites!r}, fixed={arg.fixed!r})"
        )


def _assembled(deployment: F.Deployment) -> _Job:
    job = _Job()
    for flow in deployment.flows:
        _add_flow(job, flow)
    for flow in deployment.flows:
        _add_args(job, flow, len(deployment.flows) > 1)
    return job


def deploy_graph(deployment: F.Deployment) -> Plan:
    """The planner's input for the job of ``deployment`` (see :func:`build_deploy_job`)."""
    return _job_graph(_assembled(deployment))


def build_deploy_job(deployment: F.Deployment, source: Source, job_name: str) -> str:
    """The job running every deployed flow of ``deployment``."""
    return _render(_assembled(deployment), source, job_name)
