"""Tremor's builtin pipeline operators (``define operator x from ns::op``).

``builtin_operator(kind, config)`` builds a fresh instance. Documented differences: no
contraflow/insights exist on Spark, so ``qos::backpressure`` and ``qos::percentile`` forward
everything to ``out``; ``debug::history`` numbers events by arrival at the operator
(``0:0:n:n``); ``generic::batch`` flushes on count, on an event past the timeout or on a tick
past the timeout (Tremor's rule; a batch job sends one tick, at the end of its input).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from runtime_support.tremor.graph import Event, Output
from runtime_support.tremor.jsonio import encode_json

__all__ = ["BucketRoute", "bucket_key", "builtin_operator"]


def _with(event: Event, value: Any, meta: Any = None) -> Event:
    return Event(value, event.meta if meta is None else meta, event.ingest_ns, event.origin_uri)


class Counter:
    """``generic::counter``: ``{"count": n, "event": <payload>}``."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.count = 0

    def process(self, port: str, event: Event) -> list[Output]:
        self.count += 1
        return [("out", _with(event, {"count": self.count, "event": event.value}))]


class Batch:
    """``generic::batch``: arrays of ``{"data": {value, meta, ingest_ns, kind, is_batch}}``."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.size = int(config["count"])
        self.timeout = config.get("timeout")
        self.items: list[dict[str, Any]] = []
        self.first: Event | None = None

    def process(self, port: str, event: Event) -> list[Output]:
        if self.first is None:
            self.first = event
        data = {
            "value": event.value,
            "meta": event.meta,
            "ingest_ns": event.ingest_ns,
            "kind": None,
            "is_batch": False,
        }
        self.items.append({"data": data})
        late = self.timeout is not None and event.ingest_ns - self.first.ingest_ns > self.timeout
        if len(self.items) < self.size and not late:
            return []
        return self._flush()

    def tick(self, now: int) -> list[Output]:
        """A tick flushes a non-empty batch once ``now - first >= timeout``."""
        if self.first is None or self.timeout is None:
            return []
        if now - self.first.ingest_ns < self.timeout:
            return []
        return self._flush()

    def _flush(self) -> list[Output]:
        first, items = self.first, self.items
        assert first is not None
        self.items, self.first = [], None
        return [("out", Event(items, {}, first.ingest_ns, first.origin_uri, is_batch=True))]


class RoundRobin:
    """``qos::roundrobin``: cycle over the configured output ports."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.outputs = list(config.get("outputs", ["out"])) or ["out"]
        self.next = 0

    def process(self, port: str, event: Event) -> list[Output]:
        out = self.outputs[self.next % len(self.outputs)]
        self.next += 1
        return [(out, event)]


class Forward:
    """``qos::backpressure`` / ``qos::percentile`` / ``passthrough``: everything to ``out``."""

    def __init__(self, config: dict[str, Any]) -> None:
        pass

    def process(self, port: str, event: Event) -> list[Output]:
        return [("out", event)]


class History:
    """``debug::history``: appends ``"evt: <op>(<id>)"`` to ``$[name]``."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.op = config["op"]
        self.name = config["name"]
        self.seen = 0

    def process(self, port: str, event: Event) -> list[Output]:
        n = self.seen
        self.seen += 1
        meta = dict(event.meta) if isinstance(event.meta, dict) else {}
        entries = meta.get(self.name)
        entries = list(entries) if isinstance(entries, list) else []
        entries.append(f"evt: {self.op}(0:0:{n}:{n})")
        meta[self.name] = entries
        return [("out", _with(event, event.value, meta))]


class _Limiter:
    """A sliding window of ``windows`` slots over ``time_range`` ms allowing ``rate`` events.
    ``total`` is the sum of ``slots``; while time never goes back the slots are in increasing
    order, so the expired ones are at the front (else every slot is checked)."""

    def __init__(self, rate: int, time_range: int, windows: int) -> None:
        self.rate = rate
        self.slot_ms = max(1, time_range // max(1, windows))
        self.windows = max(1, windows)
        self.slots: OrderedDict[int, int] = OrderedDict()
        self.total = 0
        self.last: int | None = None  # the last slot added while in order, None once not

    def allow(self, now_ms: int) -> bool:
        current = now_ms // self.slot_ms
        slots, oldest = self.slots, current - self.windows
        if self.last is not None and current >= self.last:
            while slots:
                slot = next(iter(slots))
                if slot > oldest:
                    break
                self.total -= slots.pop(slot)
        else:
            for slot in [slot for slot in slots if slot <= oldest]:
                self.total -= slots.pop(slot)
        if self.total >= self.rate:
            return False
        if current in slots:
            slots[current] += 1
        else:
            slots[current] = 1
            in_order = self.last is not None and current >= self.last
            self.last = current if in_order or len(slots) == 1 else None
        self.total += 1
        return True


class Bucket:
    """``grouper::bucket``: per ``$class`` / ``$dimensions`` rate limits (``out``/``overflow``;
    missing ``$class`` or a first-seen dimension without ``$rate`` → ``err``)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.classes: dict[str, OrderedDict[str, _Limiter]] = {}

    def process(self, port: str, event: Event) -> list[Output]:
        meta = event.meta if isinstance(event.meta, dict) else {}
        cls = meta.get("class")
        if type(cls) is not str:
            return [("err", event)]
        dims = self.classes.setdefault(cls, OrderedDict())
        key = encode_json(meta.get("dimensions"))
        limiter = dims.get(key)
        if limiter is None:
            rate = meta.get("rate")
            if type(rate) is not int:
                return [("err", event)]
            limiter = _Limiter(rate, _int(meta, "time_range", 1000), _int(meta, "windows", 100))
            dims[key] = limiter
            while len(dims) > _int(meta, "cardinality", 1000):
                dims.popitem(last=False)
        else:
            dims.move_to_end(key)
        allowed = limiter.allow(event.ingest_ns // 1_000_000)
        return [("out" if allowed else "overflow", event)]


class BucketRoute:
    """``grouper::bucket`` where the compiler proved its rate limit changes no output (``out``
    and ``overflow`` lead to the same place and no event has a string ``$class`` without an int
    ``$rate``; ``compiler.passes.bucket_routing``): a string ``$class`` → ``out``, else ``err``,
    as :class:`Bucket` routes those events. No state."""

    def __init__(self, config: dict[str, Any]) -> None:
        pass

    def process(self, port: str, event: Event) -> list[Output]:
        return [(self.port_of(event.meta), event)]

    @staticmethod
    def port_of(meta: Any) -> str:
        """``out`` for metadata with a string ``class``, else ``err``."""
        return "out" if type(meta) is dict and type(meta.get("class")) is str else "err"


def bucket_key(event: Event) -> list[tuple[str, None]]:
    """The key of ``grouper::bucket``'s state, computed before its keyed stage's shuffle: the
    event's ``$class`` (every class has its own limiters; events without one go to ``err``)."""
    meta = event.meta if isinstance(event.meta, dict) else {}
    cls = meta.get("class")
    return [(cls if type(cls) is str else "", None)]


_BUCKET_READS = ("class", "dimensions", "rate", "time_range", "windows", "cardinality")


def bucket_digest(event: Event) -> dict[str, Any]:
    """All of an event that :class:`Bucket` reads (it emits the event it is given unchanged):
    the metadata keys of its configuration, when present."""
    meta = event.meta if isinstance(event.meta, dict) else {}
    return {key: meta[key] for key in _BUCKET_READS if key in meta}


bucket_key.digest = bucket_digest  # type: ignore[attr-defined]


def _int(meta: dict[str, Any], key: str, default: int) -> int:
    value = meta.get(key)
    return value if type(value) is int else default


OPERATORS: dict[str, type] = {
    "generic::counter": Counter,
    "generic::batch": Batch,
    "generic::backpressure": Forward,
    "qos::backpressure": Forward,
    "qos::percentile": Forward,
    "qos::roundrobin": RoundRobin,
    "grouper::bucket": Bucket,
    "debug::history": History,
    "passthrough": Forward,
}


def builtin_operator(kind: str, config: dict[str, Any]) -> Any:
    """A fresh operator instance of ``kind`` configured by ``config``."""
    return OPERATORS[kind](config)
