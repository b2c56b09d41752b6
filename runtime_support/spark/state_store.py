"""The stateful stages of a streaming job: Spark's state store (RocksDB) through
``transformWithStateInPandas``, the same graph code as a batch stage.

A stateful stage's rows are grouped by ``shard``: for a keyed (``hash``) stage ``pmod(xxhash64(key),
shards)``, for a global (``single``) stage 0. One call per shard and micro-batch runs that shard's
rows in Tremor's order ``(seq, path)`` through a live :class:`~runtime_support.spark.stages._Runner`
whose node state comes from the store and goes back to it:

- the keyed node: one map entry per key (a select's group, a bucket's class), read for the keys
  the micro-batch holds, every key on a tick (:mod:`runtime_support.spark.state_codec`);
- every other stateful member: one value, its whole state.

Between calls the live graph holds no state. Ticks: with ``timeMode="ProcessingTime"`` each
shard with state has one timer ``tick_ms`` ahead; when it fires the shard's nodes get
``tick(now)`` (outputs at :data:`~runtime_support.spark.stages.TICK_SEQ`). The end-of-input signal
(:data:`~runtime_support.spark.stages.FLUSH_TARGET`) reaches every shard (the row is copied to each)
and runs the end-of-input tick there.

The input numbering (:class:`Numberer`) is the one global step: every input line of a
micro-batch, in arrival order (file modification time, path, split, line), gets the next ``seq``
and its ``ingest_ns``; the counters live in the store, so numbering continues across restarts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime_support.spark.stages import (
    END_SEQ,
    FLUSH_TARGET,
    ROW_SCHEMA,
    TICK_SEQ,
    StageSpec,
    _Runner,
)
from runtime_support.spark.state_codec import StateCodec, keyed_state
from runtime_support.tremor.graph import END_OF_INPUT, GraphSpec

__all__ = [
    "EVENTS_SCHEMA",
    "Numberer",
    "StreamSettings",
    "numbered_events",
    "state_fingerprint",
    "state_stage",
]

EVENTS_SCHEMA = "seq long, value binary, ingest_ns long, origin string"
"""The numbered input lines; ``value`` as bytes (:mod:`runtime_support.spark.input_lines`)."""


@dataclass(frozen=True)
class StreamSettings:
    """A streaming job's choices: ``shards`` per keyed stage (fixed by the checkpoint),
    ``tick_ms`` between periodic ticks (None: no periodic ticks, as with ``available-now``),
    ``ingest_ns`` ``index`` or ``wallclock``, ``ttl_ms`` of a key's state (None: kept)."""

    shards: int
    tick_ms: int | None = 100
    ingest_ns: str = "wallclock"
    ttl_ms: int | None = None
    ingest_step: int = 1
    """``index`` mode: event ``i`` gets ``ingest_ns`` = ``i * ingest_step`` (tests spread events
    over time windows this way)."""

    @property
    def time_mode(self) -> str:
        return "None" if self.tick_ms is None else "ProcessingTime"


# Input numbering ------------------------------------------------------------------------------


def numbered_events(lines: Any, settings: StreamSettings):
    """``lines`` (``mtime, file, block, row, value``; ``value`` null for the end-of-input
    signal) as the events a job reads: ``seq, value, ingest_ns, origin``, numbered in one group."""
    from pyspark.sql import functions as F

    return (
        lines.withColumn("all", F.lit(0))
        .groupBy("all")
        .transformWithStateInPandas(
            Numberer(settings.ingest_ns, settings.ingest_step), EVENTS_SCHEMA, "Append", "None"
        )
    )


def _stateful_processor():
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    return StatefulProcessor


class Numberer(_stateful_processor()):  # type: ignore[misc]
    """``seq`` = the next number in ``(mtime, file, block, row)`` order, ``ingest_ns`` = ``seq``
    (``index``) or the micro-batch's timestamp (deterministic on a replay), never below the last
    one + 1 (``wallclock``); ``origin`` and ``meta`` columns of the input are kept."""

    def __init__(self, ingest_ns: str, step: int = 1) -> None:
        self.ingest_ns = ingest_ns
        self.step = step

    def init(self, handle: Any) -> None:
        self.counters = handle.getValueState("counters", "next_seq long, last_ns long")

    def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
        import numpy as np
        import pandas as pd

        frame = pd.concat(list(rows), ignore_index=True)
        frame["signal"] = frame["value"].isna()
        frame = frame.sort_values(["signal", "mtime", "file", "block", "row"], kind="stable")
        start, last_ns = self.counters.get() if self.counters.exists() else (0, -1)
        seq = np.arange(start, start + len(frame), dtype="int64")
        if self.ingest_ns == "index":
            ingest = seq * self.step
        else:
            base = max(timerValues.getCurrentProcessingTimeInMs() * 1_000_000, last_ns + 1)
            ingest = base + np.arange(len(frame), dtype="int64")
        self.counters.update((int(start + len(frame)), int(ingest[-1]) if len(frame) else last_ns))
        if "ingest" in frame:  # set by a source's `ingest-ns` preprocessor
            ingest = np.where(frame["ingest"].isna(), ingest, frame["ingest"].fillna(0)).astype(
                "int64"
            )
        out = {"seq": seq, "value": frame["value"].to_numpy(), "ingest_ns": ingest, "origin": None}
        # a source's own columns, when it has them: err rows' origin (input_lines.SOURCE_ERROR),
        # a connector's origin and ``$`` record (``meta``, see runtime_support.tremor.event_meta)
        for carried in ("origin", "meta"):
            if carried in frame.columns:
                out[carried] = frame[carried].to_numpy()
        yield pd.DataFrame(out)

    def close(self) -> None:
        pass


# Stateful stages ------------------------------------------------------------------------------


def state_stage(
    rows: Any, spec: GraphSpec, stages: tuple[StageSpec, ...], index: int, settings: StreamSettings
):
    """Stage ``index`` over ``rows`` (its input, ROW_SCHEMA or, when it reads the job's input,
    the events) on the state store, grouped by shard; ROW_SCHEMA out."""
    from pyspark.sql import functions as F

    reads = any(m in spec.inputs for m in stages[index].members)
    if reads:
        shard = F.array(F.lit(0))
    elif stages[index].partitioning == "hash":
        everyone = F.sequence(F.lit(0), F.lit(settings.shards - 1))
        own = F.array(F.pmod(F.xxhash64("key"), F.lit(settings.shards)).cast("int"))
        shard = F.when(F.col("target") == FLUSH_TARGET, everyone).otherwise(own)
    else:
        shard = F.array(F.lit(0))
    processor = StageProcessor(spec, stages, index, settings)
    return (
        rows.withColumn("shard", F.explode(shard))
        .groupBy("shard")
        .transformWithStateInPandas(processor, ROW_SCHEMA, "Append", settings.time_mode)
    )


class StageProcessor(_stateful_processor()):  # type: ignore[misc]
    """One stateful stage's processor (see the module doc)."""

    def __init__(
        self,
        spec: GraphSpec,
        stages: tuple[StageSpec, ...],
        index: int,
        settings: StreamSettings,
    ) -> None:
        self.spec, self.stages, self.index, self.settings = spec, stages, index, settings

    # Spark's calls ------------------------------------------------------------------------------

    def init(self, handle: Any) -> None:
        self.handle = handle
        self.runner = _Runner(self.spec, self.stages, self.index)
        self.reads = any(m in self.spec.inputs for m in self.stages[self.index].members)
        keyed = self.stages[self.index].partitioning == "hash"
        self.keyed: dict[str, Any] = {}
        self.whole: dict[str, Any] = {}
        self.codecs: dict[str, StateCodec] = {}
        ttl = self.settings.ttl_ms
        stateful = {node.name for node in self.spec.nodes if node.stateful}
        for number, name in enumerate(self.stages[self.index].members):
            op = self.runner.graph.ops.get(name)
            view = keyed_state(op) if keyed and name in self.runner.keyers else None
            if view is not None:
                store = handle.getMapState(f"keys{number}", "key string", "state binary", ttl)
                self.keyed[name] = (view, store)
            elif name in stateful and _has_state(op):
                self.whole[name] = handle.getValueState(f"node{number}", "state binary", ttl)
            else:
                continue
            self.codecs[name] = StateCodec(op)  # the live op is fresh: no state loaded yet
        self._loaded_keys: dict[str, dict[str, bytes]] = {}
        self._loaded_whole: set[str] = set()
        self._ticks = any(
            _ticks_matter(self.runner.graph.ops[n]) for n in self.runner.graph.tick_order
        )

    def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
        import pandas as pd

        frame = pd.concat(list(rows), ignore_index=True)
        runner = self.runner
        if self.reads:
            flush = bool(frame["value"].isna().any())
            frame = frame[frame["value"].notna()].sort_values("seq", kind="stable")
            self._load(None)
            names = ("stream", "seq", "value", "ingest_ns", "origin", "meta")
            runner.feed_source(_columns(frame, tuple(n for n in names if n in frame.columns)))
        else:
            flush = bool((frame["target"] == FLUSH_TARGET).any())
            frame = frame[frame["target"] != FLUSH_TARGET]
            cols = _columns(frame, ("seq", "path", "target", "event", "value", "key"))
            order = sorted(range(len(cols["seq"])), key=lambda i: (cols["seq"][i], cols["path"][i]))
            cols = {name: [values[i] for i in order] for name, values in cols.items()}
            self._load(None if flush else {k for k in cols["key"] if k is not None})
            runner.feed(cols)
        if flush:  # every key is loaded already (``_load(None)`` above)
            runner.tick(END_OF_INPUT, END_SEQ)
            runner.pass_flush()
        self._save()
        self._arm(timerValues)
        yield from self._take()

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any) -> Any:
        now_ms = timerValues.getCurrentProcessingTimeInMs()
        self._load(None)
        self.runner.tick(now_ms * 1_000_000, TICK_SEQ)
        self._save()
        # Spark deletes the firing timer only after this call: it does not count as armed
        self._arm(timerValues, expiredTimerInfo.getExpiryTimeInMs())
        yield from self._take()

    def close(self) -> None:
        pass

    # State in and out ---------------------------------------------------------------------------

    def _load(self, keys: set[str] | None) -> None:
        """The stored state into the live graph: whole nodes, and the keyed node's ``keys``
        (every key when None). Loading twice in one call is harmless (live state wins)."""
        for name, state in self.whole.items():
            if state.exists() and name not in self._loaded_whole:
                self._put_whole(name, self.codecs[name].loads(state.get()[0]))
            self._loaded_whole.add(name)
        for name, (view, store) in self.keyed.items():
            codec = self.codecs[name]
            live = set(view.keys())
            if keys is None:
                stored = ((k[0], v[0]) for k, v in store.iterator())
            else:
                stored = ((k, v[0]) for k in keys if (v := store.getValue((k,))) is not None)
            loaded = self._loaded_keys.setdefault(name, {})
            for k, blob in stored:
                if k not in live:
                    view.put(k, codec.loads(blob))
                    loaded[k] = blob

    def _save(self) -> None:
        """The live graph's state back into the store; the live graph is left empty."""
        for name, state in self.whole.items():
            op = self.runner.graph.ops[name]
            state.update((self.codecs[name].dumps(_whole_state(op)),))
        for name, (view, store) in self.keyed.items():
            codec = self.codecs[name]
            loaded = self._loaded_keys.get(name, {})
            for k in set(view.keys()) | set(loaded):
                taken = view.take(k)
                if taken is None:
                    if k in loaded:
                        store.removeKey((k,))
                    continue
                blob = codec.dumps(taken)
                if loaded.get(k) != blob:  # an unchanged key is not written again
                    store.updateValue((k,), (blob,))
        self._loaded_keys = {}
        self._loaded_whole = set()

    def _put_whole(self, name: str, state: dict[str, Any]) -> None:
        self.runner.graph.ops[name].__dict__.update(state)

    def _arm(self, timerValues: Any, firing: int | None = None) -> None:
        """One timer ``tick_ms`` ahead while the shard holds state and a member ticks
        (``firing``: the timer being handled, about to be deleted)."""
        if self.settings.tick_ms is None or not self._ticks:
            return
        if any(firing is None or due > firing for due in self.handle.listTimers()):
            return
        if not self._holds_state():
            return
        due = timerValues.getCurrentProcessingTimeInMs() + self.settings.tick_ms
        self.handle.registerTimer(due)

    def _holds_state(self) -> bool:
        if any(store.exists() for _, store in self.keyed.values()):
            return True
        return bool(self.whole)

    def _take(self) -> Any:
        if self.runner.graph.counts:  # a flow with a metrics source: what it counted since
            self.runner.counted()
        if self.runner.rows:
            yield self.runner.take().to_pandas()


def _ticks_matter(op: Any) -> bool:
    """Whether a ticking node may act on a periodic tick (a select whose windows all count
    events, or have no tick script, never does)."""
    spec = getattr(op, "spec", None)
    windows = getattr(spec, "windows", None)
    if type(op).__name__ != "SelectOperator" or windows is None:
        return True
    return any(
        not (w.kind == "size" or (w.kind == "state" and w.tick_script is None)) for w in windows
    )


def _has_state(op: Any) -> bool:
    """Whether an operator carries state between events (anything but its program parts)."""
    return (
        op is not None
        and bool(getattr(op, "__dict__", None))
        and type(op).__name__
        not in (
            "Passthrough",
            "Forward",
        )
    )


def _whole_state(op: Any) -> dict[str, Any]:
    return dict(op.__dict__)


def _columns(frame: Any, names: tuple[str, ...]) -> dict[str, list]:
    """Column lists of a pandas frame (``path`` as lists of ints, NaN-free ``ingest_ns``)."""
    cols = {name: frame[name].tolist() for name in names}
    if "path" in cols:
        cols["path"] = [[int(x) for x in p] for p in cols["path"]]
    if "ingest_ns" in cols:
        cols["ingest_ns"] = [None if x != x else int(x) for x in cols["ingest_ns"]]
    return cols


# Restart compatibility ------------------------------------------------------------------------


def state_fingerprint(spec: GraphSpec, stages: tuple[StageSpec, ...]) -> str:
    """A digest of what the stored state means: the stateful stages in order (each is one of
    Spark's stateful operators), their members, and per stateful node what shapes its state
    (a select's group key, windows and aggregates; a script's code; an operator's kind and
    configuration). A ``where``, a select's target or a stateless node does not count."""
    import hashlib

    digest = hashlib.sha256()
    nodes = {node.name: node for node in spec.nodes}
    for stage in stages:
        if stage.partitioning not in ("hash", "single"):
            continue
        digest.update(repr((stage.partitioning, stage.members)).encode())
        for name in stage.members:
            node = nodes.get(name)
            if node is not None:
                digest.update(_node_meaning(node.factory()).encode())
    return digest.hexdigest()[:16]


def _node_meaning(op: Any) -> str:
    kind = type(op).__name__
    if kind == "SelectOperator":
        select = op.spec
        windows = [
            (w.name, w.kind, w.amount, w.slide, w.lateness, w.max_groups, repr(w.init_state))
            + (_code(w.script),)
            for w in select.windows
        ]
        return repr((kind, windows, select.aggregates, _group(select.group)))
    if kind == "ScriptOperator":
        return repr((kind, _function(op.entry), repr(op.state)))
    if kind in ("Passthrough", "Forward"):
        return kind
    return repr((kind, sorted((k, repr(v)) for k, v in vars(op).items())))


def _group(group: Any) -> Any:
    if group is None:
        return None
    return (group.kind, _code(group.code), tuple(_group(g) for g in group.items))


def _code(code: Any) -> Any:
    return None if code is None else _function(code.entry)


def _function(function: Any) -> Any:
    """The generated function's bytecode, names and constants (not its line numbers)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return repr(function)
    return _code_object(code)


def _code_object(code: Any) -> Any:
    consts = tuple(_code_object(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts)
    return (code.co_code.hex(), code.co_names, consts)
