"""tremorc's window extensions (docs/extensions.md): sliding, session and event-time
windows, each alone in its select (no tilt chain), one :class:`ExtWindow` per group.

Invariants:

- State is plain picklable data (ints, dicts, lists, :class:`Pane` s of aggregates): no
  closures, so a group's window can live in a streaming state store between micro-batches.
- Time windows keep a per-group watermark ``max(time seen) - lateness`` computed from the events
  alone (never from wall clocks), so batch and streaming give the same output.
- A window ``[start, end)`` closes once the watermark reaches ``end``; a session ``[start,
  last]`` once the watermark passes ``last + gap``. Windows closing together emit earliest
  start first. An event belonging to a closed window goes to ``late`` (never dropped silently).
- A group, once created, is kept (its watermark must outlive its windows to recognise late
  events).
"""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.aggregates import Aggregate, make
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import RenderedError
from runtime_support.tremor.graph import END_OF_INPUT

__all__ = ["EXT_KINDS", "ExtWindow", "Pane", "new_ext_window"]

#: Window kinds of the IR implemented here (the rest are Tremor's, in windows.py).
EXT_KINDS = frozenset({"sliding_size", "sliding_interval", "session", "event_interval"})


class Pane:
    """One open window of one group: its bounds and its aggregates (``last``: the latest event
    time of a session, ``count``: events taken by a count window)."""

    __slots__ = ("start", "end", "last", "aggrs")

    def __init__(self, start: int, end: int, paths: tuple[str, ...]) -> None:
        self.start, self.end, self.last = start, end, start
        self.aggrs: list[Aggregate] = [make(p) for p in paths]

    def take(self, args: list[tuple[Any, ...]]) -> None:
        for aggr, values in zip(self.aggrs, args, strict=False):
            aggr.accumulate(values)


class _View:
    """What the select's sink reads of an emitting window: ``spec`` and ``aggrs``."""

    __slots__ = ("spec", "aggrs")

    def __init__(self, spec: Any, aggrs: list[Aggregate]) -> None:
        self.spec, self.aggrs = spec, aggrs


class ExtWindow:
    """One group's window of an extension kind (see the module invariants)."""

    __slots__ = ("spec", "paths", "panes", "watermark", "seen")

    def __init__(self, spec: Any, paths: tuple[str, ...]) -> None:
        self.spec, self.paths = spec, paths
        self.panes: dict[int, Pane] = {}  # by start
        self.watermark: int | None = None
        self.seen = 0  # events taken (count windows)

    # -- events --------------------------------------------------------------------------------

    def on_event(self, event: Any, meta: Any, ctx: EventContext, sink: Any) -> None:
        """Close what the event's time closes, then add the event to its windows. The event's
        time and aggregate arguments are evaluated before any state changes, so an error in
        them (the event goes to the select's error port) leaves the windows as they were."""
        if self.spec.kind == "sliding_size":
            self._count_event(sink.aggr_args(self))
            if self.panes[min(self.panes)].end == self.seen:
                self._emit(self.panes.pop(min(self.panes)), sink)
            return
        now = self._time(event, meta, ctx)
        args = sink.aggr_args(self)
        self._advance(now - self.spec.lateness, sink)
        if self.spec.kind == "session":
            self._session_event(now, args, sink)
        else:
            self._range_event(now, args, sink)

    def _time(self, event: Any, meta: Any, ctx: EventContext) -> int:
        """The event's time: the window script's value (u64 ns) or its ingest time."""
        if self.spec.script is None:
            return ctx.ingest_ns
        value, _ = self.spec.script.run(event, meta, None, ctx)
        if type(value) is int and value >= 0:
            return value
        raise RenderedError("Error: Data based window didn't provide a valid value")

    def _count_event(self, args: list[tuple[Any, ...]]) -> None:
        """Count windows: one opens every ``slide`` events and takes ``size`` events; the
        caller emits the earliest once it is full (at most one per event, with the event)."""
        spec = self.spec
        if self.seen % spec.slide == 0:
            self.panes[self.seen] = Pane(self.seen, self.seen + spec.amount, self.paths)
        self.seen += 1
        for pane in self.panes.values():
            pane.take(args)

    def _range_event(self, now: int, args: list[tuple[Any, ...]], sink: Any) -> None:
        """Interval windows ``[k*slide, k*slide + interval)`` covering ``now``, earliest
        first; the ones already closed make the event late."""
        spec = self.spec
        size, slide = spec.amount, spec.slide
        first = ((now - size) // slide + 1) * slide
        closed: list[list[int]] = []
        for start in range(first, now + 1, slide):
            end = start + size
            if self.watermark is not None and end <= self.watermark:
                closed.append([start, end])
                continue
            pane = self.panes.get(start)
            if pane is None:
                pane = self.panes[start] = Pane(start, end, self.paths)
            pane.take(args)
        if closed:
            self._late(now, closed, sink)

    def _session_event(self, now: int, args: list[tuple[Any, ...]], sink: Any) -> None:
        """Join (and merge) every open session the event is within ``gap`` of; a lone event
        whose own session ``[now, now + gap]`` is already over is late."""
        gap = self.spec.amount
        near = sorted(s for s, p in self.panes.items() if s - gap <= now <= p.last + gap)
        if not near:
            if self.watermark is not None and now + gap < self.watermark:
                self._late(now, [[now, now + gap]], sink)
                return
            self.panes[now] = Pane(now, now, self.paths)
            near = [now]
        pane = self.panes.pop(near[0])
        pane.take(args)
        pane.last = max(pane.last, now)
        for start in near[1:]:
            other = self.panes.pop(start)
            for aggr, more in zip(pane.aggrs, other.aggrs, strict=False):
                aggr.merge(more)
            pane.last = max(pane.last, other.last)
        pane.start = min(pane.start, now)
        pane.end = pane.last + gap
        self.panes[pane.start] = pane

    # -- closing -------------------------------------------------------------------------------

    def _advance(self, mark: int, sink: Any) -> None:
        """Raise the watermark to ``mark`` (never lower it) and close what it passed."""
        if self.watermark is None or mark > self.watermark:
            self.watermark = mark
        self._close(self.watermark, sink)

    def _close(self, mark: int, sink: Any) -> None:
        """Emit and forget every window the watermark ``mark`` closed, earliest start first."""
        if self.spec.kind == "session":
            done = [s for s, p in self.panes.items() if p.last + self.spec.amount < mark]
        else:
            done = [s for s, p in self.panes.items() if p.end <= mark]
        for start in sorted(done):
            self._emit(self.panes.pop(start), sink)

    def on_tick(self, now: int, sink: Any) -> None:
        """The end-of-input tick closes every open time window; another tick closes what its
        ``now`` passed, for windows on ingest time only (event time ignores wall clocks). Count
        windows ignore ticks, as Tremor's size windows do."""
        if self.spec.kind == "sliding_size":
            return
        if now == END_OF_INPUT:
            for start in sorted(self.panes):
                self._emit(self.panes.pop(start), sink)
        elif self.spec.script is None:
            self._close(now, sink)

    def _emit(self, pane: Pane, sink: Any) -> None:
        sink.emit(_View(self.spec, pane.aggrs))

    def _late(self, now: int, closed: list[list[int]], sink: Any) -> None:
        """The late record: which window, the event's time, the watermark, the closed windows
        it belonged to (``[start, end]`` each)."""
        record = {"window": self.spec.name, "time": now, "watermark": self.watermark}
        sink.late({**record, "closed": closed})


def new_ext_window(spec: Any, paths: tuple[str, ...]) -> ExtWindow:
    """A fresh window of an extension kind for a new group."""
    return ExtWindow(spec, paths)
