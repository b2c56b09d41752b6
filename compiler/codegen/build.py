"""Assemble a whole job from a checked program (:class:`~compiler.ir.Checked`): generated code
blocks, the graph, the template. Raises no user error: the passes found them all.

A ``.tremor`` file becomes a one-node graph ``in → script → out/err/<ports>``; trickle and troy
build their graphs in ``query.py`` / ``deploy.py``.
"""

from __future__ import annotations

from ..ast import script as S
from ..ir import Checked, Deployment, PipelineGraph, ScriptGraph
from ..source import Source
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import JobParts, render_job

SCRIPT_NODE_IMPORTS = ("functools:partial", "runtime_support.graph:script_operator")


def build_script_job(script: S.Script, facts: ScriptGraph, source: Source, job_name: str) -> str:
    """The job for a standalone ``.tremor`` file."""
    from .pyscript import generate_script

    generated = generate_script(script, source, prefix="script")
    ports = facts.ports
    node = NodeCode(
        name="script",
        factory=f"partial(script_operator, {generated.entry}, SOURCE, SCRIPT_SITES)",
        stateful=facts.stateful,
    )
    links = ((("in", "out"), ("script", "in")),) + tuple(
        (("script", port), (output_node(port), "in")) for port in ports
    )
    graph = graph_expr(inputs=("in",), output_ports=ports, nodes=(node,), links=links)
    parts = JobParts(
        source_name=source.name,
        imports=(*generated.imports, *GRAPH_IMPORTS, *SCRIPT_NODE_IMPORTS),
        sources=(("SOURCE", repr(source.text)), ("SCRIPT_SITES", repr(generated.sites))),
        blocks=(generated.code,),
        graph=graph,
    )
    return render_job(parts, job_name)


def build_job(checked: Checked, source: Source, job_name: str) -> str:
    """Dispatch on the program kind (then add the native pre-filter when that mode is on)."""
    tree, kind = checked.tree, checked.kind
    if kind == "script":
        assert isinstance(tree, S.Script) and isinstance(checked.ir, ScriptGraph)
        return _with_native(checked, build_script_job(tree, checked.ir, source, job_name))
    if kind == "query":
        from .query import build_query_job

        assert isinstance(checked.ir, PipelineGraph), "a checked query carries its graph"
        return _with_native(checked, build_query_job(checked.ir, source, job_name))
    from .deploy import build_deploy_job

    assert isinstance(checked.ir, Deployment), "a checked deploy carries its flows"
    return build_deploy_job(checked.ir, source, job_name)


def _with_native(checked: Checked, job: str) -> str:
    """Native lowering (helper H, ``compiler/lowering``): with ``TREMORC_NATIVE=1``, events the
    program provably drops are removed in the JVM before ``mapInArrow``; otherwise ``job``."""
    from ..lowering.attach import attach_prefilter, native_enabled
    from ..lowering.prefilter import native_drop_plan

    if not native_enabled():
        return job
    plan = native_drop_plan(checked.ir)
    return job if plan is None else attach_prefilter(job, "in", plan)
