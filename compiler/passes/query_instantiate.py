"""Instantiate a trickle query (or a pipeline created in a flow) into a pipeline graph.

Needs: statements that passed :mod:`compiler.passes.query_checks`. Establishes: a
:class:`~compiler.ir.graph.PipelineGraph` (see its invariants) in which every ``create`` names a
definition visible at that point, every ``args``/``with``/``state``/config value is a constant,
and every ``from``/``into`` names a stream, node or sub-pipeline port. Raises Tremor's
instantiation errors: ``… not found``, ``Unknown parameter``, ``Missing required argument``,
non-constant values, ``Stream used in `from` or `into` is not defined``, window errors.

Definitions are visible from their statement on (a ``create`` before its ``define`` fails), and
a sub-pipeline sees its own ``use`` items and its creator's trickle modules, as when
:mod:`compiler.passes.query_checks` checked it, so each of its scripts is checked once (the
program's :class:`~compiler.passes.elaboration.Elaboration` hands instantiation the checked one).
"""

from __future__ import annotations

from typing import Any

from ..ast import query as Q
from ..ast import script as S
from ..diagnostics import CompileError
from ..ir import graph as G
from ..registry.checks import check_operator
from ..source import Source
from .batch_flush import mark_flush_transparent
from .bucket_routing import route_buckets
from .elaboration import Elaboration
from .meta_liveness import mark_meta_unread
from .query_scope import (
    Scope,
    arg_values,
    const_value,
    embed,
    load_query_modules,
    with_module_scopes,
)
from .query_selects import is_passthrough, select_ir
from .script_ports import uses_state

DEFAULT_FROM = ("in",)
DEFAULT_INTO = ("out", "err")


class _Instantiator:
    """Builds the nodes and links of one pipeline body (inlining sub-pipelines)."""

    def __init__(
        self,
        scope: Scope,
        path: str,
        args: Any,
        from_ports: tuple[str, ...],
        into_ports: tuple[str, ...],
    ) -> None:
        self.scope, self.path, self.args = scope, path, args
        self.nodes: list[G.GraphNode] = []
        self.links: list[G.Link] = []
        self.errors: list[G.Endpoint] = []
        self.streams: dict[str, str] = {}  # visible name -> node name (streams/ops/scripts)
        self.subs: dict[str, tuple[dict[str, str], dict[str, str]]] = {}  # alias -> (in, out)
        self.selects = 0
        self.implicit_late = False  # a ``.trickle`` file's late port appears on demand
        self.extra_into: list[str] = []
        for port in from_ports:
            self._add(G.PortNode(name=path + port, port=port, direction="from"), port)
        for port in into_ports:
            self._add(G.PortNode(name=path + port, port=port, direction="into"), port)

    def _add(self, node: G.GraphNode, visible: str) -> None:
        self.streams[visible] = node.name
        self.nodes.append(node)

    def build(self, stmts: tuple[Q.QueryItem, ...]) -> None:
        for stmt in stmts:
            if isinstance(
                stmt, Q.DefineWindow | Q.DefineOperator | Q.DefineScript | Q.DefinePipeline
            ):
                self.scope.defs[stmt.name.name] = stmt
            elif isinstance(stmt, Q.CreateStream):
                name = stmt.name.name
                self._add(G.StreamNode(name=self.path + name, span=stmt.span), name)
            elif isinstance(stmt, Q.CreateScript):
                self._script(stmt)
            elif isinstance(stmt, Q.CreateOperator):
                self._operator(stmt)
            elif isinstance(stmt, Q.CreatePipeline):
                self._pipeline(stmt)
            elif isinstance(stmt, Q.Select):
                self._select(stmt)

    # -- creation ---------------------------------------------------------------------------

    def _definition(self, stmt: Q.Create, kind: type) -> tuple[Any, Scope]:
        found = self.scope.lookup(stmt.target)
        if found is None or not isinstance(found[0], kind):
            raise CompileError(
                f"{stmt.KIND} `{stmt.target.qualified}` not found",
                stmt.target.span,
                source=self.scope.source,
            )
        return found

    def _script(self, stmt: Q.CreateScript) -> None:
        defn, dscope = self._definition(stmt, Q.DefineScript)
        args = arg_values(defn.args, stmt.params, dscope, self.args, caller=self.scope)
        body = G.Embedded(script=embed(defn.script.items, dscope), source=dscope.source)
        state = None
        if defn.state is not None:
            value = const_value(
                defn.state,
                dscope,
                args,
                defn.state.span,
                message="state not constant",
                outer=defn.span,
            )
            state = G.Constant(value=value)
        named = tuple(
            G.NamedScript(
                port=n.port.name,
                body=G.Embedded(script=embed(n.script.items, dscope), source=dscope.source),
            )
            for n in defn.named
        )
        node = G.ScriptNode(
            name=self.path + stmt.name.name,
            body=body,
            args=args,
            state=state,
            named=named,
            stateful=uses_state(defn.script) or defn.state is not None,
            span=stmt.span,
        )
        self._add(node, stmt.name.name)

    def _operator(self, stmt: Q.CreateOperator) -> None:
        defn, dscope = self._definition(stmt, Q.DefineOperator)
        args = arg_values(defn.args, stmt.params, dscope, self.args, caller=self.scope)
        config = {e.key.name: const_value(e.value, dscope, args, e.span) for e in defn.config}
        check_operator(defn, config, dscope.source)
        node = G.OperatorNode(
            name=self.path + stmt.name.name,
            kind=defn.kind.qualified,
            config=config,
            span=stmt.span,
        )
        self._add(node, stmt.name.name)

    def _pipeline(self, stmt: Q.CreatePipeline) -> None:
        defn, dscope = self._definition(stmt, Q.DefinePipeline)
        args = arg_values(defn.args, stmt.params, dscope, self.args, caller=self.scope)
        from_ports = tuple(p.name for p in defn.from_ports) or DEFAULT_FROM
        into_ports = tuple(p.name for p in defn.into_ports) or DEFAULT_INTO
        sub_scope = dscope.child()
        sub_scope.uses = tuple(s for s in defn.stmts if isinstance(s, S.Use))
        sub = _Instantiator(
            sub_scope, f"{self.path}{stmt.name.name}/", args, from_ports, into_ports
        )
        sub.build(defn.stmts)
        self.nodes.extend(sub.nodes)
        self.links.extend(sub.links)
        self.errors.extend(sub.errors)
        ins = {p: sub.streams[p] for p in from_ports}
        outs = {p: sub.streams[p] for p in into_ports}
        self.subs[stmt.name.name] = (ins, outs)

    # -- selects ----------------------------------------------------------------------------

    def _source(self, ref: Q.StreamRef) -> G.Endpoint:
        name = ref.stream.name
        if name in self.subs:
            outs = self.subs[name][1]
            port = ref.port_or("out")
            if port in outs:
                return outs[port], "out"
        elif name in self.streams:
            return self.streams[name], ref.port_or("out")
        raise self._undefined(ref, "out")

    def _dest(self, ref: Q.StreamRef) -> G.Endpoint:
        name = ref.stream.name
        if name in self.subs:
            ins = self.subs[name][0]
            port = ref.port_or("in")
            if port in ins:
                return ins[port], "in"
        elif name in self.streams:
            return self.streams[name], ref.port_or("in")
        raise self._undefined(ref, "in")

    def _undefined(self, ref: Q.StreamRef, port: str) -> CompileError:
        return CompileError(
            f"Stream used in `from` or `into` is not defined: {ref.stream.name}/"
            f"{ref.port_or(port)}",
            ref.stream.span,
            source=self.scope.source,
        )

    def _select(self, stmt: Q.Select) -> None:
        src, dst = self._source(stmt.from_), self._dest(stmt.into)
        if is_passthrough(stmt):
            self.links.append(G.Link(source=src, target=dst))
            return
        self.selects += 1
        node = select_ir(stmt, f"{self.path}#select{self.selects}", self.scope, self.args)
        self.nodes.append(node)
        self.links.append(G.Link(source=src, target=(node.name, "in")))
        self.links.append(G.Link(source=(node.name, "out"), target=dst))
        self.errors.append((node.name, "error"))
        if node.late:
            self.links.append(G.Link(source=(node.name, "late"), target=self._late(stmt)))

    def _late(self, stmt: Q.Select) -> G.Endpoint:
        """Where late events go (docs/extensions.md): the pipeline's stream or port
        ``late``; a ``.trickle`` file gets the output port ``late`` when it needs one, a
        defined pipeline must declare it (nothing is dropped unseen)."""
        if "late" not in self.streams and self.implicit_late:
            node = G.PortNode(name=self.path + "late", port="late", direction="into")
            self._add(node, "late")
            self.extra_into.append("late")
        if "late" not in self.streams:
            raise CompileError(
                "An event-time window sends late events to the pipeline's `late` port: declare "
                "it (`into out, err, late`) or create a stream `late`",
                stmt.span,
                source=self.scope.source,
            )
        return self.streams["late"], "in"


def instantiate_pipeline(
    stmts: tuple[Q.QueryItem, ...],
    source: Source,
    elab: Elaboration,
    *,
    args: Any = None,
    from_ports: tuple[str, ...] = DEFAULT_FROM,
    into_ports: tuple[str, ...] = DEFAULT_INTO,
    node_prefix: str = "",
    modules: dict[tuple[str, ...], Any] | None = None,
    implicit_late: bool = False,
) -> G.PipelineGraph:
    """Instantiate a pipeline body with bound ``args``; node names start with ``node_prefix``
    (``implicit_late``: add the output port ``late`` when an event-time window needs it)."""
    scope = Scope(source, tuple(s for s in stmts if isinstance(s, S.Use)), elab=elab)
    with_module_scopes(scope, modules if modules is not None else load_query_modules(stmts, source))
    inst = _Instantiator(scope, node_prefix, {} if args is None else args, from_ports, into_ports)
    inst.implicit_late = implicit_late
    inst.build(stmts)
    return G.PipelineGraph(
        inputs=tuple((p, inst.streams[p]) for p in from_ports),
        outputs=tuple((p, inst.streams[p]) for p in (*into_ports, *inst.extra_into)),
        nodes=tuple(inst.nodes),
        links=tuple(inst.links),
        errors=tuple(inst.errors),
    )


def config_ports(query: Q.Query, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """``#!config from|into = "a, b"`` as port names."""
    for directive in query.config:
        if directive.key.name == key and isinstance(directive.value, S.Literal):
            return tuple(p.strip() for p in str(directive.value.value).split(",") if p.strip())
    return default


def instantiate_query(query: Q.Query, source: Source, elab: Elaboration) -> G.PipelineGraph:
    """The graph of a ``.trickle`` file: its ports come from ``#!config from``/``into``; buckets
    that only route are marked (:mod:`compiler.passes.bucket_routing`), given that its input
    events carry no metadata (the generated job refuses input that has some); so are scripts
    whose metadata nothing reads (its outputs carry none, :mod:`.meta_liveness`); batches whose
    batching only its sinks see are marked (:mod:`compiler.passes.batch_flush`)."""
    graph = instantiate_pipeline(
        query.stmts,
        source,
        elab,
        from_ports=config_ports(query, "from", DEFAULT_FROM),
        into_ports=config_ports(query, "into", DEFAULT_INTO),
        implicit_late=True,
    )
    graph = route_buckets(graph, input_meta_empty=True)  # the job's CLI reads no metadata
    graph = mark_meta_unread(graph, outputs_read_meta=False)  # nor does it write any
    return mark_flush_transparent(graph)
