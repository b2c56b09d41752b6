"""Render the ``GraphSpec`` expression of a job (nodes, links, outputs) as Python text.

Node and port names are user text: they only ever appear through ``repr()``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NodeCode:
    """One node: its graph name, the Python expression of its factory, whether it keeps state."""

    name: str
    factory: str
    stateful: bool


def output_node(port: str) -> str:
    """Graph name of the output node collecting ``port`` (distinct from any operator name)."""
    return f"out:{port}"


def graph_expr(
    *,
    inputs: tuple[str, ...],
    output_ports: tuple[str, ...],
    nodes: tuple[NodeCode, ...],
    links: tuple[tuple[tuple[str, str], tuple[str, str]], ...],
) -> str:
    """``GraphSpec(...)`` source text."""
    node_lines = "".join(
        f"NodeSpec(name={n.name!r}, factory={n.factory}, stateful={n.stateful!r})," for n in nodes
    )
    link_lines = "".join(f"({src!r}, {dst!r})," for src, dst in links)
    outputs = tuple(output_node(p) for p in output_ports)
    mapping = {output_node(p): p for p in output_ports}
    return (
        f"GraphSpec(inputs={inputs!r}, outputs={outputs!r}, nodes=({node_lines}), "
        f"links=({link_lines}), output_ports={mapping!r})"
    )


GRAPH_IMPORTS = (
    "runtime_support.graph:GraphSpec",
    "runtime_support.graph:NodeSpec",
)
