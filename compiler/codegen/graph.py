"""Render the ``GraphSpec`` expression of a job (nodes, links, outputs) as Python text.

Node and port names are user text: they only ever appear through ``repr()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.scope import Stateless, StateScope


@dataclass(frozen=True, slots=True)
class NodeCode:
    """One node: its graph name, the Python expression of its factory, whether it keeps state,
    its state scope with a label and noun for the plan, and for a keyed node the Python
    expression of its keyer (``event -> [(key, group)]``, run before the shuffle)."""

    name: str
    factory: str
    stateful: bool
    scope: StateScope = field(default_factory=Stateless)
    label: str = ""
    noun: str = "state"
    keyer: str = ""
    #: a keyed select's group: this top-level event field (``query_select.entry_field``), else ""
    entry_field: str = ""
    #: a ``generic::batch`` the pipeline proved invisible with the end-of-input flush
    #: (:mod:`compiler.passes.batch_flush`; the job checks the rest, ``stages.py``)
    flush_transparent: bool = False
    #: a windowless select whose group by may put an event in several groups: it emits the
    #: event's output once per group, in a row (``runtime_support.spark.stages.REPEAT_ROW_SCHEMA``)
    repeats: bool = False


def output_node(port: str) -> str:
    """Graph name of the output node collecting ``port`` (distinct from any operator name)."""
    return f"out:{port}"


def graph_expr(
    *,
    inputs: tuple[str, ...],
    output_ports: tuple[str, ...],
    nodes: tuple[NodeCode, ...],
    links: tuple[tuple[tuple[str, str], tuple[str, str]], ...],
    meta_ports: tuple[str, ...] = (),
    counted: bool = False,
) -> str:
    """``GraphSpec(...)`` source text (``meta_ports``: outputs whose sinks read ``$``;
    ``counted``: a flow with a ``metrics`` source; both omitted when unset, so other jobs' text
    is unchanged)."""
    node_lines = "".join(
        f"NodeSpec(name={n.name!r}, factory={n.factory}, stateful={n.stateful!r}"
        + (f", keyer={n.keyer}" if n.keyer else "")
        + "),"
        for n in nodes
    )
    link_lines = "".join(f"({src!r}, {dst!r})," for src, dst in links)
    outputs = tuple(output_node(p) for p in output_ports)
    mapping = {output_node(p): p for p in output_ports}
    return (
        f"GraphSpec(inputs={inputs!r}, outputs={outputs!r}, nodes=({node_lines}), "
        f"links=({link_lines}), output_ports={mapping!r}"
        + (f", meta_outputs={tuple(meta_ports)!r}" if meta_ports else "")
        + (", counted=True" if counted else "")
        + ")"
    )


GRAPH_IMPORTS = (
    "runtime_support.tremor.graph:GraphSpec",
    "runtime_support.tremor.graph:NodeSpec",
)

NATIVE_IMPORTS = (
    "runtime_support.spark.typed_plan:read_native",
    "runtime_support.spark.typed_plan:with_native_rows",
)
