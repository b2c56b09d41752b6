"""A deployed troy file: the flows it deploys, with connectors, pipelines and connections.

Invariants (established by :mod:`compiler.passes.deploy_instantiate`): every connector's
``with`` values are evaluated (``params`` holds ``codec``, ``config``, processors… as plain
values); every pipeline is an instantiated :class:`~compiler.ir.graph.PipelineGraph` whose node
names start with ``<flow>/<pipeline>/``; every connection names a created connector or pipeline
and, for a pipeline, one of its ports (:class:`PipelineEnd` carries that port's node name).
Connections keep the order of the ``connect`` statements (Tremor's fan-out order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..source import NO_SPAN, Span
from .graph import PipelineGraph
from .scope import Global, Stateless, StateScope, describe

#: Sinks whose output has no order (tables) or keeps it per part file (``s3_streamer``).
UNORDERED_SINKS = ("null", "postgres", "clickhouse", "s3_streamer")


@dataclass(frozen=True, slots=True, kw_only=True)
class Connector:
    """``create connector alias``: builtin ``kind`` and evaluated ``with`` values."""

    alias: str
    kind: str
    params: dict[str, Any]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def ports(self) -> tuple[str, ...]:
        """Its ports: ``out``/``err`` when it produces events, ``in`` (…) when it consumes."""
        from ..registry.connectors import CONNECTORS  # only troy builds load connectors

        entry = CONNECTORS.get(self.kind)
        assert entry is not None, "instantiation checked the kind against the registry"
        if self.kind == "file":
            config = self.params.get("config", {})
            return ("out", "err") if config.get("mode") == "read" else ("in",)
        return entry.ports

    @property
    def scope(self) -> StateScope:
        """A source reads independently; so does a sink that drops its events (``null``),
        writes table rows (``postgres``, ``clickhouse``: a table has no order) or part files
        (``file``, ``s3_streamer``: each part in emission order); any other sink writes (or
        stops the run) in the whole emission order."""
        from ..registry.net_connectors import NET_SINK_FACTORIES

        if "in" not in self.ports or self.kind in (*UNORDERED_SINKS, *NET_SINK_FACTORIES):
            return Stateless()
        config = self.params.get("config", {})
        if self.kind == "file" and not (isinstance(config, dict) and config.get("single_file")):
            return Stateless()
        return Global(reason="writes in emission order")


@dataclass(frozen=True, slots=True, kw_only=True)
class DeployedPipeline:
    """``create pipeline alias``: its instantiated graph; ``reports``: its definition has
    ``#!config metrics_interval_s`` (its counts go to a ``metrics`` connector)."""

    alias: str
    graph: PipelineGraph
    reports: bool = False
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectorEnd:
    """``/connector/alias/port``."""

    connector: str
    port: str

    def dump(self) -> str:
        return f"/connector/{self.connector}/{self.port}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PipelineEnd:
    """``/pipeline/alias/port`` and the graph node of that port."""

    pipeline: str
    port: str
    node: str

    def dump(self) -> str:
        return f"/pipeline/{self.pipeline}/{self.port} ({self.node!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Connection:
    """``connect a to b``; at least one side is a pipeline."""

    source: ConnectorEnd | PipelineEnd
    target: ConnectorEnd | PipelineEnd
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class FlowArg:
    """One arg of a deployed flow: ``value`` is its build-time value (the ``deploy flow … with``
    value or the definition's default); ``sites`` are the ``(connector alias, key path)`` of
    the connector ``with`` values that are exactly this arg (the job substitutes a run-time value
    there); ``fixed`` says why it cannot be set at run time (``""`` when it can).

    Invariant: when ``fixed`` is empty the arg reaches the connectors only by placement (a
    ``with`` value or a record field / array element that is ``args.<name>`` itself, never an
    operand), so substituting at ``sites`` is exactly Tremor's evaluation with the new value.
    """

    name: str
    value: Any
    sites: tuple[tuple[str, tuple[str | int, ...]], ...] = ()
    fixed: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    """One ``deploy flow alias``; ``args``: its args, in definition order."""

    alias: str
    connectors: tuple[Connector, ...]
    pipelines: tuple[DeployedPipeline, ...]
    connections: tuple[Connection, ...]
    args: tuple[FlowArg, ...] = ()

    def connector(self, alias: str) -> Connector:
        """The created connector ``alias`` (the invariant guarantees it exists)."""
        return next(c for c in self.connectors if c.alias == alias)


@dataclass(frozen=True, slots=True, kw_only=True)
class Deployment:
    """Every deployed flow of a troy file, in ``deploy`` order."""

    flows: tuple[Flow, ...]

    def dump(self) -> str:
        """Stable text for debugging (``tremorc dbg ir``)."""
        lines = ["deployment"]
        for flow in self.flows:
            lines.append(f"  flow {flow.alias!r}")
            for a in flow.args:
                how = f"fixed: {a.fixed}" if a.fixed else f"run time at {list(a.sites)!r}"
                lines.append(f"    arg {a.name!r} = {a.value!r} ({how})")
            for c in flow.connectors:
                lines.append(f"    connector {c.alias!r} {c.kind} params={c.params!r}")
                facts = f"scope: {describe(c.scope)} | ports: {', '.join(c.ports)}"
                lines.append(f"      {facts}")
            for p in flow.pipelines:
                lines.append(f"    pipeline {p.alias!r}")
                lines += ["      " + line for line in p.graph.dump().splitlines()]
            for conn in flow.connections:
                lines.append(f"    connect {conn.source.dump()} -> {conn.target.dump()}")
        return "\n".join(lines)
