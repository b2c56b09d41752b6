"""Render the ``GraphSpec`` expression of a job (nodes, links, outputs) as Python text.

Node and port names are user text: they only ever appear through ``repr()``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class NodeCode:
    """One node: its graph name, the Python expression of its factory, whether it keeps state
    and, when it does, why (``#select1 keeps window state``: a plan comment)."""

    name: str
    factory: str
    stateful: bool
    why: str = ""
    keyed: bool = False  # its state scope is keyed (hash partitioning on the key is correct)


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

PLAN_IMPORTS = (
    "pyspark:StorageLevel",
    "pyspark.sql:functions as F",
    "runtime_support.spark_exec:OUTPUT_SCHEMA",
    "runtime_support.spark_exec:event_columns",
    "runtime_support.spark_exec:make_mapper",
)
NATIVE_IMPORT = "runtime_support.native:apply_native_prefilter"


def plan_context(
    *, streams: tuple[str, ...], output_ports: tuple[str, ...], nodes: tuple[NodeCode, ...]
) -> dict[str, object]:
    """What ``templates/run_pipeline.py.j2`` needs to render a job's Spark plan: the input
    streams (``repr``), the sorted output ports (``err`` always: undecodable input goes there),
    and the comment lines saying why the graph keeps state (empty: stateless)."""
    ports = sorted(set(output_ports) | {"err"})
    stateful = [node for node in nodes if node.stateful]
    notes = [node.why for node in stateful if node.why] or ["the pipeline keeps state"]
    why = "; ".join(notes) + ": one ordered partition for all events, as Tremor runs them"
    if all(node.keyed for node in stateful):
        why += " (not yet hash-partitioned by the key)"
    why += "."
    return {
        "streams": [repr(stream) for stream in streams],
        "ports": [repr(port) for port in ports],
        "state_lines": textwrap.wrap(why, 94) if stateful else [],
    }
