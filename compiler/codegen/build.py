"""Assemble a whole job from a checked program (:class:`~compiler.ir.Checked`): generated code
blocks, the graph, the template, the native hooks; black formats the assembled text once. Raises
no user error: the passes found them all.

A ``.tremor`` file becomes a one-node graph ``in → script → out/err/<ports>``; trickle and troy
build their graphs in ``query.py`` / ``deploy.py``.
"""

from __future__ import annotations

from ..ast import script as S
from ..blackfmt import black_format
from ..ir import Checked, Deployment, PipelineGraph, ScriptGraph
from ..lowering.attach import attach_prefilter
from ..lowering.predicate import NotNative
from ..lowering.prefilter import default_drop_plan
from ..lowering.typed_graph import attach_typed, typed_job_plan
from ..plan import plan_of
from ..plan.model import Plan
from ..source import Source
from .deploy import build_deploy_job, deploy_graph
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import JobParts, render_job
from .pyscript import generate_script
from .query import build_query_job, query_graph
from .stages import job_graph, plan_context

SCRIPT_NODE_IMPORTS = ("functools:partial", "runtime_support.tremor.graph:script_operator")


def _script_graph(facts: ScriptGraph) -> tuple[NodeCode, tuple]:
    """The one node of a ``.tremor`` job and its links ``in → script → <ports>``."""
    node = NodeCode(
        name="script",
        factory="partial(script_operator, script_run, SOURCE, SCRIPT_SITES)",
        stateful=facts.stateful,
        scope=facts.scope,
        label="script",
    )
    links = ((("in", "out"), ("script", "in")),) + tuple(
        (("script", port), (output_node(port), "in")) for port in facts.ports
    )
    return node, links


def job_plan(checked: Checked) -> Plan:
    """The planned stages of ``checked``'s job (what ``tremorc dbg plan`` prints and the job's
    ``STAGES`` hold), without rendering the job."""
    return plan_of(job_input(checked))


def job_input(checked: Checked) -> Plan:
    """The planner's input for ``checked``'s job: its job graph (no stages)."""
    if checked.kind == "deploy":
        assert isinstance(checked.ir, Deployment), "a checked deploy carries its flows"
        return deploy_graph(checked.ir)
    if checked.kind == "script":
        assert isinstance(checked.ir, ScriptGraph)
        node, links = _script_graph(checked.ir)
        return job_graph(streams=("in",), output_ports=checked.ir.ports, nodes=(node,), links=links)
    assert isinstance(checked.ir, PipelineGraph), "a checked query carries its graph"
    return query_graph(checked.ir)


def build_script_job(
    script: S.Script, facts: ScriptGraph, source: Source, job_name: str, native: bool = False
) -> str:
    """The text of the job for a standalone ``.tremor`` file (not yet formatted)."""
    generated = generate_script(script, source, prefix="script")
    ports = facts.ports
    node, links = _script_graph(facts)
    assert generated.entry == "script_run", "the factory names the entry function"
    graph = graph_expr(inputs=("in",), output_ports=ports, nodes=(node,), links=links)
    planned = plan_of(job_graph(streams=("in",), output_ports=ports, nodes=(node,), links=links))
    parts = JobParts(
        source_name=source.name,
        imports=(*generated.imports, *GRAPH_IMPORTS, *SCRIPT_NODE_IMPORTS),
        sources=(("SOURCE", repr(source.text)), ("SCRIPT_SITES", repr(generated.sites))),
        blocks=(generated.code,),
        graph=graph,
        plan=plan_context(planned),
        native=native,
    )
    return render_job(parts, job_name)


def build_job(checked: Checked, source: Source, job_name: str, schema: tuple | None = None) -> str:
    """The black-formatted job (formatted once, after the native hooks are attached). Dispatch
    on the program kind; events a script or query provably drops are removed in the JVM before
    ``mapInArrow`` where the test lowers narrowly (``prefilter.py``); with a declared input
    ``schema`` (``compiler/lowering/schema.py``) a script that lowers runs as Spark Columns on the
    events that fit it (``compiler/lowering/typed.py``)."""
    tree, kind = checked.tree, checked.kind
    if kind == "deploy":
        assert isinstance(checked.ir, Deployment), "a checked deploy carries its flows"
        return black_format(build_deploy_job(checked.ir, source, job_name))
    plan, typed = _native_plan(checked), _typed_plan(checked, schema)
    native = plan is not None or typed is not None
    if kind == "script":
        assert isinstance(tree, S.Script) and isinstance(checked.ir, ScriptGraph)
        job = build_script_job(tree, checked.ir, source, job_name, native=native)
    else:
        assert isinstance(checked.ir, PipelineGraph), "a checked query carries its graph"
        job = build_query_job(checked.ir, source, job_name, native=native)
    if plan is not None:
        job = attach_prefilter(job, "in", plan)
    if typed is not None and schema is not None:
        job = attach_typed(job, "in", schema, typed)
    return black_format(job)


def _typed_plan(checked: Checked, schema: tuple | None) -> tuple | None:
    """The typed plan over a declared schema, or None (no schema, or the program does not
    lower: ``tremorc dbg lowering --schema`` says why)."""
    if schema is None:
        return None
    try:
        return typed_job_plan(checked.ir, schema)
    except NotNative:
        return None


def _native_plan(checked: Checked) -> object:
    """The native pre-filter's drop predicate (``compiler/lowering/prefilter.py``), or None
    where nothing can be dropped natively or only by the lowering that measured slower."""
    return default_drop_plan(checked.ir)
