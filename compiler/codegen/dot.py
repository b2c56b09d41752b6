"""Graphviz ``dot`` text of a job's pipeline graph (what ``tremorc dbg dot`` prints).

Rendered from the ``GRAPH`` the generated job really builds, so the picture cannot drift from the
code that runs.
"""

from __future__ import annotations

import json
from typing import Any


def _quote(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def graph_to_dot(graph: Any, title: str = "pipeline") -> str:
    """``digraph`` with one node per operator/stream and one edge per link, labelled by ports.

    >>> from runtime_support.graph import GraphSpec
    >>> print(graph_to_dot(GraphSpec(inputs=("in",), outputs=("out:out",), nodes=(),
    ...     links=((("in", "out"), ("out:out", "in")),), output_ports={"out:out": "out"})))
    digraph "pipeline" {
      "in" [shape=invhouse];
      "out:out" [shape=house, label="out"];
      "in" -> "out:out" [label="out → in"];
    }
    """
    lines = [f"digraph {_quote(title)} {{"]
    for name in graph.inputs:
        lines.append(f"  {_quote(name)} [shape=invhouse];")
    for node in graph.nodes:
        lines.append(f"  {_quote(node.name)} [shape=box];")
    for name in graph.outputs:
        label = graph.output_ports.get(name, name)
        lines.append(f"  {_quote(name)} [shape=house, label={_quote(label)}];")
    for (src, src_port), (dst, dst_port) in graph.links:
        lines.append(
            f"  {_quote(src)} -> {_quote(dst)} [label={_quote(f'{src_port} → {dst_port}')}];"
        )
    lines.append("}")
    return "\n".join(lines)
