"""Fused runs: an input stream whose events only meet scripts and routing nodes, run as nested
calls on plain values instead of :class:`~runtime_support.tremor.graph.Graph`'s general stack.

A stream is fused when every node its events can reach (through passthroughs) runs in this
stage and is a :class:`~runtime_support.tremor.graph.ScriptOperator` entered on ``in`` or a
:class:`~runtime_support.tremor.builtin_operators.BucketRoute` (the first node, when the stream has
only one, may be of any kind), the links between them form no cycle, and each path ends at a job
output whose sink does not read ``$``; the graph counts no metrics.

Invariant: a fused run returns what :meth:`Graph.push` returns for the event. Scripts and
routing nodes never fail (a script's error is an ordinary event on ``err``) and make no batch
events; when the first node's outputs hold a failure or a batch, nothing has run after it and
the general run takes those outputs (:class:`General`). The graph's stack order is depth first
with fan-out in link order, which is the order of the nested calls here; each node is the same
operator object the graph holds (a script's ``state`` is shared).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.builtin_operators import BucketRoute
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.graph import Event, Failure, Graph, Passthrough, ScriptOperator
from runtime_support.tremor.select import SelectOperator

__all__ = [
    "ChainStep",
    "ForwardStep",
    "FusedRun",
    "General",
    "SelectStep",
    "fused_chains",
    "fused_runs",
]

FusedRun = Callable[[Any, Any, int, Any], list[tuple[str, Any]]]
"""``(value, meta, ingest_ns, origin) -> [(output name, value), …]`` in emission order."""
_Hop = Callable[[Any, Any, int, Any, list], None]


def fused_runs(graph: Graph) -> dict[str, FusedRun]:
    """The fused run of each input stream of ``graph`` that can be fused (see the module)."""
    if graph.counts is not None:
        return {}
    runs = {}
    for stream in graph.spec.inputs:
        if stream in graph.output_names or stream not in graph.ops:
            continue
        hops = _hops(graph, (stream, "out"), frozenset())
        run = _entry(hops) if hops is not None else _first_node(graph, (stream, "out"))
        if run is not None:
            runs[stream] = run
    return runs


class _ScriptLike:
    """A chain step with a script's interface (``entry``, ``outcome``, ``failed``, ``ctx``,
    ``state``) for a node that is no script; it keeps no state."""

    def __init__(self) -> None:
        self.ctx = EventContext()  # carries the event's ingest_ns and origin to ``entry``
        self.state = None

    def entry(self, value: Any, meta: Any, state: Any, ctx: EventContext) -> tuple:
        raise NotImplementedError

    def outcome(self, entry: Callable, value: Any, meta: Any, ingest_ns: int, origin: Any) -> tuple:
        self.ctx.ingest_ns, self.ctx.origin_uri = ingest_ns, origin
        port, value, meta, _ = entry(value, meta, None, self.ctx)
        return port, value, meta

    @staticmethod
    def failed(err: Exception, value: Any, meta: Any) -> tuple[str, Any, Any]:
        raise err  # a node's bug is not an event's error (the general run raises it too)


class SelectStep(_ScriptLike):
    """A select without windows whose ``group by`` makes at most one group: ``entry`` gives
    ``("out", value, …)`` for its one emitted value, port None when it emits none, ``("error",
    record, …)`` for its failure (the general run sends the failure's record down the select's
    ``error`` links, as the chain does)."""

    def __init__(self, op: SelectOperator) -> None:
        super().__init__()
        self.emitted = op.emitted
        spec = op.spec
        group = spec.group
        if spec.where is None and spec.having is None and spec.target_is_event and group:
            if group.kind == "expr":
                self._group_entry = group.code.entry  # type: ignore[union-attr]
                self._group_ctx = op._plain_ctx  # what emitted() runs its clauses with
                self.entry = self._checked_event  # type: ignore[method-assign]

    def entry(self, value: Any, meta: Any, state: Any, ctx: EventContext) -> tuple:
        values = self.emitted(value, meta, ctx.ingest_ns, ctx.origin_uri)
        if type(values) is Failure:
            return "error", values.value, meta, state
        return ("out", values[0], meta, state) if values else (None, None, meta, state)

    def _checked_event(self, value: Any, meta: Any, state: Any, ctx: EventContext) -> tuple:
        """:meth:`entry` of ``select event … group by x`` with no other clause: the event once
        its group expression ran without error; on an error :meth:`entry` runs again and builds
        the select's failure (a group expression has no effect to repeat)."""
        group_ctx = self._group_ctx
        group_ctx.ingest_ns, group_ctx.origin_uri, group_ctx.group = (
            ctx.ingest_ns,
            ctx.origin_uri,
            None,
        )
        try:
            self._group_entry(value, meta, None, group_ctx)
        except Exception:  # noqa: BLE001 - the general entry reports it as the select does
            return SelectStep.entry(self, value, meta, state, ctx)
        return "out", value, meta, state


class ForwardStep(_ScriptLike):
    """An input stream linked, through passthroughs only, straight to a job output: each event
    leaves on ``out`` as it came."""

    def entry(self, value: Any, meta: Any, state: Any, ctx: EventContext) -> tuple:
        return "out", value, meta, state


@dataclass(frozen=True)
class ChainStep:
    """One node of a fused chain (a script, a :class:`BucketRoute`, a :class:`SelectStep` or a
    :class:`ForwardStep`): ``exits`` maps its output ports to job outputs, ``onward`` is the
    port whose events go on to the next step (None on the last step). A port in neither has no
    link: its events are dropped."""

    op: ScriptOperator | BucketRoute | _ScriptLike
    exits: dict[str, str]
    onward: str | None


def fused_chains(graph: Graph) -> dict[str, tuple[ChainStep, ...]]:
    """The fused runs that are chains: an input stream into one script (on ``in``) or select
    (a :class:`SelectStep`), each of whose output ports links to at most one place, a job
    output (its sink not reading ``$``) or, for one port, the next step of the chain (a script
    on ``in``, a :class:`BucketRoute` or a :class:`SelectStep`), and so on; or an input stream
    straight to a job output (a :class:`ForwardStep`). An event of such a stream makes at most
    one output, at path ``[0]``; running the steps in turn is the stream's fused run."""
    if graph.counts is not None:
        return {}
    chains = {}
    for stream in graph.spec.inputs:
        if stream in graph.output_names or stream not in graph.ops:
            continue
        steps = _chain(graph, (stream, "out"), frozenset())
        if steps is not None and type(steps[0].op) is not BucketRoute:
            chains[stream] = steps
    return chains


def _chain(
    graph: Graph, source: tuple[str, str], seen: frozenset[str]
) -> tuple[ChainStep, ...] | None:
    targets = graph.hops.get(source, ())
    if len(targets) != 1:
        return None
    node, port = targets[0]
    name = graph.output_names.get(node)
    if name is not None:  # only an input stream links to an output here (a step has exits)
        return (
            None if name in graph.meta_outputs else (ChainStep(ForwardStep(), {"out": name}, None),)
        )
    op = graph.ops.get(node)
    if type(op) is SelectOperator and _one_group(op):
        op = SelectStep(op)
    elif not (type(op) is ScriptOperator and port == "in" or type(op) is BucketRoute):
        return None
    if node in seen:
        return None
    exits: dict[str, str] = {}
    onward, rest = None, ()
    for (src, out_port), destinations in graph.hops.items():
        if src != node or not destinations:
            continue
        if len(destinations) > 1:
            return None
        name = graph.output_names.get(destinations[0][0])
        if name is not None and name not in graph.meta_outputs:
            exits[out_port] = name
            continue
        if name is not None or onward is not None:
            return None
        found = _chain(graph, (node, out_port), seen | {node})
        if found is None:
            return None
        onward, rest = out_port, found
    return (ChainStep(op, exits, onward), *rest)


def _one_group(op: SelectOperator) -> bool:
    """A select without windows that emits at most one value per event."""
    group = op.spec.group
    return not op.spec.windows and (group is None or group.kind == "expr")


class General(list):
    """A fused run's outputs that came from the general run (:meth:`Graph.run_from`): they may
    hold exits, metadata values and a failure's error, and are routed as :meth:`Graph.push`'s."""


def _first_node(graph: Graph, source: tuple[str, str]) -> FusedRun | None:
    """A stream into one node of any kind whose outputs go on to fused hops."""
    targets = graph.hops.get(source, ())
    if len(targets) != 1:
        return None
    node, port = targets[0]
    op = graph.ops.get(node)
    if op is None or node in graph.output_names or type(op) is Passthrough:
        return None
    onward = _onward(graph, node, frozenset())
    if onward is None:
        return None
    run_from = graph.run_from
    if type(op) is SelectOperator and not op.spec.windows:
        return _stateless_select(op, port, onward.get("out", []), run_from, node)

    def run(value: Any, meta: Any, ingest_ns: int, origin: Any) -> list[tuple[str, Any]]:
        event = Event(value, meta, ingest_ns, origin)
        outputs = op.process(port, event)
        for _, produced in outputs:
            if type(produced) is not Event or produced.is_batch:
                return General(run_from(node, port, event, outputs))
        out: list[tuple[str, Any]] = []
        for out_port, produced in outputs:
            for nxt in onward.get(out_port, ()):
                nxt(produced.value, produced.meta, produced.ingest_ns, produced.origin_uri, out)
        return out

    return run


def _stateless_select(
    op: SelectOperator, port: str, onward: list[_Hop], run_from: Callable, node: str
) -> FusedRun:
    """A select without windows as the first node: its emitted values on to ``onward`` (its
    ``out`` links); a failure is the general run's, from the select's outputs."""
    emitted = op.emitted

    def run(value: Any, meta: Any, ingest_ns: int, origin: Any) -> list[tuple[str, Any]]:
        values = emitted(value, meta, ingest_ns, origin)
        if type(values) is Failure:
            event = Event(value, meta, ingest_ns, origin)
            return General(run_from(node, port, event, [("error", values)]))
        out: list[tuple[str, Any]] = []
        for result in values:
            for nxt in onward:
                nxt(result, meta, ingest_ns, origin, out)
        return out

    return run


def _entry(hops: list[_Hop]) -> FusedRun:
    def run(value: Any, meta: Any, ingest_ns: int, origin: Any) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for hop in hops:
            hop(value, meta, ingest_ns, origin, out)
        return out

    return run


def _hops(graph: Graph, source: tuple[str, str], seen: frozenset[str]) -> list[_Hop] | None:
    """The calls for every destination of ``source`` in link order, or None if one of them
    cannot be fused."""
    found = []
    for node, port in graph.hops.get(source, ()):
        hop = _hop(graph, node, port, seen)
        if hop is None:
            return None
        found.append(hop)
    return found


def _hop(graph: Graph, node: str, port: str, seen: frozenset[str]) -> _Hop | None:
    name = graph.output_names.get(node)
    if name is not None:
        return None if name in graph.meta_outputs else _output(name)
    op = graph.ops.get(node)
    if node in seen or type(op) not in (ScriptOperator, BucketRoute):
        return None
    onward = _onward(graph, node, seen)
    if onward is None:
        return None
    if type(op) is ScriptOperator and port == "in":
        return _script(op, onward)  # type: ignore[arg-type]
    if type(op) is BucketRoute:
        return _route(onward)  # type: ignore[arg-type]
    return None


def _onward(graph: Graph, node: str, seen: frozenset[str]) -> dict[str, list[_Hop]] | None:
    """Per output port of ``node``, the fused hops of its destinations (None: one cannot be)."""
    onward = {
        out_port: _hops(graph, (src, out_port), seen | {node})
        for (src, out_port) in graph.hops
        if src == node
    }
    return None if any(hops is None for hops in onward.values()) else onward  # type: ignore


def _output(name: str) -> _Hop:
    def hop(value: Any, meta: Any, ingest_ns: int, origin: Any, out: list) -> None:
        out.append((name, value))

    return hop


def _script(op: ScriptOperator, onward: dict[str, list[_Hop]]) -> _Hop:
    entry, outcome = op.entry, op.outcome

    def hop(value: Any, meta: Any, ingest_ns: int, origin: Any, out: list) -> None:
        port, value, meta = outcome(entry, value, meta, ingest_ns, origin)
        for nxt in onward.get(port, ()):  # type: ignore[arg-type]
            nxt(value, meta, ingest_ns, origin, out)

    return hop


def _route(onward: dict[str, list[_Hop]]) -> _Hop:
    """:class:`BucketRoute`: a string ``$class`` → ``out``, else ``err``."""
    port_of = BucketRoute.port_of

    def hop(value: Any, meta: Any, ingest_ns: int, origin: Any, out: list) -> None:
        for nxt in onward.get(port_of(meta), ()):
            nxt(value, meta, ingest_ns, origin, out)

    return hop
