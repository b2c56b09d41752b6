"""Graphviz ``dot`` text of a program's job graph (what ``tremorc dbg dot`` prints).

Rendered from the checked IR only (never the AST, never running the job): one node per graph
node labelled with its kind and state scope, one edge per link labelled ``out-port → in-port``,
select errors into an ``error_log`` node, and for a troy file one cluster per deployed pipeline
between its connectors.
"""

from __future__ import annotations

import json

from ..ir import Deployment, PipelineGraph, ScriptGraph
from ..ir import flow as F
from ..ir import graph as G
from ..ir.scope import describe

_SHAPES = {G.PortNode: "invhouse", G.StreamNode: "ellipse", G.SelectNode: "box"}


def _quote(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _node(node: G.GraphNode) -> str:
    if isinstance(node, G.PortNode):
        shape = "invhouse" if node.direction == "from" else "house"
        return f"{_quote(node.name)} [shape={shape}, label={_quote(node.port)}];"
    kind = node.kind if isinstance(node, G.OperatorNode) else type(node).__name__[:-4].lower()
    label = f"{node.name.rsplit('/', 1)[-1]}\n{kind}\n{describe(node.scope)}"
    shape = _SHAPES.get(type(node), "box")
    return f"{_quote(node.name)} [shape={shape}, label={_quote(label)}];"


def _edge(src: str, dst: str, label: str) -> str:
    return f"{_quote(src)} -> {_quote(dst)} [label={_quote(label)}];"


def pipeline_lines(graph: PipelineGraph, error_log: str = "error_log") -> list[str]:
    """The node, link and error-edge statements of one pipeline graph."""
    lines = [_node(n) for n in graph.nodes]
    for link in graph.links:
        (src, out_port), (dst, in_port) = link.source, link.target
        lines.append(_edge(src, dst, f"{out_port} → {in_port}"))
    lines += [_edge(node, error_log, port) for node, port in graph.errors]
    return lines


def ir_to_dot(ir: ScriptGraph | PipelineGraph | Deployment, title: str = "pipeline") -> str:
    """``digraph`` of ``ir``.

    >>> print(ir_to_dot(ScriptGraph(ports=("out", "err"), stateful=False), "t"))
    digraph "t" {
      "in" [shape=invhouse];
      "script" [shape=box, label="script\\nstateless"];
      "out" [shape=house];
      "script" -> "out" [label="out"];
      "err" [shape=house];
      "script" -> "err" [label="err"];
    }
    """
    lines = [f"digraph {_quote(title)} {{"]
    if isinstance(ir, ScriptGraph):
        label = f"script\n{describe(ir.scope)}"
        lines += ['  "in" [shape=invhouse];', f'  "script" [shape=box, label={_quote(label)}];']
        for port in ir.ports:
            lines += [f"  {_quote(port)} [shape=house];", "  " + _edge("script", port, port)]
    elif isinstance(ir, PipelineGraph):
        body = pipeline_lines(ir)
        if ir.errors:
            body.append('"error_log" [shape=house];')
        lines += ["  " + line for line in body]
    else:
        lines += ["  " + line for line in _deployment(ir)]
    lines.append("}")
    return "\n".join(lines)


def _deployment(ir: Deployment) -> list[str]:
    lines: list[str] = []
    for flow in ir.flows:
        prefix = f"{flow.alias}/"
        for c in flow.connectors:
            label = f"{c.alias}\n{c.kind}\n{describe(c.scope)}"
            lines.append(f"{_quote(prefix + c.alias)} [shape=component, label={_quote(label)}];")
        for p in flow.pipelines:
            lines.append(f"subgraph {_quote('cluster_' + prefix + p.alias)} {{")
            lines.append(f"  label={_quote(p.alias)};")
            lines += ["  " + line for line in pipeline_lines(p.graph, prefix + "error_log")]
            lines.append("}")
        if any(p.graph.errors for p in flow.pipelines):
            lines.append(f'{_quote(prefix + "error_log")} [shape=house, label="error_log"];')
        for conn in flow.connections:
            src, dst = conn.source, conn.target
            label = f"{src.port} → {dst.port}"
            lines.append(_edge(_end_node(src, prefix), _end_node(dst, prefix), label))
    return lines


def _end_node(end: F.ConnectorEnd | F.PipelineEnd, prefix: str) -> str:
    """The dot node of one side of a ``connect``: a connector, or a pipeline's port node."""
    if isinstance(end, F.PipelineEnd):
        return end.node
    return prefix + end.connector
