"""The planner's input: the job graph (as ``compiler/codegen`` assembles it) as plan nodes and
forward edges.

The job graph's input streams are plan nodes that read (``reads``) and forward; its nodes keep
their names; links into its output collectors are the plan's ``outputs`` (a collector is no
node: its port is a job output of the stage holding the link's source). Nodes keep graph order
and edges link order, so the plan is as deterministic as the graph.
"""

from __future__ import annotations

from ..ir import graph as G
from ..ir.scope import Stateless
from .model import Edge, Plan, PlanNode

Link = tuple[tuple[str, str], tuple[str, str]]


def initial_plan(
    streams: tuple[str, ...],
    nodes: tuple[PlanNode, ...],
    links: tuple[Link, ...],
    collectors: dict[str, str],
    *,
    counted: bool = False,
    exits: bool = False,
    meta_ports: tuple[str, ...] = (),
) -> Plan:
    """The job graph of ``streams`` (input streams), ``nodes`` and ``links`` (``collectors``:
    output node name → port) as a plan without stages; a node named like a stream is the
    stream. Links whose ends are neither nodes, streams nor collectors are not the plan's."""
    plan_nodes = [
        PlanNode(name=s, label=f"input {s}", scope=Stateless(), reads=True, forwards=True)
        for s in streams
    ]
    plan_nodes += [n for n in nodes if n.name not in streams]
    known = {n.name for n in plan_nodes}
    edges = tuple(Edge(source=s, target=t) for s, t in links if s[0] in known and t[0] in known)
    outputs = tuple(
        Edge(source=s, target=t) for s, t in links if s[0] in known and t[0] in collectors
    )
    return Plan(
        nodes=tuple(plan_nodes),
        edges=edges,
        output_links=outputs,
        collectors=tuple(collectors.items()),
        counted=counted,
        exits=exits,
        meta_ports=tuple(meta_ports),
    )


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
