"""Assemble a whole job from a checked tree: generated code blocks, the graph, the template.

A ``.tremor`` file becomes a one-node graph ``in → script → out/err/<ports>``; trickle and troy
build their graphs in ``query.py`` / ``deploy.py``.
"""

from __future__ import annotations

from ..ast import script as S
from ..diagnostics import CompileError
from ..source import Source
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import JobParts, render_job

SCRIPT_NODE_IMPORTS = ("functools:partial", "runtime_support.graph:script_operator")


def uses_state(tree: S.Node) -> bool:
    """True when the program reads or writes ``state`` (its operator must see events in order)."""
    return any(isinstance(n, S.Path) and n.root == "state" for n in tree.walk())


def emit_ports(tree: S.Node) -> tuple[str, ...]:
    """Literal ports named by ``emit … => "p"``, in first-use order (``out``/``err`` excluded)."""
    ports: list[str] = []
    for node in tree.walk():
        if isinstance(node, S.Emit) and node.port is not None:
            if not (isinstance(node.port, S.Literal) and isinstance(node.port.value, str)):
                raise CompileError(
                    "Emitting to a port computed at run time is not supported on Spark yet",
                    node.port.span,
                    hint="use a string literal port name",
                )
            if node.port.value not in ports and node.port.value not in ("out", "err"):
                ports.append(node.port.value)
    return tuple(ports)


def build_script_job(script: S.Script, source: Source, job_name: str) -> str:
    """The job for a standalone ``.tremor`` file."""
    from .pyscript import generate_script

    generated = generate_script(script, source, prefix="script")
    ports = ("out", "err", *emit_ports(script))
    node = NodeCode(
        name="script",
        factory=f"partial(script_operator, {generated.entry}, SOURCE, SCRIPT_SITES)",
        stateful=uses_state(script),
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


def build_job(tree: object, source: Source, kind: str, job_name: str) -> str:
    """Dispatch on the program kind (then add the native pre-filter when that mode is on)."""
    if kind == "script":
        assert isinstance(tree, S.Script)
        return _with_native(tree, kind, build_script_job(tree, source, job_name))
    if kind == "query":
        from .query import build_query_job

        return _with_native(tree, kind, build_query_job(tree, source, job_name))
    from .deploy import build_deploy_job

    return build_deploy_job(tree, source, job_name)


def _with_native(tree: object, kind: str, job: str) -> str:
    """Native lowering (helper H, ``compiler/lowering``): with ``TREMORC_NATIVE=1``, events the
    program provably drops are removed in the JVM before ``mapInArrow``; otherwise ``job``."""
    from ..lowering.attach import attach_prefilter, native_enabled
    from ..lowering.prefilter import native_drop_plan

    if not native_enabled():
        return job
    plan = native_drop_plan(tree, kind)
    return job if plan is None else attach_prefilter(job, "in", plan)
