"""Render instantiated trickle pipeline graphs (composable: troy embeds several per job).

Needs: a :class:`~compiler.ir.graph.PipelineGraph` from
:mod:`compiler.passes.query_instantiate`; raises no user error. Node names are the IR's. Select
errors leave on the select's ``error`` port; a ``.trickle`` job routes them to the extra output
``error_log``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import graph as G
from ..ir.scope import Keyed
from ..plan import plan_of
from ..plan.build import plan_node
from ..plan.model import Plan
from ..source import Source
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import JobParts, render_job
from .query_select import Emitter, entry_field, select_spec
from .stages import job_graph, plan_context

Link = tuple[tuple[str, str], tuple[str, str]]
ERROR_LOG = "error_log"
OPERATORS = "runtime_support.tremor.builtin_operators:builtin_operator"


@dataclass(frozen=True)
class PipelineCode:
    """One rendered pipeline: code pieces plus its graph fragment.

    ``inputs``/``outputs`` map the pipeline's from/into ports to the node names to link to
    (write to ``(node, "in")``, read from ``(node, "out")``); ``errors`` are the ``(node, port)``
    pairs whose events are select errors.
    """

    blocks: tuple[str, ...]
    imports: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]
    nodes: tuple[NodeCode, ...]
    links: tuple[Link, ...]
    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]
    errors: tuple[tuple[str, str], ...]


def _script_factory(node: G.ScriptNode, em: Emitter) -> str:
    entry, sites, src = em.script_entry(
        node.body, "script", node.name, meta_unread=node.meta_unread
    )
    extra = [f"args={node.args!r}"]
    if node.state is not None:
        extra.append(f"state={node.state.value!r}")
    named = [
        f"{n.port!r}: {em.script_entry(n.body, 'script', node.name, 'port', n.port)[0]}"
        for n in node.named
    ]
    if named:
        extra.append(f"named={{{', '.join(named)}}}")
    em.imports.update(("functools:partial", "runtime_support.tremor.graph:script_operator"))
    return f"partial(script_operator, {entry}, {src}, {sites}, {', '.join(extra)})"


def render_node(node: G.GraphNode, em: Emitter) -> NodeCode:
    """The ``NodeSpec`` pieces of one node (its code blocks go to ``em``)."""
    planned = plan_node(node)
    if isinstance(node, G.PortNode | G.StreamNode):
        em.imports.add("runtime_support.tremor.graph:Passthrough")
        return NodeCode(name=node.name, factory="Passthrough", stateful=False, label=planned.label)
    keyer = entry = ""
    if isinstance(node, G.ScriptNode):
        factory = _script_factory(node, em)
    elif isinstance(node, G.OperatorNode) and node.always_out:
        em.imports.add("runtime_support.tremor.graph:Passthrough")
        factory = "Passthrough"
    elif isinstance(node, G.OperatorNode) and node.routes_only:
        em.imports.update(
            ("runtime_support.tremor.builtin_operators:BucketRoute", "functools:partial")
        )
        factory = f"partial(BucketRoute, {node.config!r})"
    elif isinstance(node, G.OperatorNode):
        em.imports.update((OPERATORS, "functools:partial"))
        factory = f"partial(builtin_operator, {node.kind!r}, {node.config!r})"
        if isinstance(node.scope, Keyed):
            em.imports.add("runtime_support.tremor.builtin_operators:bucket_key")
            keyer = "bucket_key"
    elif isinstance(node, G.SelectNode):
        spec = select_spec(node, em)
        em.imports.update(("functools:partial", "runtime_support.tremor.select:select_operator"))
        factory = f"partial(select_operator, {spec})"
        if isinstance(node.scope, Keyed):
            em.imports.add("runtime_support.tremor.select:select_keys")
            keyer = f"partial(select_keys, {spec})"
            entry = entry_field(node)
    else:
        raise AssertionError(f"unknown graph node {type(node).__name__}")
    if isinstance(node, G.OperatorNode):
        stateful = not node.routes_only
    else:
        stateful = node.stateful
    return NodeCode(
        name=node.name,
        factory=factory,
        stateful=stateful,
        scope=node.scope,
        label=planned.label,
        noun=planned.noun,
        keyer=keyer,
        entry_field=entry,
        flush_transparent=isinstance(node, G.OperatorNode) and node.flush_transparent,
        repeats=isinstance(node, G.SelectNode)
        and not node.windows
        and node.group is not None
        and node.group.multiplies,
    )


def compile_pipeline(graph: G.PipelineGraph, em: Emitter) -> PipelineCode:
    """Render ``graph``; generated identifiers and constants come from ``em`` (one per job)."""
    start = len(em.blocks)
    nodes = tuple(render_node(node, em) for node in graph.nodes)
    return PipelineCode(
        blocks=tuple(em.blocks[start:]),
        imports=tuple(sorted(em.imports)),
        sources=tuple((name, repr(text)) for text, name in em.sources.items()),
        nodes=nodes,
        links=tuple((link.source, link.target) for link in graph.links),
        inputs=graph.inputs,
        outputs=graph.outputs,
        errors=graph.errors,
    )


def _query_job(graph: G.PipelineGraph) -> tuple[PipelineCode, Plan, dict[str, object]]:
    """The rendered pipeline of a ``.trickle`` job, its job graph (inputs: its from ports,
    outputs: its into ports plus ``error_log``, select errors) and the graph's pieces."""
    code = compile_pipeline(graph, Emitter())
    links = list(code.links)
    for port, node in code.outputs:
        links.append(((node, "out"), (output_node(port), "in")))
    for err in code.errors:
        links.append((err, (output_node(ERROR_LOG), "in")))
    outputs = (*(port for port, _ in graph.outputs), ERROR_LOG)
    inputs = tuple(node for _, node in code.inputs)
    nodes = tuple(n for n in code.nodes if n.name not in inputs)
    pieces = {"inputs": inputs, "output_ports": outputs, "nodes": nodes, "links": tuple(links)}
    plan = job_graph(streams=inputs, output_ports=outputs, nodes=nodes, links=tuple(links))
    return code, plan, pieces


def query_graph(graph: G.PipelineGraph) -> Plan:
    """The planner's input for the job of a ``.trickle`` file (see :func:`build_query_job`)."""
    return _query_job(graph)[1]


def build_query_job(
    graph: G.PipelineGraph, source: Source, job_name: str, native: bool = False
) -> str:
    """The job for a ``.trickle`` file: inputs are its from ports, outputs its into ports plus
    ``error_log`` (select errors)."""
    code, plan, pieces = _query_job(graph)
    rendered = graph_expr(**pieces)  # type: ignore[arg-type]
    assuming = tuple(
        node.name
        for node in graph.nodes
        if isinstance(node, G.OperatorNode) and node.assumes_no_input_meta
    )
    parts = JobParts(
        source_name=source.name,
        imports=(*code.imports, *GRAPH_IMPORTS),
        sources=code.sources,
        blocks=code.blocks,
        graph=rendered,
        plan=plan_context(plan_of(plan), no_input_meta=assuming),
        native=native,
    )
    return render_job(parts, job_name)


__all__ = ["PipelineCode", "build_query_job", "compile_pipeline", "query_graph", "render_node"]
