"""The ``exit`` and ``null`` connectors.

``exit``: the run stops at the first event that reaches it: the runner finds that event's
position and writes to every sink only the events before it (its ``delay``/``graceful`` fields
are accepted and ignored: a batch job has nothing left to drain). ``null``: a source of no events
and a sink that discards everything (nothing is computed for it).
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, rows_frame


class ExitSink:
    """Stops the flow run (see :func:`runtime_support.flows.batch.run_flow`); receives nothing."""

    stops = True

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec


class NullConnector:
    """Produces nothing, swallows everything."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec

    def read(self, spark: Any, ctx: RunContext) -> Any:
        return rows_frame(spark, [])

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Discard: the frame is never computed."""
