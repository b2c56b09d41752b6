"""The ``exit`` and ``null`` connectors.

``exit`` (Tremor's exit sink): the first event that reaches it stops the run, ``delay`` ns after
it arrived (none: at once), ``graceful`` (default true: what is in flight is written first) or
not (false: the run stops at once). The event's own ``delay`` (an unsigned integer) and
``graceful`` (a bool) fields win over the config, as in Tremor. The runners find that event
(:func:`runtime_support.flows.batch.first_exit`) and decide what each sink keeps (the batch and
stream rules are in :mod:`runtime_support.flows.batch` and :mod:`runtime_support.flows.streaming`).
``null``: a source of no events and a sink that discards everything (nothing is computed for it).
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, rows_frame


class ExitSink:
    """Stops the flow run; receives nothing. ``delay`` (ns, 0 when unset) and ``graceful`` are
    the config's (checked by the compiler's registry)."""

    stops = True

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec
        self.delay = int(spec.config.get("delay") or 0)
        self.graceful = spec.config.get("graceful", True) is not False

    def settle(self, value: Any) -> tuple[int, bool]:
        """``(delay_ns, graceful)`` for the exit ``value`` (decoded): its own ``delay`` and
        ``graceful`` fields where they have those types, else the config's."""
        delay, graceful = self.delay, self.graceful
        if isinstance(value, dict):
            own = value.get("delay")
            if isinstance(own, int) and not isinstance(own, bool) and own >= 0:
                delay = own
            if isinstance(value.get("graceful"), bool):
                graceful = value["graceful"]
        return delay, graceful


class NullConnector:
    """Produces nothing, swallows everything."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec

    def read(self, spark: Any, ctx: RunContext) -> Any:
        return rows_frame(spark, [])

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Discard: the frame is never computed."""
