"""Tremor's pipeline executor for one ordered stream of events (one Spark partition).

A generated job describes its pipeline as a :class:`GraphSpec` (nodes plus links); each Spark task
builds a fresh :class:`Graph` from it, so operator state (script ``state``, windows, counters) lives
for the task and sees events in input order. Emission order is Tremor's: depth first per input
event, fan-out in link-declaration order; an operator failure ends its event (see ``Graph._run``).

Ticks: an operator may also have ``tick(now_ns) -> [(port, event)]`` (windowed selects,
``generic::batch``). :meth:`Graph.tick` calls it on every such node in topological order (ties in
node-declaration order) and delivers each node's tick outputs depth first, to completion, before
the next node ticks — so what an upstream tick flushes is seen by a downstream node before that
node's own tick. (Tremor runs every ``on_signal`` first and then drains the produced events; the
two orders differ only when a tick flushes into a node that also flushes on the same tick.)
Batch jobs send no periodic ticks; they send one final tick with ``now`` = u64::MAX after the last
event of a stream (``flush_at_end``), closing what Tremor's wall-clock ticks eventually would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import NO_STATE, TremorError

__all__ = [
    "END_OF_INPUT",
    "Event",
    "Failure",
    "Graph",
    "GraphSpec",
    "NodeSpec",
    "Operator",
    "Passthrough",
    "ScriptOperator",
    "run_events",
    "script_operator",
]


class Event:
    """An event travelling through the graph: payload, metadata and ingest time.

    A batch event (``generic::batch``) has ``is_batch`` set and a payload of
    ``[{"data": {"value": …, …}}, …]``; outputs unpack it into its values, as Tremor's sinks do.
    """

    __slots__ = ("value", "meta", "ingest_ns", "origin_uri", "is_batch")

    def __init__(
        self,
        value: Any,
        meta: Any,
        ingest_ns: int,
        origin_uri: str | None = None,
        is_batch: bool = False,
    ):
        self.value = value
        self.meta = meta
        self.ingest_ns = ingest_ns
        self.origin_uri = origin_uri
        self.is_batch = is_batch

    def values(self) -> list[Any]:
        """The payloads this event stands for: its own, or each batched event's."""
        if not self.is_batch:
            return [self.value]
        return [item["data"]["value"] for item in self.value]


class Failure(Event):
    """An operator's failure (Tremor's ``Err`` from ``on_event``), output on port ``error``; a
    script's own ``emit … => "error"`` is an ordinary event and does not end anything."""

    __slots__ = ()


Output = tuple[str, Event]

END_OF_INPUT = 2**64 - 1
"""``now`` of the final tick sent after the last event of a stream (u64::MAX)."""


class Operator(Protocol):
    """A node of the graph: consumes an event on an input port, returns (port, event) outputs."""

    def process(self, port: str, event: Event) -> list[Output]: ...

    # Optional: ``def tick(self, now: int) -> list[Output]`` for operators that act on ticks.


@dataclass(frozen=True)
class NodeSpec:
    """How to build one node: ``factory()`` returns a fresh operator instance."""

    name: str
    factory: Callable[[], Operator]
    stateful: bool = False
    keyer: Callable[[Event], Any] | None = None  # keyed nodes: ``event -> [(key, group)]``


@dataclass(frozen=True)
class GraphSpec:
    """A pipeline: input streams, nodes, links ``(from_node, from_port) -> [(to_node, to_port)]``
    and output streams. Input and output streams are node names too (passthrough nodes)."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    nodes: tuple[NodeSpec, ...]
    links: tuple[tuple[tuple[str, str], tuple[str, str]], ...]
    output_ports: dict[str, str] = field(default_factory=dict)
    meta_outputs: tuple[str, ...] = ()  # output names whose sinks read ``$`` (see MetaValue)
    counted: bool = False  # count events per node and port (a flow with a ``metrics`` source)


class MetaValue(tuple):
    """A value emitted on a ``meta_outputs`` port with its metadata: ``(value, meta, batch)``;
    ``batch`` is ``(index, size)`` for one of the events of a ``generic::batch`` event (its
    values are emitted one by one, consecutively), else None."""

    __slots__ = ()

    def __new__(cls, value: Any, meta: Any, batch: tuple[int, int] | None) -> MetaValue:
        return super().__new__(cls, (value, meta, batch))


class Passthrough:
    """Streams, ``in``/``out`` nodes and ``passthrough`` operators: forward on ``out``."""

    def process(self, port: str, event: Event) -> list[Output]:
        return [("out", event)]


Exit = tuple[str, str]
"""``(node, port)`` outside a stage's members: where an event leaves the stage."""


class Graph:
    """A live instance of a :class:`GraphSpec`; :meth:`push` runs one input event to completion.

    ``order`` is every node, upstream first (the tick order and a stage's node ranks).
    With ``members`` (one Spark stage of the job) only those nodes run: an event sent to any
    other node is returned as an exit ``((node, port), Event)`` in its place in emission order.
    ``counts`` (``spec.counted`` only, else None): events out per ``(node, port)`` of the nodes
    run here (a stream's ``out``: the events pushed in); :meth:`node_counts` derives the rest.
    """

    def __init__(self, spec: GraphSpec, members: Iterable[str] | None = None):
        self.spec = spec
        self.members = None if members is None else frozenset(members)
        self.ops: dict[str, Operator] = {
            node.name: node.factory()
            for node in spec.nodes
            if self.members is None or node.name in self.members
        }
        for name in (*spec.inputs, *spec.outputs):
            self.ops.setdefault(name, Passthrough())
        self.links: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for src, dst in spec.links:
            self.links.setdefault(src, []).append(dst)
        self.output_set = set(spec.outputs)
        self.output_names = {name: spec.output_ports.get(name, name) for name in spec.outputs}
        self.counts: Counter | None = Counter() if spec.counted else None
        self.hops = _without_passthroughs(self.links, self.ops, self.output_set)
        self.direct = {} if self.counts is not None else self._direct(spec.inputs)
        self.meta_outputs = frozenset(spec.meta_outputs)
        self.order = _topological(spec)
        self.tick_order = [
            name
            for name in self.order
            if name in self.ops and callable(getattr(self.ops[name], "tick", None))
        ]

    def tick(self, now: int) -> list[tuple[str, Any]]:
        """Send a tick at ``now`` (ns) to every ticking node; return ``(output_name, value)``
        pairs in emission order (see the module docstring for the order)."""
        collected: list[tuple[str, Any]] = []
        for node in self.tick_order:
            collected.extend(self.deliver(node, self.ops[node].tick(now)))  # type: ignore
        return collected

    def deliver(self, node: str, produced: list[Output]) -> list[tuple[Any, Any]]:
        """Run what ``node`` produced outside :meth:`push` (a tick's outputs) down its links."""
        collected: list[tuple[Any, Any]] = []
        if self.counts is not None:
            self.counts.update((node, port) for port, _ in produced)
        for out_port, event in produced:
            for dst_node, dst_port in self.links.get((node, out_port), ()):
                collected.extend(self._run(dst_node, dst_port, event))
        return collected

    def run_from(
        self, node: str, port: str, event: Event, first: list[Output] | None = None
    ) -> list[tuple[Any, Any]]:
        """Deliver ``event`` to ``node``/``port`` (a stage's input); with ``first``, those are
        the node's outputs for it (a keyed node already ran, or failed before the shuffle)."""
        return self._run(node, port, event, first)

    def push(self, stream: str, event: Event) -> list[tuple[str, Any]]:
        """Feed ``event`` into input stream ``stream``; return ``(output_name, value)`` pairs in
        Tremor's emission order."""
        direct = self.direct.get(stream)
        if direct is None:
            return self._run(stream, "in", event)
        node, port, op, exits = direct
        outputs = op.process(port, event)
        returns: list[tuple[Any, Event]] = []
        for out_port, produced in outputs:
            if isinstance(produced, Failure):  # the general run, from these outputs
                return self._run(node, port, event, outputs)
            for name in exits.get(out_port, ()):
                returns.append((name, produced))
        return _unpacked(returns, self.meta_outputs)

    def _direct(self, streams: Iterable[str]) -> dict[str, tuple[str, str, Any, dict]]:
        """Per input stream whose events all go to one node that runs here and whose every
        output goes straight to job outputs: ``(node, port, operator, {out port: [output
        name, …]})``. :meth:`push` runs such an event without the general stack: one node,
        its outputs in order, each to its outputs in link order, which is the order
        :meth:`_run` gives (a failure hands the node's outputs to :meth:`_run`)."""
        found = {}
        for stream in streams:
            hops = self.hops.get((stream, "out"), [])
            if type(self.ops.get(stream)) is not Passthrough or len(hops) != 1:
                continue
            if stream in self.output_names:
                continue
            node, port = hops[0]
            op = self.ops.get(node)
            if op is None or node in self.output_names or type(op) is Passthrough:
                continue
            exits: dict[str, list[str]] = {}
            for (src, out_port), dsts in self.hops.items():
                if src == node:
                    exits[out_port] = [self.output_names.get(dst, "") for dst, _ in dsts]
            if all(all(exits_port) for exits_port in exits.values()):
                found[stream] = (node, port, op, exits)
        return found

    def _run(
        self, node: str, port: str, event: Event, first: list[Output] | None = None
    ) -> list[tuple[Any, Any]]:
        """Tremor's executable graph: a stack of ``(node, port, event)`` (fan-out pushed in link
        order, so the last link runs first), outputs collected in that order and reversed at the
        end (giving depth-first, link-order emission). An operator failure (a :class:`Failure`
        output: Tremor's ``Err``) clears the stack: branches not yet run never see the event,
        the outputs already collected are kept as they stand (unreversed, as Tremor's query
        harness records them), then the error is delivered. Invariant: one error per event.
        ``first``: the outputs of the first node, given instead of running it."""
        returns: list[tuple[Any, Event]] = []
        hops, ops, output_names, counts = self.hops, self.ops, self.output_names, self.counts
        if first is None and type(ops.get(node)) is Passthrough and node not in output_names:
            if counts is not None:  # a stream or a stage's passthrough entry
                counts[(node, "out")] += 1
            stack = [(dst, dst_port, event) for dst, dst_port in hops.get((node, "out"), ())]
        else:
            stack = [(node, port, event)]
        while stack:
            node, port, event = stack.pop()
            name = output_names.get(node)
            if name is not None:
                returns.append((name, event))
                continue
            op = ops.get(node)
            if op is None:
                returns.append(((node, port), event))
                continue
            if first is not None:
                outputs, first = first, None
            else:
                outputs = op.process(port, event)
            for _, produced in outputs:
                if isinstance(produced, Failure):
                    return _unpacked(returns, self.meta_outputs) + self._failed(node, produced)
            for out_port, produced in outputs:
                if counts is not None:  # Tremor's NodeMetrics (inputs: see node_counts)
                    counts[(node, out_port)] += 1
                for dst_node, dst_port in hops.get((node, out_port), ()):
                    stack.append((dst_node, dst_port, produced))
        returns.reverse()
        return _unpacked(returns, self.meta_outputs)

    def node_counts(self, members: Iterable[str]) -> Counter:
        """``(node, "input"|"output", port)`` counts of what ``members`` emitted: their
        outputs, and per link the input of its target (Tremor counts an input when it pushes
        the event, whatever then runs); a passthrough the run skipped forwards its input."""
        keep = frozenset(members)
        todo = [(key, n) for key, n in self.counts.items() if key[0] in keep]  # type: ignore
        found: Counter = Counter()
        while todo:
            (node, port), n = todo.pop()
            found[(node, "output", port)] += n
            for dst, dst_port in self.links.get((node, port), ()):
                found[(dst, "input", dst_port)] += n
                if type(self.ops.get(dst)) is Passthrough and dst not in self.output_names:
                    todo.append(((dst, "out"), n))
        return found

    def _failed(self, node: str, error: Event) -> list[tuple[Any, Any]]:
        """The failed operator's error, run down its ``error`` links (a job's ``error_log``)."""
        out: list[tuple[str, Any]] = []
        if self.counts is not None:
            self.counts[(node, "error")] += 1
        error = Event(error.value, error.meta, error.ingest_ns, error.origin_uri)
        for dst_node, dst_port in self.links.get((node, "error"), ()):
            out.extend(self._run(dst_node, dst_port, error))
        return out


def _unpacked(returns: Iterable[tuple[Any, Event]], meta: frozenset) -> list[tuple[Any, Any]]:
    """Collected ``(output name, event)`` as ``(output name, value)`` (a batch event gives
    each of its values; on a ``meta`` output each a :class:`MetaValue`); an exit keeps its
    whole :class:`Event`."""
    out: list[tuple[Any, Any]] = []
    for name, event in returns:
        if type(name) is tuple:
            out.append((name, event))
        elif name in meta:
            out.extend((name, item) for item in _with_meta(event))
        elif event.is_batch:
            out.extend((name, value) for value in event.values())
        else:
            out.append((name, event.value))
    return out


def _with_meta(event: Event) -> list[MetaValue]:
    if not event.is_batch:
        return [MetaValue(event.value, event.meta, None)]
    size = len(event.value)
    return [
        MetaValue(item["data"]["value"], item["data"].get("meta"), (index, size))
        for index, item in enumerate(event.value)
    ]


def _without_passthroughs(
    links: dict[tuple[str, str], list[tuple[str, str]]],
    ops: dict[str, Any],
    outputs: set[str],
) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """``links`` with every hop into a live :class:`Passthrough` node replaced by that node's
    own out-links, in place and in link order (so the run order, the emission order and what a
    failure cuts off are unchanged: a passthrough forwards every event on ``out`` and never
    fails). Cycles through passthroughs keep their hop."""

    def resolve(dst: tuple[str, str], seen: frozenset[str]) -> list[tuple[str, str]]:
        node = dst[0]
        if node in outputs or type(ops.get(node)) is not Passthrough or node in seen:
            return [dst]
        onward = links.get((node, "out"), [])
        return [hop for nxt in onward for hop in resolve(nxt, seen | {node})]

    return {
        src: [hop for dst in dsts for hop in resolve(dst, frozenset())]
        for src, dsts in links.items()
    }


def _topological(spec: GraphSpec) -> list[str]:
    """Node names, upstream before downstream (Kahn; ties and cycles in declaration order)."""
    names = [*spec.inputs, *(n.name for n in spec.nodes if n.name not in spec.inputs)]
    names += [o for o in spec.outputs if o not in names]
    indegree = dict.fromkeys(names, 0)
    edges: dict[str, list[str]] = {}
    for (src, _), (dst, _) in spec.links:
        if src in indegree and dst in indegree:
            edges.setdefault(src, []).append(dst)
            indegree[dst] += 1
    order: list[str] = []
    done: set[str] = set()
    while len(order) < len(names):
        ready = next((n for n in names if n not in done and indegree[n] == 0), None)
        if ready is None:  # a cycle: take the first remaining node
            ready = next(n for n in names if n not in done)
        order.append(ready)
        done.add(ready)
        for dst in edges.get(ready, ()):
            indegree[dst] -= 1
    return order


ScriptEntry = Callable[[Any, Any, Any, EventContext], tuple[str | None, Any, Any, Any]]
ErrorRenderer = Callable[[TremorError], str]


class ScriptOperator:
    """A tremor-script operator (``create script`` or a whole ``.tremor`` file).

    Runtime errors become ``{"error": <rendered>, "event": <payload>}`` on port ``err``.
    """

    def __init__(
        self,
        entry: ScriptEntry,
        render_error: ErrorRenderer,
        *,
        state: Any = None,
        args: Any = None,
        named: dict[str, ScriptEntry] | None = None,
    ):
        self.entry = entry
        self.render_error = render_error
        self.state = state
        self.args = args
        self.named = named or {}
        self.ctx = EventContext(args=args)

    def process(self, port: str, event: Event) -> list[Output]:
        entry = self.entry if port == "in" else self.named.get(port)
        if entry is None:
            error = {"error": f"unknown port: `{port}`", "event": event.value}
            return [("err", Event(error, event.meta, event.ingest_ns, event.origin_uri))]
        out_port, value, meta = self.outcome(
            entry, event.value, event.meta, event.ingest_ns, event.origin_uri
        )
        if out_port is None:
            return []
        return [(out_port, Event(value, meta, event.ingest_ns, event.origin_uri))]

    def outcome(
        self, entry: ScriptEntry, value: Any, meta: Any, ingest_ns: int, origin: str | None
    ) -> tuple[str | None, Any, Any]:
        """Run ``entry`` on one event: ``(port, value, meta)`` it emits (port None: dropped),
        or ``("err", {"error": …, "event": value}, meta)`` when it fails."""
        ctx = self.ctx  # one per operator: a script never keeps it past its event
        ctx.ingest_ns, ctx.origin_uri = ingest_ns, origin
        try:
            out_port, out, out_meta, self.state = entry(value, meta, self.state, ctx)
        except Exception as err:  # noqa: BLE001 - a bug must cost one event, never the job
            return self.failed(err, value, meta)
        return out_port, out, out_meta

    def failed(self, err: Exception, value: Any, meta: Any) -> tuple[str, Any, Any]:
        """What :meth:`outcome` emits when running ``value`` raised ``err``: the ``err`` record
        (a :class:`TremorError` rendered against the source, keeping the state it carries)."""
        if isinstance(err, TremorError):
            if err.state is not NO_STATE:
                self.state = err.state
            return "err", {"error": self.render_error(err) + "\n\n", "event": value}, meta
        error = {"error": f"Internal error: {type(err).__name__}: {err}", "event": value}
        return "err", error, meta


def script_operator(
    entry: ScriptEntry, source: str, sites: tuple[tuple[int, int, int, int], ...], **kwargs: Any
) -> ScriptOperator:
    """Build a :class:`ScriptOperator` whose errors render against ``source`` (picklable via
    ``functools.partial``, unlike a lambda closing over the job module)."""
    from runtime_support.tremor.script_rt import render_error

    return ScriptOperator(entry, lambda err: render_error(err, source, sites), **kwargs)


def run_events(
    spec: GraphSpec,
    events: Iterable[tuple[str, int, Any, int, str | None]],
    graph: Graph | None = None,
) -> Iterator[tuple[int, int, str, Any]]:
    """Run ``(stream, seq, value, ingest_ns, origin)`` events through ``graph`` (default: a
    fresh one), yielding ``(seq, sub, output_name, value)`` where ``sub`` numbers the outputs
    of one input event."""
    graph = graph if graph is not None else Graph(spec)
    for stream, seq, value, ingest_ns, origin in events:
        event = Event(value, {}, ingest_ns, origin)
        for sub, (name, produced) in enumerate(graph.push(stream, event)):
            yield seq, sub, name, produced
