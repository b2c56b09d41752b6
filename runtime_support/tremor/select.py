"""The trickle ``select`` operator: where → group by → windows → target → having.

Expressions are generated entries wrapped in :class:`~runtime_support.tremor.windows.Code`. The
target of a windowed select reads aggregate results through ``state`` (the compiler rewrites
``aggr::…(x)`` call *i* into ``state[i]``; user ``state`` is ``null`` in a select anyway).
Errors of where/group/target/having/windows abort the event: they leave on port ``error`` as
``{"error": <rendered text>, "event": <payload>}`` (never on ``out``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.context import EventContext
from runtime_support.tremor.errors import RenderedError
from runtime_support.tremor.graph import Event, Failure, Output
from runtime_support.tremor.jsonio import canonical_json
from runtime_support.tremor.values import type_name
from runtime_support.tremor.windows import (
    Code,
    Frame,
    Sink,
    WindowSpec,
    new_frames,
    run_frames,
    tick_frames,
)

__all__ = ["GroupSpec", "SelectOperator", "SelectSpec", "select_keys", "select_operator"]

NO_GROUP = [None, "[null]"]


@dataclass(frozen=True)
class GroupSpec:
    """``group by``: ``kind`` is ``expr``/``each`` (with ``code``) or ``set`` (with ``items``)."""

    kind: str
    code: Code | None = None
    items: tuple[GroupSpec, ...] = ()


@dataclass(frozen=True)
class SelectSpec:
    """Everything a select needs; ``aggr_args`` evaluates all aggregate arguments of one event
    as a list of lists (one per aggregate, in ``aggregates`` order); ``error_spans`` (the
    statement and its ``group by``, else the statement twice) locate the max_groups error."""

    target: Code
    where: Code | None = None
    having: Code | None = None
    group: GroupSpec | None = None
    windows: tuple[WindowSpec, ...] = ()
    aggregates: tuple[str, ...] = ()
    aggr_args: Code | None = None
    args: Any = None
    error_spans: tuple[tuple[int, int], tuple[int, int]] | None = None  # select, group by
    group_key: bool = True  # False: nothing reads the group's canonical JSON key (no windows)
    target_is_event: bool = False  # the target is exactly ``event``: each group emits it as is
    group_field: str | None = None  # windowed, grouped by this top-level field alone


def _bool(value: Any, code: Code, what: str) -> bool:
    if type(value) is bool:
        return value
    raise RenderedError(f"Error: {what} must evaluate to a bool, got {type_name(value)}")


def _components(spec: GroupSpec, event: Any, meta: Any, ctx: EventContext) -> list[list[Any]]:
    """The group component lists a ``group by`` yields for one event (cartesian product)."""
    if spec.kind == "set":
        parts = [_components(item, event, meta, ctx) for item in spec.items]
        return [sum(combo, []) for combo in itertools.product(*parts)]
    assert spec.code is not None
    value, _ = spec.code.run(event, meta, None, ctx)
    if spec.kind == "expr":
        return [[value]]
    if type(value) is not list:
        raise RenderedError(f"Error: Conflicting types, got {type_name(value)} but expected array")
    return [[item] for item in value]


def group_values(
    spec: GroupSpec | None, event: Any, meta: Any, ctx: EventContext, key: bool = True
) -> list[list[Any]]:
    """Every ``group`` value (components plus canonical JSON key; without ``key`` the key is
    None: for a select nothing reads it from) for one event's value and ``$``."""
    if spec is None:
        return [list(NO_GROUP)]
    if spec.kind == "set" and len(spec.items) == 1 and spec.items[0].kind == "expr":
        spec = spec.items[0]  # ``set(x)``: one group of one component, as ``x``
    if spec.kind == "expr":  # one group of one component (:func:`_components`' first case)
        value, _ = spec.code.run(event, meta, None, ctx)  # type: ignore[union-attr]
        return [[value, canonical_json([value]) if key else None]]
    found = _components(spec, event, meta, ctx)
    return [comps + [canonical_json(comps) if key else None] for comps in found]


def group_count(spec: GroupSpec | None, event: Any, meta: Any, ctx: EventContext) -> int:
    """How many groups :func:`group_values` yields for one event, with the same clause runs
    in the same order (so the same error, if any), without building them."""
    if spec is None:
        return 1
    if spec.kind == "set":
        count = 1
        for item in spec.items:
            count *= group_count(item, event, meta, ctx)
        return count
    value, _ = spec.code.run(event, meta, None, ctx)  # type: ignore[union-attr]
    if spec.kind == "expr":
        return 1
    if type(value) is not list:
        raise RenderedError(f"Error: Conflicting types, got {type_name(value)} but expected array")
    return len(value)


class _Group:
    __slots__ = ("value", "frames")

    def __init__(self, value: list[Any], frames: list[Frame]) -> None:
        self.value = value
        self.frames = frames


def _passing_groups(spec: SelectSpec, event: Event, ctx: EventContext) -> list[list[Any]]:
    """The front half of a select: ``where``, then every group the event belongs to, in
    ``group by`` order (``[]``: filtered out); both clauses run with ``ctx`` (a clause only
    reads it). Raises :class:`RenderedError`."""
    if spec.where is not None:
        ok, _ = spec.where.run(event.value, event.meta, None, ctx)
        if not _bool(ok, spec.where, "where clause"):
            return []
    return group_values(spec.group, event.value, event.meta, ctx, spec.group_key)


def _failure(err: RenderedError, event: Event) -> Failure:
    """The select's failure for ``event``: ``{"error": <rendered>, "event": <payload>}``."""
    error = {"error": err.text, "event": event.value}
    return Failure(error, event.meta, event.ingest_ns, event.origin_uri)


_ABSENT: Any = object()
_KEYS_CTX = EventContext()
""":func:`select_keys`' context: its other fields keep their defaults (nothing sets them)."""


_STRING_KEYS: dict[str, str] = {}
"""``canonical_json([s])`` of the string groups seen lately (at most :data:`STRING_KEYS_KEPT`:
a key is a pure function of its string, so forgetting them all costs only their encoding)."""
STRING_KEYS_KEPT = 4096


def _string_key(value: str) -> str:
    """The key of the group whose one component is the string ``value``."""
    key = _STRING_KEYS.get(value)
    if key is None:
        if len(_STRING_KEYS) >= STRING_KEYS_KEPT:
            _STRING_KEYS.clear()
        key = _STRING_KEYS[value] = canonical_json([value])
    return key


def select_keys(spec: SelectSpec, event: Event) -> list[tuple[str, list[Any]]] | Failure:
    """:func:`_passing_groups` before the shuffle of a keyed stage, as ``(key, group)`` pairs;
    an error is the select's :class:`Failure`, as :meth:`SelectOperator.process` gives it. A
    select grouped by one top-level field (``group_field``, no ``where``) reads that field of a
    record itself: what its group code returns there, without running it."""

    field = spec.group_field
    if field is not None and spec.where is None:
        # ``group by event.f``: its group code reads the field of a record, as here; any other
        # event (no record, no field) takes the general path, which names the error
        value = event.value
        if type(value) is dict:
            found = value.get(field, _ABSENT)
            if found is not _ABSENT:
                key = _string_key(found) if type(found) is str else canonical_json([found])
                return [(key, [found, key])]
    ctx = _KEYS_CTX  # one for every call: a clause only reads it, none keeps it
    ctx.ingest_ns, ctx.origin_uri, ctx.args = event.ingest_ns, event.origin_uri, spec.args
    try:
        return [(group[-1], group) for group in _passing_groups(spec, event, ctx)]
    except RenderedError as err:
        return _failure(err, event)


class SelectOperator(Sink):
    """A live select: groups keyed by their canonical JSON, each with its tilt-frame chain.

    In a keyed stage (hash-partitioned by group) :meth:`process_keyed` takes one event for one
    group that :func:`select_keys` computed before the shuffle, with its position
    ``(seq, *path)`` in Tremor's order; :meth:`tick_keyed` flushes per group, tagged with the
    position that created the group, so ticks merge across partitions in creation order.
    """

    def __init__(self, spec: SelectSpec) -> None:
        self.spec = spec
        self.groups: dict[str, _Group] = {}
        self.created: dict[str, tuple[int, ...]] = {}
        limits = [w.max_groups for w in spec.windows if w.max_groups is not None]
        self.max_groups = min(limits) if limits else None
        self._event: Event | None = None
        self._ctx: EventContext | None = None
        self._out: list[Output] = []
        if not spec.windows:
            self.process = self._stateless  # type: ignore[method-assign]
            self._plain_ctx = EventContext(args=spec.args)  # :meth:`emitted`'s, one at a time
        else:
            self._event_ctx = self._ctx_for(Event(None, {}, 0))  # :meth:`_windowed`'s

    def process(self, port: str, event: Event) -> list[Output]:
        self._out = []
        try:
            self._process(event)
        except RenderedError as err:
            # Tremor discards the event's partial outputs on error
            self._out = [("error", _failure(err, event))]
        return self._out

    def _stateless(self, port: str, event: Event) -> list[Output]:
        """:meth:`process` of a select without windows: :meth:`emitted` as outputs."""
        ns, origin = event.ingest_ns, event.origin_uri
        emitted = self.emitted(event.value, event.meta, ns, origin)
        if type(emitted) is Failure:
            return [("error", emitted)]
        meta = event.meta
        return [("out", Event(value, meta, ns, origin)) for value in emitted]  # type: ignore

    def emitted(self, value: Any, meta: Any, ingest_ns: int, origin: Any) -> list[Any] | Failure:
        """The values a select without windows (it keeps no state) emits on ``out`` for one
        event, in order, or its :class:`Failure` (Tremor discards the event's partial outputs
        on error). One context serves every clause; its group is set for the target (a clause
        only reads it, and none keeps it past its event)."""
        spec = self.spec
        ctx = self._plain_ctx
        ctx.ingest_ns, ctx.origin_uri, ctx.group = ingest_ns, origin, None
        out: list[Any] = []
        try:
            if spec.where is not None:
                ok, _ = spec.where.run(value, meta, None, ctx)
                if not _bool(ok, spec.where, "where clause"):
                    return out
            target, having = spec.target, spec.having
            if spec.target_is_event and having is None:
                return [value] * group_count(spec.group, value, meta, ctx)  # one per group
            groups = group_values(spec.group, value, meta, ctx, spec.group_key)
            for group in groups:
                ctx.group = group
                result, _ = target.run(value, meta, None, ctx)
                if having is not None:
                    ok, _ = having.run(result, meta, None, ctx)
                    if not _bool(ok, having, "having clause"):
                        continue
                out.append(result)
        except RenderedError as err:
            return _failure(err, Event(value, meta, ingest_ns, origin))
        return out

    def process_keyed(
        self, port: str, event: Event, group: list[Any], position: tuple[int, ...]
    ) -> list[Output]:
        """:meth:`process` for one group of the event (``where`` already passed)."""
        self._out = []
        try:
            self._windowed(event, group, position)
        except RenderedError as err:
            self._out = [("error", _failure(err, event))]
        return self._out

    def tick(self, now: int) -> list[Output]:
        """Tremor's tick rule: per group (in creation order) the first window decides; an
        emission runs the target with ``event`` null, ``$`` ``{}``, ``args`` null."""
        return [out for _, outs in self.tick_keyed(now) for out in outs]

    def tick_keyed(self, now: int) -> list[tuple[tuple[int, ...], list[Output]]]:
        """:meth:`tick`, one ``(creation position, outputs)`` per group, in creation order."""
        flushed: list[tuple[tuple[int, ...], list[Output]]] = []
        if not self.spec.windows:
            return flushed
        tick = Event(None, {}, now)
        for key, live in list(self.groups.items()):
            ctx = EventContext(ingest_ns=now, group=live.value, cardinality=len(self.groups))
            self._event, self._ctx, self._out = tick, ctx, []
            position = self.created.get(key, ())
            try:
                if tick_frames(live.frames, now, ctx, self):
                    self._drop(key)
            except RenderedError as err:
                error = {"error": err.text, "event": None}
                self._out.append(("error", Failure(error, {}, now)))
            flushed.append((position, self._out))
        self._out = []
        return flushed

    def _ctx_for(self, event: Event, group: Any = None, window: Any = None) -> EventContext:
        return EventContext(
            ingest_ns=event.ingest_ns,
            origin_uri=event.origin_uri,
            args=self.spec.args,
            group=group,
            window=window,
            cardinality=len(self.groups),
        )

    def _process(self, event: Event) -> None:
        """A windowed select's event (without windows :meth:`_stateless` runs instead)."""
        for group in _passing_groups(self.spec, event, self._ctx_for(event)):
            self._windowed(event, group)

    def _windowed(self, event: Event, group: list[Any], position: tuple[int, ...] = ()) -> None:
        """Tremor's order: a new group first takes the event; only if it then stays open is the
        group limit checked (the error aborts the event, the group is not kept)."""
        key = group[-1]
        live = self.groups.get(key)
        ctx = self._event_ctx  # one per operator: nothing keeps it past its event
        ctx.ingest_ns, ctx.origin_uri, ctx.group = event.ingest_ns, event.origin_uri, group
        ctx.window, ctx.cardinality = None, len(self.groups)
        self._event, self._ctx = event, ctx
        if live is not None:
            if run_frames(live.frames, 0, event.value, event.meta, ctx, self):
                self._drop(key)
            return
        live = _Group(group, new_frames(self.spec.windows, self.spec.aggregates))
        if run_frames(live.frames, 0, event.value, event.meta, ctx, self):
            return
        if self.max_groups is not None and len(self.groups) >= self.max_groups:
            raise self._too_many_groups()
        self.groups[key] = live
        self.created[key] = position

    def _drop(self, key: str) -> None:
        """Forget a group whose windows all emptied (it is created anew on its next event)."""
        self.groups.pop(key, None)
        self.created.pop(key, None)

    def _too_many_groups(self) -> RenderedError:
        """Tremor's words (its typo and its group number, ``max_groups + 1``, included)."""
        from runtime_support.tremor.highlight import render

        message = (
            f"Maxmimum amount of groups reached ({self.max_groups}). "
            f"Ignoring group [{self.max_groups + 1}]"
        )
        if self.spec.error_spans is None:
            return RenderedError(f"Error: {message}")
        outer, inner = self.spec.error_spans
        return RenderedError(
            render(self.spec.target.source, inner=inner, outer=outer, message=message)
        )

    # Sink protocol (called by the frame chain) -----------------------------------------------

    def aggr_args(self, frame: Frame) -> list[list[Any]]:
        assert self._event is not None and self._ctx is not None and self.spec.aggr_args
        event, ctx = self._event, self._ctx
        ctx.window = frame.spec.name
        values, _ = self.spec.aggr_args.run(event.value, event.meta, None, ctx)
        return values  # one fresh list of arguments per aggregate (they only index it)

    def emit(self, frame: Frame) -> None:
        assert self._event is not None and self._ctx is not None
        results = [aggr.emit() for aggr in frame.aggrs]
        ctx = self._ctx
        ctx.window = frame.spec.name
        self._emit_target(self._event, ctx, results)

    def late(self, record: dict[str, Any]) -> None:
        """A late event leaves on ``late`` with its payload (docs/extensions.md)."""
        assert self._event is not None
        event = self._event
        value = {**record, "event": event.value}
        self._out.append(("late", Event(value, event.meta, event.ingest_ns, event.origin_uri)))

    def _emit_target(self, event: Event, ctx: EventContext, aggrs: list[Any] | None) -> None:
        spec = self.spec
        value, _ = spec.target.run(event.value, event.meta, aggrs, ctx)
        if spec.having is not None:
            ok, _ = spec.having.run(value, event.meta, None, ctx)
            if not _bool(ok, spec.having, "having clause"):
                return
        self._out.append(("out", Event(value, event.meta, event.ingest_ns, event.origin_uri)))


def select_operator(spec: SelectSpec) -> SelectOperator:
    """Factory used by generated jobs (``partial(select_operator, SPEC)``)."""
    return SelectOperator(spec)
