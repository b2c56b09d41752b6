"""Trickle pipelines → graph nodes and links (composable: troy embeds several per job).

Node names: streams, operators, scripts keep their names behind a path prefix (``""`` at top
level, ``"alias/"`` inside ``create pipeline alias``); selects are ``<prefix>#select<n>``; a
pipeline's ports are passthrough nodes ``<prefix><port>``. Select errors leave on the select's
``error`` port and are collected in ``PipelineCode.errors`` (the job routes them to the extra
output ``error_log``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ast import query as Q
from ..ast import script as S
from ..diagnostics import CompileError
from ..passes.query_scope import (
    Scope,
    arg_values,
    const_value,
    embed,
    load_query_modules,
    with_module_scopes,
)
from ..source import Source
from .build import emit_ports, uses_state
from .graph import GRAPH_IMPORTS, NodeCode, graph_expr, output_node
from .job import JobParts, render_job
from .query_select import Emitter, is_passthrough, select_spec

Link = tuple[tuple[str, str], tuple[str, str]]
ERROR_LOG = "error_log"
OPERATORS = "runtime_support.operators:builtin_operator"


@dataclass(frozen=True)
class PipelineCode:
    """One compiled pipeline: code pieces plus its graph fragment.

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


class _Builder:
    """Builds the nodes and links of one pipeline body (recursing into sub-pipelines)."""

    def __init__(
        self,
        em: Emitter,
        scope: Scope,
        path: str,
        args: Any,
        from_ports: tuple[str, ...],
        into_ports: tuple[str, ...],
    ) -> None:
        self.em, self.scope, self.path, self.args = em, scope, path, args
        self.from_ports, self.into_ports = from_ports, into_ports
        self.nodes: list[NodeCode] = []
        self.links: list[Link] = []
        self.errors: list[tuple[str, str]] = []
        self.streams: dict[str, str] = {}  # visible name -> node name (streams/ops/scripts)
        self.subs: dict[str, tuple[dict[str, str], dict[str, str]]] = {}  # alias -> (in, out)
        self.selects = 0
        for port in (*from_ports, *into_ports):
            self._passthrough(port)

    def _passthrough(self, name: str) -> None:
        node = self.path + name
        self.streams[name] = node
        self.em.imports.add("runtime_support.graph:Passthrough")
        self.nodes.append(NodeCode(name=node, factory="Passthrough", stateful=False))

    def build(self, stmts: tuple[Q.QueryItem, ...]) -> None:
        for stmt in stmts:
            if isinstance(
                stmt, Q.DefineWindow | Q.DefineOperator | Q.DefineScript | Q.DefinePipeline
            ):
                self.scope.defs[stmt.name.name] = stmt
            elif isinstance(stmt, Q.CreateStream):
                self._passthrough(stmt.name.name)
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
        entry, sites, src = self.em.script_entry(embed(defn.script.items, dscope), dscope.source)
        extra = [f"args={args!r}"]
        if defn.state is not None:
            state = const_value(
                defn.state,
                dscope,
                args,
                defn.state.span,
                message="state not constant",
                outer=defn.span,
            )
            extra.append(f"state={state!r}")
        named = []
        for n in defn.named:
            code = self.em.script_entry(embed(n.script.items, dscope), dscope.source)[0]
            named.append(f"{n.port.name!r}: {code}")
        if named:
            extra.append(f"named={{{', '.join(named)}}}")
        factory = f"partial(script_operator, {entry}, {src}, {sites}, {', '.join(extra)})"
        self.em.imports.update(("functools:partial", "runtime_support.graph:script_operator"))
        stateful = uses_state(defn.script) or defn.state is not None
        self._add(stmt.name.name, factory, stateful)

    def _operator(self, stmt: Q.CreateOperator) -> None:
        defn, dscope = self._definition(stmt, Q.DefineOperator)
        args = arg_values(defn.args, stmt.params, dscope, self.args, caller=self.scope)
        config = {e.key.name: const_value(e.value, dscope, args, e.span) for e in defn.config}
        kind = defn.kind.qualified
        self.em.imports.add(OPERATORS)
        self._add(stmt.name.name, f"partial(builtin_operator, {kind!r}, {config!r})", True)
        self.em.imports.add("functools:partial")

    def _add(self, name: str, factory: str, stateful: bool) -> None:
        node = self.path + name
        self.streams[name] = node
        self.nodes.append(NodeCode(name=node, factory=factory, stateful=stateful))

    def _pipeline(self, stmt: Q.CreatePipeline) -> None:
        defn, dscope = self._definition(stmt, Q.DefinePipeline)
        args = arg_values(defn.args, stmt.params, dscope, self.args, caller=self.scope)
        from_ports = tuple(p.name for p in defn.from_ports) or ("in",)
        into_ports = tuple(p.name for p in defn.into_ports) or ("out", "err")
        sub_scope = dscope.child()
        sub_scope.uses = (*sub_scope.uses, *(s for s in defn.stmts if isinstance(s, S.Use)))
        sub = _Builder(
            self.em, sub_scope, f"{self.path}{stmt.name.name}/", args, from_ports, into_ports
        )
        sub.build(defn.stmts)
        self.nodes.extend(sub.nodes)
        self.links.extend(sub.links)
        self.errors.extend(sub.errors)
        ins = {p: sub.streams[p] for p in from_ports}
        outs = {p: sub.streams[p] for p in into_ports}
        self.subs[stmt.name.name] = (ins, outs)

    # -- selects ----------------------------------------------------------------------------

    def _source(self, ref: Q.StreamRef) -> tuple[str, str]:
        name = ref.stream.name
        if name in self.subs:
            outs = self.subs[name][1]
            port = ref.port_or("out")
            if port in outs:
                return outs[port], "out"
        elif name in self.streams:
            return self.streams[name], ref.port_or("out")
        raise self._undefined(ref, "out")

    def _dest(self, ref: Q.StreamRef) -> tuple[str, str]:
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
            self.links.append((src, dst))
            return
        self.selects += 1
        node = f"{self.path}#select{self.selects}"
        spec = select_spec(stmt, self.em, self.scope, self.args)
        self.em.imports.update(("functools:partial", "runtime_support.select:select_operator"))
        self.nodes.append(
            NodeCode(
                name=node, factory=f"partial(select_operator, {spec})", stateful=bool(stmt.windows)
            )
        )
        self.links.append((src, (node, "in")))
        self.links.append(((node, "out"), dst))
        self.errors.append((node, "error"))


def compile_pipeline(
    stmts: tuple[Q.QueryItem, ...],
    source: Source,
    *,
    prefix: str,
    args: Any = None,
    from_ports: tuple[str, ...] = ("in",),
    into_ports: tuple[str, ...] = ("out", "err"),
    node_prefix: str = "",
    modules: dict[tuple[str, ...], Any] | None = None,
) -> PipelineCode:
    """Compile a pipeline body; generated identifiers start with ``prefix``, node names with
    ``node_prefix``."""
    em = Emitter(prefix)
    scope = Scope(source, tuple(s for s in stmts if isinstance(s, S.Use)))
    with_module_scopes(scope, modules if modules is not None else load_query_modules(stmts, source))
    builder = _Builder(em, scope, node_prefix, {} if args is None else args, from_ports, into_ports)
    builder.build(stmts)
    return PipelineCode(
        blocks=tuple(em.blocks),
        imports=tuple(sorted(em.imports)),
        sources=tuple((name, repr(text)) for text, name in em.sources.items()),
        nodes=tuple(builder.nodes),
        links=tuple(builder.links),
        inputs=tuple((p, builder.streams[p]) for p in from_ports),
        outputs=tuple((p, builder.streams[p]) for p in into_ports),
        errors=tuple(builder.errors),
    )


def config_ports(query: Q.Query, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """``#!config from|into = "a, b"`` as port names."""
    for directive in query.config:
        if directive.key.name == key and isinstance(directive.value, S.Literal):
            return tuple(p.strip() for p in str(directive.value.value).split(",") if p.strip())
    return default


def build_query_job(query: Q.Query, source: Source, job_name: str) -> str:
    """The job for a ``.trickle`` file: inputs are its from ports, outputs its into ports plus
    ``error_log`` (select errors)."""
    from_ports = config_ports(query, "from", ("in",))
    into_ports = config_ports(query, "into", ("out", "err"))
    code = compile_pipeline(
        query.stmts, source, prefix="q", from_ports=from_ports, into_ports=into_ports
    )
    links = list(code.links)
    for port, node in code.outputs:
        links.append(((node, "out"), (output_node(port), "in")))
    for err in code.errors:
        links.append((err, (output_node(ERROR_LOG), "in")))
    outputs = (*into_ports, ERROR_LOG)
    inputs = tuple(node for _, node in code.inputs)
    graph = graph_expr(
        inputs=inputs,
        output_ports=outputs,
        nodes=tuple(n for n in code.nodes if n.name not in inputs),
        links=tuple(links),
    )
    parts = JobParts(
        source_name=source.name,
        imports=(*code.imports, *GRAPH_IMPORTS),
        sources=code.sources,
        blocks=code.blocks,
        graph=graph,
    )
    return render_job(parts, job_name)


__all__ = ["PipelineCode", "build_query_job", "compile_pipeline", "emit_ports"]
