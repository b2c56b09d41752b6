"""Tumbling windows and tilt frames of a trickle ``select`` (Tremor's ``GroupWindow``).

Per group a select keeps a chain of :class:`Frame` s, one per window of ``from s[w1, w2, …]``.
Only the first frame sees events; a frame that emits merges its aggregates into the next one,
which then runs its own trigger with the same event. Emission order is smallest frame first.

Window kinds: ``size`` (count, optional weight script, emit *including* the event once the count
reaches the size), ``interval`` (ingest_ns or script time, emit *excluding* the event once
``t >= next``), ``state`` (a script with per-group state returning ``bool`` or ``[emit, include]``).

Ticks (:func:`tick_frames`): only the first frame of a chain decides. An ``interval`` window
without a time script closes once ``now >= next`` (the end-of-input tick :data:`END_OF_INPUT`
closes every open one); a ``state`` window runs its ``script from tick``; ``size`` windows and
script-timed intervals ignore ticks. An emission merges upward as on events.

Sliding, session and event-time windows are :mod:`runtime_support.tremor.windows_ext`'s; a chain of
one of them holds one :class:`~runtime_support.tremor.windows_ext.ExtWindow` instead of frames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.aggregates import Aggregate, make
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import RenderedError, TremorError
from runtime_support.tremor.graph import END_OF_INPUT
from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.windows_ext import EXT_KINDS, ExtWindow, new_ext_window

__all__ = [
    "Code",
    "Frame",
    "WindowSpec",
    "new_frames",
    "run_frames",
    "tick_frames",
]

Entry = Callable[[Any, Any, Any, EventContext], tuple[Any, Any, Any, Any]]


@dataclass(frozen=True)
class Code:
    """A generated entry plus what is needed to render its runtime errors."""

    entry: Entry
    sites: tuple[tuple[int, int, int, int], ...]
    source: str

    def run(self, event: Any, meta: Any, state: Any, ctx: EventContext) -> tuple[Any, Any]:
        """``(value, state)`` of the entry; TremorError becomes :class:`RenderedError`."""
        try:
            _, value, _, state = self.entry(event, meta, state, ctx)
        except TremorError as err:
            raise self._rendered(err) from None
        return value, state

    def reply(self, event: Any, meta: Any, state: Any, ctx: EventContext) -> tuple[bool, Any, Any]:
        """``(dropped, value, state)``: like :meth:`run`, also saying whether it ran ``drop``."""
        try:
            port, value, _, state = self.entry(event, meta, state, ctx)
        except TremorError as err:
            raise self._rendered(err) from None
        return port is None, value, state

    def _rendered(self, err: TremorError) -> RenderedError:
        from runtime_support.tremor.script_rt import (
            render_error,  # on the error path only: imports cost per call
        )

        return RenderedError(render_error(err, self.source, self.sites))

    def fail(self, message: str, span: tuple[int, int]) -> RenderedError:
        """A rendered error at ``span`` of this code's source."""
        from runtime_support.tremor.highlight import render

        return RenderedError(render(self.source, inner=span, message=message))


@dataclass(frozen=True)
class WindowSpec:
    """A ``define window``: ``kind`` is ``size``, ``interval`` or ``state``, or one of the
    extension kinds of :mod:`runtime_support.tremor.windows_ext` (``EXT_KINDS``)."""

    name: str
    kind: str
    amount: int = 0
    script: Code | None = None
    reply_span: tuple[int, int] = (0, 0)
    init_state: Any = None
    max_groups: int | None = None
    tick_script: Code | None = None
    tick_reply_span: tuple[int, int] = (0, 0)
    slide: int = 0  # sliding windows (windows_ext.py)
    lateness: int = 0  # event-time windows (windows_ext.py)


class Frame:
    """One window instance of one group: trigger state, aggregates, ``holds_data``."""

    __slots__ = ("spec", "aggrs", "holds_data", "count", "next_ns", "state")

    def __init__(self, spec: WindowSpec, aggr_paths: tuple[str, ...]) -> None:
        self.spec = spec
        self.aggrs: list[Aggregate] = [make(p) for p in aggr_paths]
        self.holds_data = False
        self.count = 0
        self.next_ns: int | None = None
        self.state = spec.init_state

    def reset(self) -> None:
        """Clear the aggregates after an emission (trigger state is kept)."""
        for aggr in self.aggrs:
            aggr.init()
        self.holds_data = False

    def trigger(self, event: Any, meta: Any, ctx: EventContext) -> tuple[bool, bool]:
        """``(emit, include)`` for an event arriving at this frame."""
        kind = self.spec.kind
        if kind == "size":
            weight = self._script_u64(event, meta, ctx) if self.spec.script else 1
            total = self.count + weight
            if total >= self.spec.amount:
                self.count = total - self.spec.amount
                return True, True
            self.count = total
            return False, False
        if kind == "interval":
            now = self._script_u64(event, meta, ctx) if self.spec.script else ctx.ingest_ns
            if self.next_ns is None:
                self.next_ns = now + self.spec.amount
                return False, False
            if self.next_ns <= now:
                self.next_ns = now + self.spec.amount
                return True, False
            return False, False
        return self._state_reply(event, meta, ctx)

    def on_tick(self, now: int, ctx: EventContext) -> bool:
        """Whether a tick at ``now`` closes this (first) frame."""
        kind = self.spec.kind
        if kind == "interval" and self.spec.script is None:
            if self.next_ns is None or (self.next_ns > now and now != END_OF_INPUT):
                return False
            self.next_ns = now + self.spec.amount
            return True
        if kind == "state" and self.spec.tick_script is not None:
            emit, _ = self._reply(self.spec.tick_script, self.spec.tick_reply_span, None, {}, ctx)
            return emit
        return False

    def _script_u64(self, event: Any, meta: Any, ctx: EventContext) -> int:
        assert self.spec.script is not None
        value, _ = self.spec.script.run(event, meta, None, ctx)
        if type(value) is int and value >= 0:
            return value
        raise RenderedError("Error: Data based window didn't provide a valid value")

    def _state_reply(self, event: Any, meta: Any, ctx: EventContext) -> tuple[bool, bool]:
        assert self.spec.script is not None
        return self._reply(self.spec.script, self.spec.reply_span, event, meta, ctx)

    def _reply(
        self, script: Code, span: tuple[int, int], event: Any, meta: Any, ctx: EventContext
    ) -> tuple[bool, bool]:
        dropped, reply, self.state = script.reply(event, meta, self.state, ctx)
        if dropped:
            raise script.fail("State based window didn't provide a boolean return", span)
        if type(reply) is bool:
            return reply, reply
        if type(reply) is list and all(type(b) is bool for b in reply):
            if len(reply) == 2:
                return reply[0], reply[1]
            raise script.fail(
                "An array as return value needs to be a two-element array of booleans with "
                "the form `[emit, include]`",
                span,
            )
        raise script.fail(
            f"Window returned `{encode_json(reply)}` this can't be used as a window reply", span
        )


def new_frames(specs: tuple[WindowSpec, ...], aggr_paths: tuple[str, ...]) -> list[Any]:
    """A fresh chain of frames for a new group (an extension window stands alone)."""
    if specs[0].kind in EXT_KINDS:
        return [new_ext_window(specs[0], aggr_paths)]
    return [Frame(spec, aggr_paths) for spec in specs]


class Sink:
    """What a frame chain needs from its select: argument values and the emission callback."""

    def aggr_args(self, frame: Frame) -> list[list[Any]]:
        """One list of argument values per aggregate of ``frame``, in order."""
        raise NotImplementedError

    def emit(self, frame: Frame) -> None:
        raise NotImplementedError

    def late(self, record: dict[str, Any]) -> None:
        """A late event (extension windows): ``record`` names the window and watermark."""
        raise NotImplementedError


def _record(frame: Frame, sink: Sink, prev: tuple[bool, list[Aggregate]] | None) -> None:
    if prev is None:
        for aggr, args in zip(frame.aggrs, sink.aggr_args(frame), strict=False):
            aggr.accumulate(args)
        frame.holds_data = True
    elif prev[0]:
        for aggr, other in zip(frame.aggrs, prev[1], strict=False):
            aggr.merge(other)
        frame.holds_data = True


def run_frames(
    frames: list[Frame],
    index: int,
    event: Any,
    meta: Any,
    ctx: EventContext,
    sink: Sink,
    prev: tuple[bool, list[Aggregate]] | None = None,
    can_remove: bool = True,
) -> bool:
    """Feed the event to ``frames[index]`` (and up the chain on emission); True when the group
    holds no data any more and may be removed."""
    frame = frames[index]
    if isinstance(frame, ExtWindow):
        frame.on_event(event, meta, ctx, sink)
        return False
    spec = frame.spec
    if prev is None and spec.kind == "size" and spec.script is None:
        total = frame.count + 1  # :meth:`Frame.trigger` of a size window, one event
        if total < spec.amount:  # it stays open: the event only counts
            frame.count = total
            _record(frame, sink, None)
            return False
    emit, include = frame.trigger(event, meta, ctx)
    if include:
        _record(frame, sink, prev)
    if emit:
        if frame.holds_data:
            sink.emit(frame)
        if index + 1 < len(frames):
            handed = (frame.holds_data, frame.aggrs)
            can_remove = can_remove and run_frames(
                frames, index + 1, event, meta, ctx, sink, handed, can_remove
            )
        frame.reset()
    if include:
        return can_remove
    _record(frame, sink, prev)
    return False


def tick_frames(frames: list[Frame], now: int, ctx: EventContext, sink: Sink) -> bool:
    """A tick at ``now`` for one group's chain (the sink's current event is the tick's: payload
    null, meta ``{}``); True when the group holds no data any more and may be removed."""
    frame = frames[0]
    if isinstance(frame, ExtWindow):
        frame.on_tick(now, sink)
        return False
    if not frame.on_tick(now, ctx):
        return False
    if frame.holds_data:
        sink.emit(frame)
    can_remove = True
    if len(frames) > 1:
        handed = (frame.holds_data, frame.aggrs)
        can_remove = run_frames(frames, 1, None, {}, ctx, sink, handed)
    frame.reset()
    return can_remove
