"""Instantiate a troy file into a :class:`~compiler.ir.flow.Deployment`.

Needs: a parsed :class:`~compiler.ast.deploy.Deploy`. Runs the troy checks
(:func:`compiler.passes.deploy_checks.instantiate`: definitions, args model, connector configs),
then instantiates every created pipeline with its bound args
(:func:`compiler.passes.query_instantiate.instantiate_pipeline`, node names
``<flow>/<pipeline>/<node>``) and resolves every ``connect``. Establishes the invariants of
:mod:`compiler.ir.flow`. Raises ``The pipeline `x` is not created``, ``The connector `x` is not
created``, ``Query `x` does not have port `p```, and every pipeline instantiation error.
"""

from __future__ import annotations

from ..ast import deploy as D
from ..diagnostics import CompileError
from ..ir import flow as F
from ..ir import graph as G
from ..registry.net_connectors import check_direction
from ..source import Source
from .batch_flush import mark_flush_transparent
from .bucket_routing import route_buckets
from .deploy_checks import FlowInstance, PipelineInstance, instantiate
from .elaboration import Elaboration
from .query_instantiate import DEFAULT_FROM, DEFAULT_INTO, instantiate_pipeline
from .response_ports import check_response_ports


def _ports(ports: tuple[str, ...], default: tuple[str, ...]) -> tuple[str, ...]:
    return ports or default


def _pipeline(
    inst: PipelineInstance, flow: str, source: Source, elab: Elaboration
) -> F.DeployedPipeline:
    defn = inst.definition
    graph = instantiate_pipeline(
        (*inst.uses, *defn.stmts),
        inst.source or source,
        elab,
        args=inst.args,
        from_ports=_ports(tuple(p.name for p in defn.from_ports), DEFAULT_FROM),
        into_ports=_ports(tuple(p.name for p in defn.into_ports), DEFAULT_INTO),
        node_prefix=f"{flow}/{inst.alias}/",
    )
    reports = any(d.key.name == "metrics_interval_s" for d in defn.config)
    if not reports:  # a reporting pipeline's bucket / batch counts show their state
        graph = mark_flush_transparent(route_buckets(graph))
    return F.DeployedPipeline(alias=inst.alias, graph=graph, reports=reports, span=inst.create.span)


def _endpoint_error(end: D.Endpoint, what: str, source: Source) -> CompileError:
    return CompileError(what, end.alias.span if end.port is None else end.port.span, source=source)


def _pipe_end(
    pipes: dict[str, G.PipelineGraph], end: D.Endpoint, side: str, source: Source
) -> F.PipelineEnd:
    """Pipeline endpoint ``end`` (``side``: ``inputs`` or ``outputs``) and its port's node."""
    graph = pipes.get(end.alias.name)
    if graph is None:
        raise _endpoint_error(end, f"The pipeline `{end.alias.name}` is not created", source)
    port = end.port_or("in" if side == "inputs" else "out")
    node = dict(getattr(graph, side)).get(port)
    if node is None:
        raise _endpoint_error(end, f"Query `{end.alias.name}` does not have port `{port}`", source)
    return F.PipelineEnd(pipeline=end.alias.name, port=port, node=node)


def _check_produces(flow: FlowInstance, end: D.Endpoint, source: Source) -> None:
    """A connector read from must produce events (a sink-only kind, such as ``exit`` or
    ``clickhouse``, has no ``out`` port)."""
    from ..registry.connectors import CONNECTORS

    kind = next(c.kind for c in flow.connectors if c.alias == end.alias.name)
    entry = CONNECTORS.get(kind)
    if entry is not None and entry.ports and "out" not in entry.ports:
        message = f"The {kind} connector `{end.alias.name}` is a sink: it produces no events"
        raise _endpoint_error(end, message, source)


def _connection(
    flow: FlowInstance, pipes: dict[str, G.PipelineGraph], conn: D.Connect, source: Source
) -> F.Connection:
    """Resolve one ``connect`` (connectors checked first, then the pipeline ends)."""
    created = {c.alias for c in flow.connectors}
    for end in (conn.from_, conn.to):
        if end.kind == "connector" and end.alias.name not in created:
            raise _endpoint_error(end, f"The connector `{end.alias.name}` is not created", source)
    kinds = {c.alias: c.kind for c in flow.connectors}
    for end, as_sink in ((conn.from_, False), (conn.to, True)):
        if end.kind == "connector":
            check_direction(kinds[end.alias.name], as_sink, end.alias.span, source)
    if conn.from_.kind == "connector":
        _check_produces(flow, conn.from_, source)
        origin: F.ConnectorEnd | F.PipelineEnd
        origin = F.ConnectorEnd(connector=conn.from_.alias.name, port=conn.from_port)
        target = _pipe_end(pipes, conn.to, "inputs", source)
        return F.Connection(source=origin, target=target, span=conn.span)
    origin = _pipe_end(pipes, conn.from_, "outputs", source)
    if conn.to.kind == "pipeline":
        return F.Connection(
            source=origin, target=_pipe_end(pipes, conn.to, "inputs", source), span=conn.span
        )
    if kinds[conn.to.alias.name] == "metrics":
        message = (
            "The metrics connector takes no custom metrics in tremorc (its `in` port): it "
            "emits the flow's event counts on `out` (docs/connectors.md, Metrics)"
        )
        raise _endpoint_error(conn.to, message, source)
    sink = F.ConnectorEnd(connector=conn.to.alias.name, port=conn.to_port)
    return F.Connection(source=origin, target=sink, span=conn.span)


def _flow(flow: FlowInstance, source: Source, elab: Elaboration) -> F.Flow:
    pipelines = tuple(_pipeline(p, flow.alias, source, elab) for p in flow.pipelines)
    pipes = {p.alias: p.graph for p in pipelines}
    connectors = tuple(
        F.Connector(alias=c.alias, kind=c.kind, params=c.params, span=c.create.span)
        for c in flow.connectors
    )
    connections = tuple(_connection(flow, pipes, c, source) for c in flow.connects)
    built = F.Flow(
        alias=flow.alias,
        connectors=connectors,
        pipelines=pipelines,
        connections=connections,
        args=flow.args,
    )
    check_response_ports(built, source)
    return built


def instantiate_deploy(deploy: D.Deploy, source: Source, elab: Elaboration) -> F.Deployment:
    """Troy's elaboration: check ``deploy`` and return every deployed flow, instantiated (see
    the module doc); embedded scripts go through ``elab``'s front end once each."""
    flows = instantiate(deploy, source, elab)
    return F.Deployment(flows=tuple(_flow(f, source, elab) for f in flows))
