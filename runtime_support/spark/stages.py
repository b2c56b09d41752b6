"""One Spark stage of a job's plan: the ``mapInArrow`` function running a stage's nodes of the
pipeline graph over Arrow batches, and the rows stages pass each other.

A job's plan (rendered in the job, from the compiler's planner) cuts the graph at state: a
``source`` stage reads the input splits, a ``hash`` stage runs one keyed node partitioned by its
key, a ``single`` stage one global node in one partition, a ``forward`` stage stateless nodes
fed by several stages. Every stage emits :data:`ROW_SCHEMA` rows:

- ``stage`` ≥ 0: an event for stage ``stage``'s node ``target`` (``node\\0port``), pickled in
  ``event``; into a keyed stage, one row per group, ``key`` set (computed here, before the
  shuffle, by the node's ``keyer``). An input event that goes straight to a keyed node travels
  as its input line (in ``value``, decoded again there) plus its metadata and group (in
  ``event``): see :func:`_raw_entries`;
- ``stage`` = -1: a job output on port ``target``, JSON text in ``value``; a stage whose job
  outputs ride along into its single keyed downstream stage sends them there instead
  (``target`` = ``\\0port``), spread by ``key`` = seq, and that stage passes them on.

A stage whose spec says ``repeats`` emits :data:`REPEAT_ROW_SCHEMA` rows: ``repeat`` = n > 1 on a
job output stands for n outputs with the same port and text emitted in a row by one event, at
paths ``path`` … ``path`` with its last index + n - 1 (a windowless ``group by each`` emits its
event once per group); ``port_frames`` expands them in the JVM, so the text crosses from Python
once.

Order: ``(seq, path)`` is Tremor's emission order. ``path`` extends the path of the row a stage
ran with the index of each output in Tremor's depth-first order (and, into a keyed stage, the
index of the group), so sorting any stage's input or any port's output by ``(seq, path)``
restores the order one Tremor thread gives. The end-of-input tick's outputs have ``seq`` =
:data:`END_SEQ` and ``path`` = ``[rank of the ticking node, *creation position of the group, i]``;
a streaming job's periodic tick's have ``seq`` = :data:`TICK_SEQ` (after the micro-batch's events).

Streaming control: an input event whose ``value`` is null is the end-of-input signal of a
streaming job (:mod:`runtime_support.spark.stream_job`). Every stage passes it on to the stages it
feeds as a row with ``target`` = :data:`FLUSH_TARGET` at ``(END_SEQ, [FLUSH_RANK])``, after every
tick output; a stateful stage flushes its state first (:mod:`runtime_support.spark.state_store`).
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

import orjson

from runtime_support.spark.entry_keys import HOME, EntryKeyMismatch, pid_of
from runtime_support.spark.forward_rows import forward_rows
from runtime_support.spark.fused import ChainStep, ForwardStep, fused_chains, fused_runs
from runtime_support.spark.input_lines import SOURCE_ERROR, BadLine, decode_line, source_columns
from runtime_support.spark.ports import METRICS_PORT
from runtime_support.spark.row_arrays import MOSTLY_SAME, column_array, path_array, text_array
from runtime_support.tremor.builtin_operators import BucketRoute
from runtime_support.tremor.event_meta import decode_meta, encode_meta
from runtime_support.tremor.graph import (
    END_OF_INPUT,
    Event,
    Failure,
    Graph,
    GraphSpec,
    MetaValue,
    Passthrough,
)
from runtime_support.tremor.jsonio import decode_json, encode_json, encode_json_utf8, row_decoders

__all__ = [
    "END_SEQ",
    "FLUSH_RANK",
    "FLUSH_TARGET",
    "METRICS_PORT",
    "REPEAT_ROW_SCHEMA",
    "ROW_SCHEMA",
    "StageSpec",
    "TICK_SEQ",
    "stage_mapper",
]

ROW_SCHEMA = (
    "seq long, path array<long>, stage int, target string, key string, event binary, value string"
)
REPEAT_ROW_SCHEMA = ROW_SCHEMA + ", repeat int"
"""The rows of a stage whose spec ``repeats`` (see the module docstring)."""
END_SEQ = 2**63 - 1
"""``seq`` of what the end-of-input tick emits: after every input event."""
TICK_SEQ = END_SEQ - 1
"""``seq`` of what a streaming job's periodic tick emits: after the micro-batch's events."""
FLUSH_TARGET = "\0\0flush"
FLUSH_RANK = 2**62
"""The streaming end-of-input signal's ``target`` and ``path``: after every tick output."""
BATCH_ROWS = 4096


@dataclass(frozen=True)
class StageSpec:
    """One stage: its graph nodes (with the input streams when it reads the job's input), how
    its input is partitioned (``source``, ``forward``, ``hash`` or ``single``), when it is not
    None the stage its job outputs ride along into (``carry``) and, for a keyed stage that a
    batch run feeds straight from an input stream (:mod:`runtime_support.spark.entry_keys`), that
    stream and the top-level field its node groups by (``entry``). ``repeats``: a source stage
    that feeds no other stage, whose rows are :data:`REPEAT_ROW_SCHEMA`. ``name``: the
    planner's name of the stage (its DataFrame's variable in the job), for people only."""

    members: tuple[str, ...]
    partitioning: str
    carry: int | None = None
    entry: tuple[str, str] | None = None
    repeats: bool = False
    name: str = ""


def stage_mapper(
    spec: GraphSpec,
    stages: tuple[StageSpec, ...],
    index: int,
    flush: bool,
    entry_parts: int | None = None,
):
    """The ``mapInArrow`` function of stage ``index``: a fresh :class:`Graph` of its members per
    partition, rows in ``(seq, path)`` order; with ``flush`` the end-of-input tick follows the
    partition's last row. ``entry_parts``: the stage reads input rows keyed in the JVM over that
    many partitions (:mod:`runtime_support.spark.entry_keys`)."""

    def mapper(batches: Iterator[Any]) -> Iterator[Any]:
        _relax_gc()
        runner = _Runner(spec, stages, index)
        reads = entry_parts is not None or any(
            member in spec.inputs for member in stages[index].members
        )
        for batch in batches:
            if entry_parts is not None:
                runner.feed_entry(entry_parts, source_columns(batch), batch.column("value"))
            elif reads:
                forwarded = runner.forwarded(batch)
                if forwarded is not None:
                    if runner.rows:
                        yield runner.take()
                    yield forwarded
                    continue
                runner.feed_source(source_columns(batch), batch.column("value"))
            else:
                runner.feed(batch.to_pydict())
            if len(runner.rows) >= BATCH_ROWS:
                yield runner.take()
        if flush and runner.seen:
            runner.final_tick()
        if runner.graph.counts:
            runner.counted()
        if runner.rows:
            yield runner.take()

    return mapper


GC_THRESHOLDS = (50_000, 20, 100)
"""The Python worker's collector thresholds while stages run (CPython's default 700, 10, 10)."""


def _relax_gc() -> None:
    """Collect cyclic garbage less often in this Python worker: a stage allocates a few containers
    per event (the decoded event, its outputs, the rows), which with the default thresholds would
    start a collection every few hundred events. What the worker imported before is frozen (never
    scanned again); cycles made later are still collected, every 50,000 allocations instead of 700.
    Once per worker."""
    if gc.get_threshold()[0] < GC_THRESHOLDS[0]:
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)


class _Runner:
    """A stage's live graph and the rows it has produced (``rows``: tuples in
    :data:`_COLUMNS` order, transposed into columns by :meth:`take`)."""

    def __init__(self, spec: GraphSpec, stages: tuple[StageSpec, ...], index: int) -> None:
        self.stage = stages[index]
        self.graph = Graph(spec, self.stage.members)
        self.home = {m: i for i, s in enumerate(stages) for m in s.members}
        self.keyers = {n.name: n.keyer for n in spec.nodes if n.keyer is not None}
        self.digests = _digests(spec)
        self.rank = {name: i for i, name in enumerate(self.graph.order)}
        members = set(self.stage.members)
        exits = {} if spec.counted else {n: _exits(spec, n, members) for n in self.keyers}
        meta = set(spec.meta_outputs)
        self.exits = {  # keyed nodes of this stage whose outputs all go to job outputs
            node: found
            for node, found in exits.items()
            if found is not None and not meta.intersection(chain.from_iterable(found.values()))
        }
        self.downstream = sorted(
            {
                self.home[dst]
                for (src, _), (dst, _) in spec.links
                if src in members and dst in self.home and dst not in members
            }
            - {index}
        )
        self.fused = fused_runs(self.graph)
        self.chains = fused_chains(self.graph)
        self.raw = {  # per raw entry: (stage, target, keyer) of its keyed node
            stream: (self.home[node], f"{node}\0{port}", self.keyers[node])
            for stream, (node, port) in _raw_entries(self.graph, self.keyers, self.digests).items()
        }
        plain = self.stage.carry is None and not self.stage.repeats  # rows as _feed_chain's
        self.forwards = {  # forwarded streams (runtime_support.spark.forward_rows) -> job output
            stream: steps[0].exits["out"]
            for stream, steps in self.chains.items()
            if plain and len(steps) == 1 and type(steps[0].op) is ForwardStep
        }
        self.line: tuple[Any, Any] = (None, None)  # the input line being run, its Event
        self.seen = False
        self.rows: list[tuple[Any, ...]] = []
        self.repeats: dict[int, int] | None = {} if self.stage.repeats else None  # row -> n > 1

    def columns(self) -> dict[str, list[Any]]:
        """The rows produced since the last :meth:`take` as column lists; they are taken (with
        ``repeat`` when the stage repeats)."""
        rows, self.rows = self.rows, []
        if not rows:
            columns = {name: [] for name in _COLUMNS}
        else:
            columns = dict(zip(_COLUMNS, map(list, zip(*rows, strict=True)), strict=True))
        if self.repeats is not None:
            counts = [1] * len(rows)
            for row, count in self.repeats.items():
                counts[row] = count
            self.repeats = {}
            columns["repeat"] = counts
        return columns

    def take(self) -> Any:
        import pyarrow as pa

        columns = self.columns()
        schema = arrow_row_schema(self.repeats is not None)
        arrays = [
            (
                path_array(columns[name])
                if name == "path"
                else (
                    text_array(columns[name])
                    if name == "value"
                    else column_array(columns[name], schema.field(name).type, name in MOSTLY_SAME)
                )
            )
            for name in schema.names
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    # Input ------------------------------------------------------------------------------------

    def forwarded(self, batch: Any) -> Any:
        """The rows of an input ``batch`` of a forwarded stream made at once
        (:func:`~runtime_support.spark.forward_rows.forward_rows`), or None: then
        :meth:`feed_source` runs it."""
        if not self.forwards:
            return None
        rows = forward_rows(batch, self.forwards, arrow_row_schema())
        if rows is not None:
            self.seen = True
        return rows

    def feed_source(self, cols: dict[str, list[Any]], column: Any = None) -> None:
        """Input events ``stream, seq, value, ingest_ns, origin[, meta]``: decoded, pushed in
        (a line that is no event is one ``err`` record, see
        :mod:`runtime_support.spark.input_lines`; ``meta``: the ``$`` record, see
        :mod:`runtime_support.tremor.event_meta`). ``column``: the batch's Arrow ``value`` column,
        whose JSON screens a fused stream runs once for the
        batch (:func:`~.jsonio.row_decoders`)."""
        origins = cols.get("origin") or [None] * len(cols["seq"])
        streams, metas = cols["stream"], cols.get("meta") or [None] * len(cols["seq"])
        one = streams[0] if streams and streams.count(streams[0]) == len(streams) else None
        plain = metas.count(None) == len(metas) and (
            origins.count(None) == len(origins) or SOURCE_ERROR not in origins
        )
        if one in self.fused and self.stage.carry is None and plain:
            texts = cols["value"]
            if texts.count(None) != len(texts):
                self.seen = True
            chain = one in self.chains and self.repeats is None
            feed = self._feed_chain if chain else self._feed_fused
            decoders = [decode_json] * len(texts) if column is None else row_decoders(column)
            feed(one, cols["seq"], texts, cols["ingest_ns"], origins, decoders)
            return
        rows = zip(
            streams,
            cols["seq"],
            cols["value"],
            cols["ingest_ns"],
            origins,
            metas,
            strict=True,
        )
        push, fused, counts = self.graph.push, self.fused, self.graph.counts
        for stream, seq, text, ns, origin, meta in rows:
            value = self._value_of(stream, seq, text, origin)
            if value is _NOTHING:
                continue
            meta = {} if meta is None else decode_meta(meta)
            ns = ns if ns is not None else seq
            run = fused.get(stream)
            if run is not None:
                outputs = run(value, meta, ns, origin)
                if type(outputs) is list:
                    self._emit(seq, outputs)
                else:  # the general run's (a failure or a batch at the first node)
                    self._route(seq, [], outputs)
            elif stream in self.raw:
                event = Event(value, meta, ns, origin)
                if counts is None:  # the graph's run would return it as this exit
                    self._keyed_line(seq, _PATHS[0], *self.raw[stream], event, text)
                    continue
                self.line = (text, event)
                self._route(seq, [], push(stream, event))
                self.line = (None, None)
            else:
                self._route(seq, [], push(stream, Event(value, meta, ns, origin)))

    def feed_entry(self, parts: int, cols: dict[str, list[Any]], column: Any = None) -> None:
        """Input rows of the stage's entry stream keyed in the JVM (``readable``: Spark's reader
        read the line, ``pid``: its partition; an unreadable line comes once per pid), each run
        as :meth:`feed_source` then :meth:`feed` run it in the two-stage plan (see
        :mod:`runtime_support.spark.entry_keys`). ``column``: the batch's Arrow ``value`` column,
        whose JSON screens run once for the batch (:func:`~.jsonio.row_decoders`)."""
        stream, node, port, keyer = self._entry()
        op, exits = self.graph.ops[node], self.exits.get(node)
        metas = cols.get("meta") or [None] * len(cols["seq"])
        plain = SOURCE_ERROR not in cols["origin"]  # else a row may be a connector's record
        texts = cols["value"]
        decoders = [decode_json] * len(texts) if column is None else row_decoders(column)
        pids: dict[str, int] = {}  # pid_of of the string groups seen in this batch
        rows = zip(
            cols["seq"], texts, cols["ingest_ns"], cols["origin"], metas,
            cols["readable"], cols["pid"], decoders, strict=True,
        )  # fmt: skip
        for seq, text, ns, origin, meta, readable, pid, decode in rows:
            if not readable and self._entry_pid(keyer, text, ns, origin, meta, seq, parts) != pid:
                continue
            value = _NOTHING
            if plain:
                try:
                    value = decode(text)
                    self.seen = True
                except Exception:  # noqa: BLE001 - _value_of names the reason
                    pass
            if value is _NOTHING:
                value = self._value_of(stream, seq, text, origin)
                if value is _NOTHING:
                    continue
            meta = {} if meta is None else decode_meta(meta)
            event = Event(value, meta, seq if ns is None else ns, origin)
            keyed = keyer(event)
            if isinstance(keyed, Failure):
                self._route(
                    seq, _PATHS[0], self.graph.run_from(node, port, keyed, [("error", keyed)])
                )
                continue
            for group_index, (_, group) in enumerate(keyed):
                if readable and _kept_pid(pids, group[0], parts) != pid:
                    raise EntryKeyMismatch(
                        f"event {seq}: Spark's JSON reader put it in partition {pid}, its group "
                        f"{group[-1]} belongs to {pid_of(group[0], parts)} (tremorc bug: please "
                        "report it with the event)"
                    )
                outputs = op.process_keyed(port, event, group, (seq, 0, group_index))
                if not outputs:
                    continue
                if exits is None:
                    outputs = self.graph.run_from(node, port, event, outputs)
                else:
                    outputs = self._to_exits(node, port, event, outputs, exits)
                self._route(seq, [0, group_index], outputs)

    def _entry(self) -> tuple[str, str, str, Any]:
        """The entry stream of this stage, the node and port its events go to, its keyer."""
        stream, _ = self.stage.entry  # type: ignore[misc]
        ((node, port),) = self.graph.hops[(stream, "out")]
        return stream, node, port, self.keyers[node]

    def _entry_pid(
        self, keyer: Any, text: Any, ns: Any, origin: Any, meta: Any, seq: int, parts: int
    ) -> int:
        """The pid of an unreadable line's event from its own decoding (without side effects:
        an event without one group has :data:`~runtime_support.spark.entry_keys.HOME`)."""
        if text is None or origin == SOURCE_ERROR:
            return HOME
        try:
            value = decode_line(text)
        except BadLine:
            return HOME
        meta = {} if meta is None else decode_meta(meta)
        keyed = keyer(Event(value, meta, seq if ns is None else ns, origin))
        if isinstance(keyed, Failure) or len(keyed) != 1:
            return HOME
        return pid_of(keyed[0][1][0], parts)

    def _feed_fused(
        self, stream: str, seqs: list, texts: list, nss: list, origins: list, decoders: list
    ) -> None:
        """:meth:`feed_source` for rows of one ``stream`` that has a fused run, without
        metadata or a connector's ``err`` record, into a stage whose job outputs are not carried
        on: the same rows, the steps of :meth:`_emit` inlined (this loop is a stateless job's
        whole per-event cost; a stage that ``repeats`` appends them by :meth:`_append_runs`). A
        row that does not decode as JSON (the end-of-input signal, a codec's error mark: no JSON
        starts with NUL) takes :meth:`_value_of`."""
        append, run, repeats = self.rows.append, self.fused[stream], self.repeats
        for seq, text, ns, origin, decode in zip(seqs, texts, nss, origins, decoders, strict=True):
            try:
                value = decode(text)
            except Exception:  # noqa: BLE001 - _value_of names the reason
                value = self._value_of(stream, seq, text, origin)
                if value is _NOTHING:
                    continue
            outputs = run(value, {}, seq if ns is None else ns, origin)
            if type(outputs) is not list:  # the general run's (see feed_source)
                self._route(seq, [], outputs)
                continue
            if repeats is not None:
                self._append_runs(seq, outputs)
                continue
            last, encoded = _NOTHING, ""
            for index, (name, out) in enumerate(outputs):
                if out is not last:
                    last, encoded = out, _encoded(out)
                path = _PATHS[index] if index < 8 else [index]
                append((seq, path, -1, name, None, None, encoded))

    def _append_runs(self, seq: int, outputs: list[tuple[str, Any]]) -> None:
        """A fused run's outputs in a stage that ``repeats``: an output with the port and text
        of the one before it (same event) adds one to that row's ``repeat`` instead of a row."""
        rows, repeats = self.rows, self.repeats
        assert repeats is not None
        last, encoded, previous = _NOTHING, "", None
        for index, (name, out) in enumerate(outputs):
            if out is not last:
                last, encoded = out, _encoded(out)
            if (name, encoded) == previous:
                row = len(rows) - 1
                repeats[row] = repeats.get(row, 1) + 1
            else:
                previous = (name, encoded)
                rows.append((seq, [index], -1, name, None, None, encoded))

    def _feed_chain(
        self, stream: str, seqs: list, texts: list, nss: list, origins: list, decoders: list
    ) -> None:
        """:meth:`_feed_fused` for a stream whose fused run is a chain
        (:func:`~runtime_support.spark.fused.fused_chains`): the first step's
        :meth:`~runtime_support.tremor.graph.ScriptOperator.outcome` inlined (a script's, or that of
        a step with a script's interface), the one output appended at path ``[0]``; its rows as
        :meth:`_feed_fused`'s."""
        append, path = self.rows.append, _PATHS[0]
        first, rest = self.chains[stream][0], self.chains[stream][1:]
        op, exits, onward = first.op, first.exits, first.onward
        entry, ctx = op.entry, op.ctx
        for seq, text, ns, origin, decode in zip(seqs, texts, nss, origins, decoders, strict=True):
            try:
                value = decode(text)
            except Exception:  # noqa: BLE001 - _value_of names the reason
                value = self._value_of(stream, seq, text, origin)
                if value is _NOTHING:
                    continue
            ns = seq if ns is None else ns
            ctx.ingest_ns, ctx.origin_uri = ns, origin
            meta: Any = {}
            try:
                port, value, meta, op.state = entry(value, meta, op.state, ctx)
            except Exception as err:  # noqa: BLE001 - as ScriptOperator.outcome
                port, value, meta = op.failed(err, value, meta)
            name = exits.get(port)
            if name is None:
                if not rest or port != onward:
                    continue
                name, value = _chain_rest(rest, value, meta, ns, origin)
                if name is None:
                    continue
            try:
                encoded = encode_json_utf8(value)  # bytes: see text_array
            except Exception:  # noqa: BLE001 - _encoded reports it
                encoded = _encoded(value)
            append((seq, path, -1, name, None, None, encoded))

    def _value_of(self, stream: str, seq: int, text: Any, origin: Any) -> Any:
        """The event value of an input row, or ``_NOTHING`` for a row that is no event, which
        this handles: the streaming end-of-input signal (passed on), a connector's ``err``
        record, a line that does not decode (an ``err`` record naming why)."""
        if text is None:
            self.pass_flush()
            return _NOTHING
        self.seen = True
        if origin == SOURCE_ERROR:  # a connector's err record (processors, codec)
            self._source_error(stream, seq, text.decode() if type(text) is bytes else text)
            return _NOTHING
        try:
            return decode_line(text)
        except BadLine as bad:
            self._source_error(stream, seq, bad.record)
            return _NOTHING

    def _source_error(self, stream: str, seq: int, record: str) -> None:
        """A source's ``err`` record (counted as its stream's ``err`` output)."""
        if self.graph.counts is not None:
            self.graph.counts[(stream, "err")] += 1
        self._output(seq, [0], "err", record)

    def feed(self, cols: dict[str, list[Any]]) -> None:
        """Rows from upstream stages: events for a member, or job outputs riding along."""
        for seq, path, target, payload, value in zip(
            cols["seq"], cols["path"], cols["target"], cols["event"], cols["value"], strict=True
        ):
            if target == FLUSH_TARGET:
                self.pass_flush()
                continue
            self.seen = True
            node, _, port = target.partition("\0")
            if not node:
                self._output(seq, path, port, value, payload)
                continue
            kind, event, group = _unpickled(payload, value)
            self._route(seq, path, self._run(node, port, event, kind, group, (seq, *path)))

    def _run(
        self, node: str, port: str, event: Event, kind: str, group: Any, position: tuple
    ) -> list[tuple[Any, Any]]:
        if kind == "failure":
            return self.graph.run_from(node, port, event, [("error", event)])
        op = self.graph.ops[node]
        exits = self.exits.get(node)
        if exits is not None and type(event.value) is Encoded:  # a digest: see _digests
            return self._to_exits(node, port, event, op.process(port, event), exits)
        if node in self.keyers and hasattr(op, "process_keyed"):
            first = op.process_keyed(port, event, group, position)
            if exits is None:
                return self.graph.run_from(node, port, event, first)
            return self._to_exits(node, port, event, first, exits)
        return self.graph.run_from(node, port, event)

    def _to_exits(
        self, node: str, port: str, event: Event, outputs: list, exits: dict[str, list[str]]
    ) -> list[tuple[Any, Any]]:
        """The graph's run of ``node``'s ``outputs`` without its stack: each to the job outputs
        ``exits`` names for its port (:func:`_exits`); a failure or a batch among them takes
        the general run."""
        found = []
        for at, out in outputs:
            if type(out) is not Event or out.is_batch:
                return self.graph.run_from(node, port, event, outputs)
            found += [(name, out.value) for name in exits.get(at, ())]
        return found

    def final_tick(self) -> None:
        """The end-of-input tick of each ticking member, per group where the node has groups."""
        self.tick(END_OF_INPUT, END_SEQ)

    def tick(self, now: int, seq: int) -> None:
        """A tick at ``now`` of each ticking member (per group where the node has groups), its
        outputs at ``seq``."""
        for node in self.graph.tick_order:
            op = self.graph.ops[node]
            rank = self.rank[node]
            if hasattr(op, "tick_keyed") and node in self.keyers:
                for position, produced in op.tick_keyed(now):
                    self._route(seq, [rank, *position], self.graph.deliver(node, produced))
            else:
                produced = op.tick(now)  # type: ignore[attr-defined]
                self._route(seq, [rank], self.graph.deliver(node, produced))

    def counted(self) -> None:
        """The partition's event counts as one row on port :data:`METRICS_PORT` (JSON
        ``[[node, direction, port, count], …]``), summed by the driver (see
        :mod:`runtime_support.io.connectors.metrics`); the counts start again from zero."""
        assert self.graph.counts is not None, "only a counted graph reports"
        # an input stream is a passthrough in every stage's graph: members only
        counts = self.graph.node_counts(self.stage.members)
        items = [[node, way, port, n] for (node, way, port), n in sorted(counts.items())]
        self.graph.counts.clear()
        self._row(END_SEQ, [], -1, METRICS_PORT, None, None, encode_json(items))

    def pass_flush(self) -> None:
        """The streaming end-of-input signal, on to every stage this one feeds."""
        for stage in self.downstream:
            self._row(END_SEQ, [FLUSH_RANK], stage, FLUSH_TARGET, "", None, None)

    # Output -----------------------------------------------------------------------------------

    def _route(self, seq: int, path: list[int], outputs: list[tuple[Any, Any]]) -> None:
        """Each output, numbered in emission order: a job output, or rows for another stage.
        One value emitted several times (``group by each``, fan-out) is encoded once: every
        output of the event exists already, so none changes between the encodings."""
        last, text = _NOTHING, ""
        for index, (name, item) in enumerate(outputs):
            at = [*path, index]
            if isinstance(item, MetaValue):
                self._output(seq, at, name, *_encoded_with_meta(item))
                continue
            if not isinstance(name, tuple):
                if item is not last:
                    last, text = item, _encoded(item)
                self._output(seq, at, name, text)
                continue
            node, port = name
            stage, target = self.home[node], f"{node}\0{port}"
            keyer = self.keyers.get(node)
            if keyer is None:
                self._row(seq, at, stage, target, None, _pickled("event", item, None), None)
                continue
            line, read = self.line
            digest = None if item.is_batch else self.digests.get(node)
            if item is read and digest is None:  # the input event itself
                self._keyed_line(seq, at, stage, target, keyer, item, line)
                continue
            keyed = keyer(item)
            if isinstance(keyed, Failure):
                self._row(seq, at, stage, target, str(seq), _pickled("failure", keyed, None), None)
                continue
            # (not ``text``: that is the last job output's encoding, reused for its value)
            carried = None if digest is None else _encoded(item.value)
            meta = None if digest is None else digest(item)
            for group_index, (key, group) in enumerate(keyed):
                if digest is None:
                    payload = _pickled("event", item, group)
                else:  # the node reads only ``meta`` of the event, its outputs only the text
                    payload = _pickled_digest(meta, item.ingest_ns, group)
                self._row(seq, [*at, group_index], stage, target, key, payload, carried)

    def _keyed_line(
        self, seq: int, at: list[int], stage: int, target: str, keyer: Any, event: Event, line: Any
    ) -> None:
        """:meth:`_route`'s rows for an input event going to the keyed node ``target`` of
        ``stage``: one per group, its input line riding in ``value`` (see :func:`_raw_entries`)."""
        keyed = keyer(event)
        if isinstance(keyed, Failure):
            self._row(seq, at, stage, target, str(seq), _pickled("failure", keyed, None), None)
            return
        append = self.rows.append
        for group_index, (key, group) in enumerate(keyed):
            payload = _pickled_raw(event, group)
            append((seq, [*at, group_index], stage, target, key, payload, line))

    def _emit(self, seq: int, outputs: list[tuple[str, Any]]) -> None:
        """A fused run's outputs (job outputs whose sinks do not read ``$``): :meth:`_route`
        for that one case."""
        last, text = _NOTHING, ""
        carry, append = self.stage.carry, self.rows.append
        for index, (name, value) in enumerate(outputs):
            if value is not last:
                last, text = value, _encoded(value)
            if carry is None:  # the row :meth:`_output` appends
                append((seq, _PATHS[index] if index < 8 else [index], -1, name, None, None, text))
            else:
                self._output(seq, [index], name, text)

    def _output(
        self, seq: int, path: list[int], port: str, value: str, meta: bytes | None = None
    ) -> None:
        """A job output; ``meta`` (in ``event``) only on a port whose sink reads ``$``."""
        carry = self.stage.carry
        if carry is None:
            self._row(seq, path, -1, port, None, meta, value)
        else:
            self._row(seq, path, carry, "\0" + port, str(seq), meta, value)

    def _row(
        self,
        seq: int,
        path: list[int],
        stage: int,
        target: str,
        key: str | None,
        event: bytes | None,
        value: str | None,
    ) -> None:
        self.rows.append((seq, path, stage, target, key, event, value))


_COLUMNS = ("seq", "path", "stage", "target", "key", "event", "value")
_PATHS = tuple([index] for index in range(8))
"""Shared ``path`` lists of a fused run's first outputs (rows are read, never changed)."""
_NOTHING = object()


def _kept_pid(pids: dict[str, int], value: Any, parts: int) -> int:
    """:func:`~.entry_keys.pid_of` of a group's first component, a string's kept in ``pids``."""
    pid = pids.get(value) if type(value) is str else None
    if pid is None:
        pid = pid_of(value, parts)
        if type(value) is str:
            pids[value] = pid
    return pid


def _chain_rest(
    steps: tuple[ChainStep, ...], value: Any, meta: Any, ingest_ns: int, origin: Any
) -> tuple[str | None, Any]:
    """The later steps of a chain run on an event: ``(output name, value)`` it ends on (name
    None: dropped)."""
    for step in steps:
        op = step.op
        if type(op) is BucketRoute:
            port = BucketRoute.port_of(meta)
        else:
            port, value, meta = op.outcome(op.entry, value, meta, ingest_ns, origin)  # type: ignore
        if step.onward is None or port != step.onward:
            return step.exits.get(port), value  # type: ignore[arg-type]
    raise AssertionError("a chain's last step has no onward port")


def _pickled(kind: str, event: Event, group: Any) -> bytes:
    fields = (kind, event.value, event.meta, event.ingest_ns, event.origin_uri, event.is_batch)
    return pickle.dumps((*fields, group), protocol=pickle.HIGHEST_PROTOCOL)


def _pickled_digest(meta: dict[str, Any], ingest_ns: int, group: Any) -> bytes:
    return pickle.dumps(("digest", meta, ingest_ns, group), protocol=pickle.HIGHEST_PROTOCOL)


def _pickled_raw(event: Event, group: Any) -> bytes:
    fields = ("raw", event.meta, event.ingest_ns, event.origin_uri, group)
    return pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)


def _unpickled(payload: bytes, text: str | None = None) -> tuple[str, Event, Any]:
    fields = pickle.loads(payload)
    if fields[0] == "digest":  # the event's JSON text rides in ``value``
        _, meta, ingest_ns, group = fields
        return "event", Event(Encoded(text), meta, ingest_ns), group
    if fields[0] == "raw":  # the input line, decoded once already (so it is valid)
        _, meta, ingest_ns, origin, group = fields
        return "event", Event(orjson.loads(text), meta, ingest_ns, origin), group  # type: ignore
    kind, value, meta, ingest_ns, origin, is_batch, group = fields
    cls = Failure if kind == "failure" else Event
    return kind, cls(value, meta, ingest_ns, origin, is_batch), group


class Encoded:
    """An event value already encoded as JSON text (a digested event's, see :func:`_digests`)."""

    __slots__ = ("text",)

    def __init__(self, text: str | None) -> None:
        self.text = text


def _raw_entries(
    graph: Graph, keyers: dict[str, Any], digests: dict[str, Any]
) -> dict[str, tuple[str, str]]:
    """Input streams of this stage whose every event goes, through passthroughs only, to one
    keyed node of another stage that reads its whole event (no digest), with that node and
    port. Such an event is the input line's value, unchanged, so its line crosses the shuffle
    as the event (in ``value``, decoded again there) instead of a pickle of its value. Unless
    the graph counts what passes, it goes there without the graph's run (which returns it as
    that exit)."""
    found = {}
    for stream in graph.spec.inputs:
        if stream not in graph.ops or stream in graph.output_names:
            continue
        hops = graph.hops.get((stream, "out"), [])
        if len(hops) == 1:
            node, port = hops[0]
            if node in keyers and node not in graph.ops and node not in digests:
                found[stream] = (node, port)
    return found


def _exits(spec: GraphSpec, node: str, members: set[str]) -> dict[str, list[str]] | None:
    """Per output port of ``node`` (a keyed node), the job outputs its events reach through
    passthroughs, in the graph's depth-first link order; None unless each link leads, through
    passthroughs only, to job outputs, and ``node`` and those passthroughs run in this stage
    (``members``)."""
    links: dict[tuple[str, str], list[str]] = {}
    for src, (dst, _) in spec.links:
        links.setdefault(src, []).append(dst)
    passthroughs = {n.name for n in spec.nodes if n.factory is Passthrough} | set(spec.inputs)
    inside = members & passthroughs

    def reached(src: tuple[str, str]) -> list[str] | None:
        found: list[str] = []
        for dst in links.get(src, ()):
            more = [spec.output_ports.get(dst, dst)] if dst in spec.outputs else None
            if more is None and dst in inside:
                more = reached((dst, "out"))
            if more is None:
                return None
            found += more
        return found

    if node not in members:
        return None
    exits = {port: reached((name, port)) for name, port in links if name == node}
    return None if any(found is None for found in exits.values()) else exits  # type: ignore


def _digests(spec: GraphSpec) -> dict[str, Any]:
    """Keyed nodes whose events may travel as a digest plus JSON text: the node's keyer names
    the only part of an event the node reads (``keyer.digest``: event → meta dict), the node
    emits the events it is given unchanged, and everything it emits reaches, through
    passthroughs only, outputs whose sinks do not read ``$``. Such an event is encoded before
    the shuffle, and its text is what those outputs write."""
    links: dict[str, list[str]] = {}
    for (src, _), (dst, _) in spec.links:
        links.setdefault(src, []).append(dst)
    passthroughs = {n.name for n in spec.nodes if n.factory is Passthrough} | set(spec.inputs)
    plain = set(spec.outputs) - set(spec.meta_outputs)

    def reaches_plain_only(node: str, seen: frozenset[str]) -> bool:
        for dst in links.get(node, ()):
            if dst in plain:
                continue
            if dst not in passthroughs or dst in seen or dst in spec.outputs:
                return False
            if not reaches_plain_only(dst, seen | {dst}):
                return False
        return True

    return {
        n.name: n.keyer.digest  # type: ignore[union-attr]
        for n in spec.nodes
        if getattr(n.keyer, "digest", None) is not None
        and reaches_plain_only(n.name, frozenset({n.name}))
    }


def _encoded_with_meta(item: MetaValue) -> tuple[str, bytes]:
    """The ``value`` and ``meta`` columns of an output whose sink reads ``$``: ``meta`` is JSON
    ``{"$": record, "batch": null | [index, size]}`` (see
    :class:`runtime_support.tremor.graph.MetaValue`). Metadata that cannot be encoded turns the
    value into an error record naming why, as an
    unencodable value does (the sink never gets the event without its ``$`` silently)."""
    value, meta, batch = item
    record = meta if isinstance(meta, dict) else {}
    position = None if batch is None else list(batch)
    try:
        text = encode_meta({"$": record, "batch": position})
    except Exception as err:  # noqa: BLE001 - see docstring
        failed = {"error": f"Can not encode the event's metadata for its sink: {err}"}
        failed["event"] = repr(value)
        return encode_json(failed), encode_meta({"$": {}, "batch": position}).encode("utf-8")
    return _encoded(value), text.encode("utf-8")


def _encoded(value: Any) -> str:
    """JSON text of an emitted value; a value that cannot be encoded becomes an error record
    (the event is reported, never silently lost)."""
    if type(value) is Encoded:
        return value.text  # type: ignore[return-value]
    try:
        return encode_json(value)
    except Exception as err:  # noqa: BLE001 - see docstring
        return encode_json(
            {"error": f"Can not encode the emitted value: {err}", "event": repr(value)}
        )


def arrow_row_schema(repeats: bool = False):
    """The Arrow schema of a stage's rows (:data:`ROW_SCHEMA`, or :data:`REPEAT_ROW_SCHEMA`)."""
    import pyarrow as pa

    fields = [
        ("seq", pa.int64()),
        ("path", pa.list_(pa.int64())),
        ("stage", pa.int32()),
        ("target", pa.string()),
        ("key", pa.string()),
        ("event", pa.binary()),
        ("value", pa.string()),
    ]
    return pa.schema(fields + [("repeat", pa.int32())] if repeats else fields)
