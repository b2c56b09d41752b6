"""Scripts whose outgoing metadata nothing reads (``ScriptNode.meta_unread``).

A ``let $key = value`` only changes the ``$`` that the script's events leave with (``$`` is
always a record: Tremor refuses ``let $ = …``, so such a store cannot fail). When nothing
downstream reads that ``$``, the store is dead; code generation then evaluates ``value`` only
for its errors (:meth:`compiler.codegen.pystmts.StmtGen.let`).

Needs: a pipeline graph after :mod:`compiler.passes.bucket_routing`.

Establishes: a script node is marked ``meta_unread`` only when
- it has no named scripts (``script from port``), and its body reads no ``$``: every path rooted
  at ``$`` is the target of a ``let`` of one field;
- every node reachable from any of its output ports is a port, a stream or an ``always_out``
  bucket (passthroughs that read no ``$``), and the pipeline's output ports are reached only
  when the caller says its sinks read no ``$`` (``outputs_read_meta=False``: a ``.trickle`` job).
"""

from __future__ import annotations

import dataclasses

from ..ast import script as S
from ..ir import graph as G

__all__ = ["mark_meta_unread"]


def mark_meta_unread(graph: G.PipelineGraph, outputs_read_meta: bool) -> G.PipelineGraph:
    """``graph`` with every script this module proves ``meta_unread`` marked."""
    if outputs_read_meta:
        return graph
    nodes = {node.name: node for node in graph.nodes}
    seen_by_reader = graph.reaching(lambda name: not _blind(nodes[name]))
    marked = tuple(
        (
            dataclasses.replace(node, meta_unread=True)
            if isinstance(node, G.ScriptNode)
            and not node.named
            and node.name not in seen_by_reader
            and not _reads_meta(node.body.script)
            else node
        )
        for node in graph.nodes
    )
    return dataclasses.replace(graph, nodes=marked)


def _reads_meta(script: S.Script) -> bool:
    """Some expression of ``script`` reads ``$`` (anything but a one-field ``let $key``)."""
    stores: set[int] = set()
    paths: list[S.Path] = []
    for node in script.walk():
        if isinstance(node, S.Let) and S.is_meta_key(node.target):
            stores.add(id(node.target))
        elif isinstance(node, S.Path) and node.root == "meta":
            paths.append(node)
    return any(id(path) not in stores for path in paths)


def _blind(node: G.GraphNode) -> bool:
    """``node`` passes events on without reading ``$``."""
    if isinstance(node, G.PortNode | G.StreamNode):
        return True
    return isinstance(node, G.OperatorNode) and node.always_out
