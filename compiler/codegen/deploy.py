"""Troy → one flow job: every deployed flow's pipelines in one graph, connectors as a FlowSpec.

Graph node names are ``<flow>/<pipeline>/<node>``; a connector source port is the input stream
``<flow>/<connector>/<port>``, a connector sink port the output ``<flow>/<connector>/<port>``.
Links follow ``connect`` statements in order (Tremor's fan-out order). Select errors of a pipeline
go to its ``err`` port when it has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ast import deploy as D
from ..diagnostics import CompileError
from ..passes.deploy_checks import FlowInstance, PipelineInstance, instantiate
from ..source import Source
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import BLACK_MODE, _comment_safe, _environment, import_lines

FLOW_IMPORTS = (
    "runtime_support.connectors:ConnectorSpec",
    "runtime_support.flow:FlowSpec",
    "runtime_support.flow:flow_main",
    "runtime_support.spark_exec:run_graph",
)

Link = tuple[tuple[str, str], tuple[str, str]]


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
    pipelines: int = 0


@dataclass
class _Pipe:
    """A compiled pipeline instance: its from/into ports → node names."""

    inputs: dict[str, str]
    outputs: dict[str, str]


def _ports(defn: object, attr: str, default: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.name for p in getattr(defn, attr)) or default


def _compile_pipeline(job: _Job, inst: PipelineInstance, node_prefix: str, source: Source) -> _Pipe:
    from .query import compile_pipeline

    job.pipelines += 1
    from_ports = _ports(inst.definition, "from_ports", ("in",))
    into_ports = _ports(inst.definition, "into_ports", ("out", "err"))
    code = compile_pipeline(
        (*inst.uses, *inst.definition.stmts),
        source,
        prefix=f"p{job.pipelines}",
        args=inst.args,
        from_ports=from_ports,
        into_ports=into_ports,
        node_prefix=node_prefix,
    )
    job.imports.update(code.imports)
    job.sources.extend(code.sources)
    job.blocks.extend(code.blocks)
    job.nodes.extend(code.nodes)
    job.links.extend(code.links)
    outputs = dict(code.outputs)
    if "err" in outputs:
        job.links.extend((err, (outputs["err"], "in")) for err in code.errors)
    return _Pipe(dict(code.inputs), outputs)


def _connector_index(job: _Job, flow: FlowInstance, alias: str) -> int:
    """Index of the connector instance ``alias`` in the FlowSpec (added on first use)."""
    inst = next(c for c in flow.connectors if c.alias == alias)
    text = (
        f"ConnectorSpec(alias={flow.alias + '::' + alias!r}, kind={inst.kind!r}, "
        f"params={inst.params!r})"
    )
    if text not in job.connectors:
        job.connectors.append(text)
    return job.connectors.index(text)


def _endpoint_error(end: D.Endpoint, what: str, source: Source) -> CompileError:
    return CompileError(what, end.alias.span if end.port is None else end.port.span, source=source)


def _pipe_port(pipes: dict[str, _Pipe], end: D.Endpoint, side: str, source: Source) -> str:
    """The node of pipeline endpoint ``end`` (``side``: ``inputs`` or ``outputs``)."""
    pipe = pipes.get(end.alias.name)
    if pipe is None:
        raise _endpoint_error(end, f"The pipeline `{end.alias.name}` is not created", source)
    port = end.port_or("in" if side == "inputs" else "out")
    node = getattr(pipe, side).get(port)
    if node is None:
        raise _endpoint_error(end, f"Query `{end.alias.name}` does not have port `{port}`", source)
    return node


def _connect(job: _Job, flow: FlowInstance, pipes: dict[str, _Pipe], conn: D.Connect, src: Source):
    """Add the links of one ``connect`` statement."""
    created = {c.alias for c in flow.connectors}
    for end in (conn.from_, conn.to):
        if end.kind == "connector" and end.alias.name not in created:
            raise _endpoint_error(end, f"The connector `{end.alias.name}` is not created", src)
    if conn.from_.kind == "connector":
        stream = f"{flow.alias}/{conn.from_.alias.name}/{conn.from_port}"
        index = _connector_index(job, flow, conn.from_.alias.name)
        if all(s != stream for _, _, s in job.inputs):
            job.inputs.append((index, conn.from_port, stream))
        job.links.append(((stream, "out"), (_pipe_port(pipes, conn.to, "inputs", src), "in")))
        return
    origin = (_pipe_port(pipes, conn.from_, "outputs", src), "out")
    if conn.to.kind == "pipeline":
        job.links.append((origin, (_pipe_port(pipes, conn.to, "inputs", src), "in")))
        return
    name = f"{flow.alias}/{conn.to.alias.name}/{conn.to_port}"
    index = _connector_index(job, flow, conn.to.alias.name)
    if all(n != name for n, _, _ in job.outputs):
        job.outputs.append((name, index, conn.to_port))
    job.links.append((origin, (output_node(name), "in")))


def _add_flow(job: _Job, flow: FlowInstance, source: Source) -> None:
    pipes = {
        p.alias: _compile_pipeline(job, p, f"{flow.alias}/{p.alias}/", source)
        for p in flow.pipelines
    }
    for conn in flow.connects:
        _connect(job, flow, pipes, conn, source)


def _render(job: _Job, source: Source, job_name: str) -> str:
    import black

    graph = graph_expr(
        inputs=tuple(s for _, _, s in job.inputs),
        output_ports=tuple(n for n, _, _ in job.outputs),
        nodes=tuple(job.nodes),
        links=tuple(job.links),
    )
    flow = (
        f"FlowSpec(connectors=({''.join(c + ',' for c in job.connectors)}), "
        f"sources={tuple(job.inputs)!r}, sinks={tuple(job.outputs)!r})"
    )
    text = (
        _environment()
        .get_template("flow_job.py.j2")
        .render(
            source_name=_comment_safe(source.name),
            job_name=_comment_safe(job_name),
            import_lines=import_lines((*sorted(job.imports), *GRAPH_IMPORTS, *FLOW_IMPORTS)),
            sources=tuple(dict.fromkeys(job.sources)),
            blocks=tuple(job.blocks),
            graph=graph,
            flow=flow,
            description=repr(f"Tremor flow {source.name} on Spark"),
        )
    )
    return black.format_str(text, mode=BLACK_MODE)


def build_deploy_job(deploy: D.Deploy, source: Source, job_name: str) -> str:
    """The job running every ``deploy flow`` of ``deploy`` (checked by ``check_deploy``)."""
    job = _Job()
    for flow in instantiate(deploy, source):
        _add_flow(job, flow, source)
    return _render(job, source, job_name)
