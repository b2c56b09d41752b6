"""Troy checks: definitions, the args model, and the instantiation of every deployed flow.

Needs: a parsed :class:`~compiler.ast.deploy.Deploy`.
Establishes: every connector definition uses only the six allowed ``with`` keys; every
``create`` names a defined artefact and only its declared args; every ``deploy flow`` names a
defined flow, binds every required arg and no unknown one; all args and ``with`` values are
compile-time constants. :func:`instantiate` returns the deployed flows with args substituted
(connector configs and pipeline args as plain values) for the code generator.

A file without ``deploy flow`` deploys its flow ``main`` (the archive entry point Tremor's flow
harness uses) when there is one and it needs no arguments; a ``main`` with required args is only
checked as a definition (Tremor takes those args from the archive's config, which a plain file
does not have).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ast import deploy as D
from ..ast import query as Q
from ..ast import script as S
from ..diagnostics import CompileError
from ..ir.flow import FlowArg
from ..registry.connector_checks import check_connector
from ..source import Source, Span
from .deploy_args import flow_args
from .deploy_eval import ConstEval
from .deploy_pipelines import check_pipeline_definition
from .deploy_scope import Scope, load_scope
from .elaboration import Elaboration

__all__ = [
    "ConnectorInstance",
    "FlowInstance",
    "PipelineInstance",
    "check_deploy",
    "check_flow_definitions",
    "instantiate",
]


@dataclass(frozen=True)
class ConnectorInstance:
    """``create connector alias``: builtin ``kind`` and evaluated ``with`` values."""

    alias: str
    kind: str
    params: dict[str, Any]
    definition: D.DefineConnector
    create: D.Create


@dataclass(frozen=True)
class PipelineInstance:
    """``create pipeline alias``: its definition, bound args and the flow's ``use`` scope."""

    alias: str
    definition: Q.DefinePipeline
    args: dict[str, Any]
    uses: tuple[S.Use, ...]
    create: D.Create
    source: Source | None = None  # the text the definition's spans point into


@dataclass(frozen=True)
class FlowInstance:
    """One ``deploy flow``: its alias, created connectors and pipelines, connections, and its
    args (which of them the job may take at run time: :mod:`.deploy_args`)."""

    alias: str
    flow: D.DefineFlow
    connectors: tuple[ConnectorInstance, ...]
    pipelines: tuple[PipelineInstance, ...]
    connects: tuple[D.Connect, ...]
    args: tuple[FlowArg, ...] = ()


def _keyword_span(text: str, keyword: str, lo: int, first: Span, last: Span) -> Span:
    """From ``keyword`` (the last one before ``first``) to the end of ``last``."""
    start = text.rfind(keyword, lo, first.start)
    return Span(start if start >= 0 else first.start, last.end)


def bind_args(
    defs: tuple[Q.ArgDef, ...],
    given: tuple[Q.WithEntry, ...],
    values: dict[str, Any],
    evaluator: ConstEval,
    *,
    lo: int,
) -> dict[str, Any]:
    """Tremor's args model: defaults overridden by ``given`` (already evaluated in ``values``).

    Raises ``Unknown argument: x`` / ``Missing required argument: x``.
    """
    source = evaluator.source
    names = {d.name.name for d in defs}
    for entry in given:
        if entry.key.name not in names:
            outer = _keyword_span(source.text, "with", lo, given[0].span, given[-1].span)
            message = f"Unknown argument: {entry.key.name}"
            raise CompileError(message, entry.key.span, outer=outer, source=source)
    bound: dict[str, Any] = {}
    for arg in defs:
        if arg.name.name in values:
            bound[arg.name.name] = values[arg.name.name]
        elif arg.default is not None:
            bound[arg.name.name] = evaluator.value(arg.default)
        else:
            outer = _keyword_span(source.text, "args", lo, defs[0].span, defs[-1].span)
            message = f"Missing required argument: {arg.name.name}"
            raise CompileError(message, arg.name.span, outer=outer, source=source)
    return bound


def check_connector_definition(defn: D.DefineConnector, source: Source) -> None:
    """Only :data:`~compiler.ast.deploy.CONNECTOR_WITH_KEYS` may appear in ``with``."""
    for entry in defn.config:
        if entry.key.name not in D.CONNECTOR_WITH_KEYS:
            from ..parse.errors import outer_span

            span = entry.key.span
            raise CompileError(
                f'Invalid `with` parameter "{entry.key.name}" in definition of connector '
                f'"{defn.name.name}".',
                span,
                outer=outer_span(source.text, span),
                hint="Available parameters are: " + ", ".join(D.CONNECTOR_WITH_KEYS),
                source=source,
            )


def _not_defined(name: str, outer: Span, inner: Span, options: list[str], src: Source) -> Any:
    message = (
        f"Artefact `{name}` is not defined or not found, the following are defined: "
        + ", ".join(options)
    )
    return CompileError(message, inner, outer=outer, source=src)


def _check_with_keys(create: D.Create, args: tuple[Q.ArgDef, ...], source: Source) -> None:
    """Each ``with`` key of a ``create`` must be a declared arg of its target."""
    from ..parse.errors import outer_span

    names = [a.name.name for a in args]
    for entry in create.params:
        if entry.key.name not in names:
            raise CompileError(
                f'`with` parameter "{entry.key.name}" does not correspond to an argument in the '
                f'target definition "{create.name.name}"',
                entry.key.span,
                outer=outer_span(source.text, entry.key.span),
                source=source,
            )


def _create_instance(
    create: D.Create,
    scope: Scope,
    evaluator: ConstEval,
    flow_args: dict[str, Any],
    check: bool = True,
) -> ConnectorInstance | PipelineInstance:
    """Resolve, check and bind one ``create`` of a deployed flow (``check``: a connector's
    values are checked against its kind)."""
    source = evaluator.source
    defn = scope.lookup(create)
    if defn is None:
        raise _not_defined(create.target.qualified, create.span, create.name.span, [], source)
    _check_with_keys(create, defn.args, source)
    given = {e.key.name: evaluator.value(e.value, flow_args) for e in create.params}
    args = bind_args(defn.args, create.params, given, scope.evaluator_for(defn), lo=defn.span.start)
    if isinstance(defn, D.DefineConnector):
        check_connector_definition(defn, scope.source_for(defn))
        definition_eval = scope.evaluator_for(defn)
        params = {e.key.name: definition_eval.value(e.value, args) for e in defn.config}
        if check:
            check_connector(defn, params, scope.source_for(defn))
        return ConnectorInstance(create.name.name, defn.kind.name, params, defn, create)
    # A flow's own pipeline is checked with its own ``use``s (check_flow_definitions); it is
    # instantiated with exactly those, so its scripts pass the front end once. An imported one
    # keeps its module's ``use``s.
    uses = scope.uses_for(defn) if id(defn) in scope.homes else ()
    home = scope.source_for(defn)  # a module's pipeline renders against its module's text
    return PipelineInstance(create.name.name, defn, args, uses, create, home)


def check_flow_definitions(scope: Scope) -> None:
    """Definition-time checks of the flow body ``scope`` entered, in statement order."""
    assert scope.flow is not None and scope.elab is not None
    for stmt in scope.flow.stmts:
        if isinstance(stmt, D.DefineConnector):
            check_connector_definition(stmt, scope.source)
        elif isinstance(stmt, Q.DefinePipeline):
            check_pipeline_definition(stmt, scope.source, scope.elab)
        elif isinstance(stmt, D.Create):
            defn = scope.lookup(stmt)
            if defn is None:
                name = stmt.target.qualified
                raise _not_defined(name, stmt.span, stmt.name.span, [], scope.source)
            _check_with_keys(stmt, defn.args, scope.source)


def _deploy_instance(deploy: D.DeployFlow, top: Scope) -> FlowInstance:
    """Instantiate one ``deploy flow`` (flow args first, then its creates in order)."""
    source = top.evaluator.source
    flow = top.lookup_flow(deploy.target)
    if flow is None:
        options = [f.name.name for f in top.flows]
        raise _not_defined(deploy.target.qualified, deploy.span, deploy.name.span, options, source)
    given = {e.key.name: top.evaluator.value(e.value) for e in deploy.params}
    home = top.home(flow)  # defaults and body are read in the flow's own module
    args = bind_args(flow.args, deploy.params, given, home.evaluator, lo=flow.span.start)
    scope = home.enter(flow)
    instances = [_create_instance(c, scope, scope.evaluator, args) for c in flow.creates()]
    connectors = [c for c in flow.creates() if isinstance(scope.lookup(c), D.DefineConnector)]

    def probe(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
        made = (_create_instance(c, scope, scope.evaluator, values, False) for c in connectors)
        return {i.alias: i.params for i in made if isinstance(i, ConnectorInstance)}

    params = {i.alias: i.params for i in instances if isinstance(i, ConnectorInstance)}
    defs = {c.name.name: scope.lookup(c) for c in flow.creates()}
    return FlowInstance(
        alias=deploy.name.name,
        flow=flow,
        connectors=tuple(i for i in instances if isinstance(i, ConnectorInstance)),
        pipelines=tuple(i for i in instances if isinstance(i, PipelineInstance)),
        connects=flow.connects(),
        args=flow_args(flow, args, defs, params, probe),
    )


def _deploys(deploy: D.Deploy, top: Scope) -> tuple[D.DeployFlow, ...]:
    """The ``deploy flow`` statements, or an implicit ``deploy flow main`` (see module doc)."""
    found = tuple(s for s in deploy.stmts if isinstance(s, D.DeployFlow))
    if found:
        return found
    main = next((f for f in top.flows if f.name.name == "main"), None)
    if main is None or any(arg.default is None for arg in main.args):
        return ()
    name = Q.Ident(name="main", span=main.name.span)
    target = Q.Target(module=(), name="main", explicit=False, span=main.name.span)
    return (D.DeployFlow(name=name, target=target, span=main.span),)


def instantiate(deploy: D.Deploy, source: Source, elab: Elaboration) -> tuple[FlowInstance, ...]:
    """Check ``deploy`` (see the module docstring) and return its deployed flow instances."""
    top = load_scope(deploy, source, elab)
    for stmt in deploy.stmts:
        if isinstance(stmt, D.DefineFlow):
            check_flow_definitions(top.enter(stmt))
    return tuple(_deploy_instance(d, top) for d in _deploys(deploy, top))


def check_deploy(deploy: D.Deploy, source: Source, elab: Elaboration) -> D.Deploy:
    """Run every troy check; the tree is returned unchanged (pipelines and connections are
    instantiated by :mod:`compiler.passes.deploy_instantiate`)."""
    instantiate(deploy, source, elab)
    return deploy
