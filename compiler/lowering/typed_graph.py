"""Which jobs get the typed plan, and adding it to a rendered job (``--schema``).

A job qualifies when its graph is one stateless script fed by the input stream ``in`` and
writing only to job outputs (a ``.tremor`` file; a ``.trickle`` of the shape ``select event
from in into s; select event from s into out``), and its script lowers (``typed.py``).
Otherwise the job is the plain Python one and ``tremorc dbg lowering --schema`` says why.
"""

from __future__ import annotations

from ..codegen.job import with_runtime_names
from ..ir import Deployment
from ..ir import graph as G
from .predicate import NotNative
from .schema import root_ddl
from .typed import typed_plan

ANCHOR = "\n\ndef run_pipeline("


def typed_job_plan(ir: G.ScriptGraph | G.PipelineGraph | Deployment, schema: tuple) -> tuple:
    """The typed plan of a checked job graph over events of ``schema`` (NotNative: why not)."""
    if isinstance(ir, G.ScriptGraph):
        if ir.stateful or ir.body is None:
            raise NotNative("the script keeps state")
        return typed_plan(ir.body.script, schema, {port: port for port in ir.ports})
    if not isinstance(ir, G.PipelineGraph):
        raise NotNative("a flow (troy): the typed plan covers .tremor and .trickle jobs")
    node, ports, routed = _single_script(ir)
    # Past the script, `$` reaches only job outputs (which do not write it) and buckets.
    meta_unread = node.meta_unread or bool(routed)
    return typed_plan(node.body.script, schema, ports, meta_unread, frozenset(routed))


def _single_script(graph: G.PipelineGraph) -> tuple[G.ScriptNode, dict[str, str], set[str]]:
    """The one script between ``in`` and the outputs, where each of its ports leads, and the
    ports that lead through a bucket that routes by ``$class`` (``routes_only``, not
    ``always_out``). Routing-only buckets on the way are passthroughs to where their ``out``
    leads (their ``overflow`` leads there too)."""
    passing = {n.name: n for n in graph.nodes if isinstance(n, G.OperatorNode) and n.routes_only}
    scripts = [n for n in graph.nodes if not isinstance(n, G.PortNode) and n.name not in passing]
    inputs = [n for n in graph.nodes if isinstance(n, G.PortNode) and n.direction == "from"]
    if len(scripts) != 1 or not isinstance(scripts[0], G.ScriptNode) or graph.errors:
        raise NotNative("the pipeline is not a single script between input and outputs")
    node = scripts[0]
    if node.stateful or node.named or [n.name for n in inputs] != ["in"]:
        raise NotNative("the script keeps state, has named scripts or several inputs")
    outs = {n.name: n.port for n in graph.nodes if isinstance(n, G.PortNode)}
    ports: dict[str, str] = {}
    routed: set[str] = set()
    for link in graph.links:
        if link.source == ("in", "out") and link.target == (node.name, "in"):
            continue
        (src, port), (dst, dst_port) = link.source, link.target
        if src in passing:
            continue  # followed from the script's side below
        if dst in passing and src == node.name and dst_port == "in":
            if not passing[dst].always_out:
                routed.add(port)
            dst = _through(dst, graph, outs)
        if src != node.name or dst not in outs or dst == "in" or dst_port != "in":
            raise NotNative("the script's outputs do not all go straight to job outputs")
        if ports.get(port, outs[dst]) != outs[dst]:
            raise NotNative("a script port leads to two job outputs")
        ports[port] = outs[dst]
    return node, ports, routed


def _through(bucket: str, graph: G.PipelineGraph, outs: dict[str, str]) -> str:
    """The one job output a routing-only bucket's ``out`` leads to (NotNative otherwise)."""
    targets = [link.target for link in graph.links if link.source == (bucket, "out")]
    if len(targets) != 1 or targets[0][0] not in outs or targets[0][1] != "in":
        raise NotNative("a bucket that does not lead to one job output")
    return targets[0][0]


def attach_typed(job: str, stream: str, schema: tuple, tree: tuple) -> str:
    """``job`` (rendered with its native hooks) whose graph runs ``tree`` natively; the text is
    not reformatted (``codegen.build.build_job`` formats a job once)."""
    assert "with_native_rows" in job and ANCHOR in job, "a job rendered with native hooks"
    text = with_runtime_names(job, "with_typed_plan")
    block = (
        "\n\n# Typed plan (built with --schema): events that fit the schema run as Spark Columns.\n"
        f"GRAPH = with_typed_plan(GRAPH, {stream!r}, {root_ddl(schema)!r}, {tree!r})\n"
    )
    head, anchor, tail = text.partition(ANCHOR)
    return head + block + anchor + tail
