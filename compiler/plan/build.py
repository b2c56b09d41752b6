"""The planner's input: the checked IR flattened into plan nodes and forward edges.

- a ``.tremor`` script is ``in → script → <port>`` (one sink node per port);
- a pipeline graph keeps its node names; its links become edges, and each select's ``error``
  port an edge into the sink ``@error_log`` (a name no trickle identifier can take);
- a deployment joins every flow: connectors are ``<flow>/<alias>`` (as in ``dbg dot``), each
  flow's pipelines keep their ``<flow>/<pipeline>/`` names, and each ``connect`` is an edge.

Nodes keep IR order and edges link order, so the plan is as deterministic as the IR.
"""

from __future__ import annotations

from ..ir import Deployment, PipelineGraph, ScriptGraph
from ..ir import flow as F
from ..ir import graph as G
from ..ir.scope import Stateless
from .model import Edge, Plan, PlanNode

ERROR_LOG = "@error_log"


def initial_plan(ir: ScriptGraph | PipelineGraph | Deployment) -> Plan:
    """Every IR node as a plan node, every link as a forward edge, no stages yet."""
    if isinstance(ir, ScriptGraph):
        return _script(ir)
    if isinstance(ir, PipelineGraph):
        nodes, edges = _pipeline(ir)
        nodes += _errors(ir.errors, "")
        edges += _error_edges(ir.errors, "")
        return Plan(nodes=tuple(nodes), edges=tuple(edges))
    nodes, edges = [], []
    for flow in ir.flows:
        flow_nodes, flow_edges = _flow(flow)
        nodes += flow_nodes
        edges += flow_edges
    return Plan(nodes=tuple(nodes), edges=tuple(edges))


def _script(ir: ScriptGraph) -> Plan:
    """``in → script → port``; a port whose name is taken gets ``_port`` suffixes."""
    sinks: dict[str, str] = {}
    for port in ir.ports:
        sink = port
        while sink in ("in", "script", *sinks.values()):
            sink += "_port"
        sinks[port] = sink
    nodes = [
        PlanNode(name="in", label="input in", scope=Stateless(), reads=True, forwards=True),
        PlanNode(name="script", label="script", scope=ir.scope),
        *(
            PlanNode(name=sink, label=f"output {port}", scope=Stateless(), forwards=True)
            for port, sink in sinks.items()
        ),
    ]
    edges = [Edge(source=("in", "out"), target=("script", "in"))]
    edges += [Edge(source=("script", port), target=(sink, "in")) for port, sink in sinks.items()]
    return Plan(nodes=tuple(nodes), edges=tuple(edges))


def _pipeline(graph: PipelineGraph) -> tuple[list[PlanNode], list[Edge]]:
    """The nodes and links of one graph (its select errors are the caller's)."""
    nodes = [plan_node(node) for node in graph.nodes]
    return nodes, [Edge(source=link.source, target=link.target) for link in graph.links]


def _errors(errors: tuple[tuple[str, str], ...], prefix: str) -> list[PlanNode]:
    """The error sink ``<prefix>@error_log`` when some select can fail, else nothing."""
    if not errors:
        return []
    name = prefix + ERROR_LOG
    return [PlanNode(name=name, label=f"output {name}", scope=Stateless(), forwards=True)]


def _error_edges(errors: tuple[tuple[str, str], ...], prefix: str) -> list[Edge]:
    return [Edge(source=end, target=(prefix + ERROR_LOG, "in")) for end in errors]


def plan_node(node: G.GraphNode) -> PlanNode:
    """The plan node of one pipeline graph node (its name, a label for people, its scope)."""
    name = node.name
    match node:
        case G.PortNode(direction="from"):
            return PlanNode(
                name=name, label=f"input {name}", scope=node.scope, reads=True, forwards=True
            )
        case G.PortNode():
            return PlanNode(name=name, label=f"output {name}", scope=node.scope, forwards=True)
        case G.SelectNode():
            return PlanNode(name=name, label=f"select {name}", scope=node.scope, noun="windows")
        case G.ScriptNode():
            return PlanNode(name=name, label=f"script {name}", scope=node.scope)
        case G.OperatorNode(kind=kind):
            routes = ", routing only: out and overflow lead to the same place" * node.routes_only
            routes += (
                ", a passthrough: every event has a string $class and an int $rate"
                * node.always_out
            )
            routes += ", for input events without metadata" * node.assumes_no_input_meta
            routes += ", flush-transparent: only its pipeline's outputs see it" * (
                node.flush_transparent
            )
            label = f"operator {name} ({kind}{routes})"
            return PlanNode(name=name, label=label, scope=node.scope, noun=f"{kind} state")
        case G.StreamNode():
            return PlanNode(name=name, label=f"stream {name}", scope=node.scope, forwards=True)
        case _:
            raise AssertionError(f"unknown graph node {type(node).__name__}")


def _flow(flow: F.Flow) -> tuple[list[PlanNode], list[Edge]]:
    prefix = f"{flow.alias}/"
    nodes = [
        PlanNode(
            name=prefix + c.alias,
            label=f"connector {prefix}{c.alias} ({c.kind})",
            scope=c.scope,
            reads="in" not in c.ports,
            forwards="in" not in c.ports,
        )
        for c in flow.connectors
    ]
    edges: list[Edge] = []
    for pipeline in flow.pipelines:
        more_nodes, more_edges = _pipeline(pipeline.graph)
        nodes += more_nodes
        edges += more_edges
    errors = tuple(end for p in flow.pipelines for end in p.graph.errors)
    nodes += _errors(errors, prefix)
    edges += _error_edges(errors, prefix)
    edges += [
        Edge(source=_end(c.source, prefix, "out"), target=_end(c.target, prefix, "in"))
        for c in flow.connections
    ]
    return nodes, edges


def _end(end: F.ConnectorEnd | F.PipelineEnd, prefix: str, side: str) -> tuple[str, str]:
    """A connector's port, or the port node of a pipeline (read at ``out``, written at ``in``)."""
    if isinstance(end, F.PipelineEnd):
        return (end.node, side)
    return (prefix + end.connector, end.port)
