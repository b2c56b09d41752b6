"""The ``exit`` and ``null`` connectors.

``exit``: the run stops at the first event that reaches it (its ``delay``/``graceful`` fields
are accepted and ignored: a batch job has nothing left to drain). ``null``: a source of no events
and a sink that discards everything.
"""

from __future__ import annotations

from typing import Any

from .base import ConnectorSpec, RunContext, rows_frame


class ExitSink:
    """Stops the flow run."""

    stops = True

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec

    def open(self, ctx: RunContext) -> None:
        """Nothing to open."""

    def write(self, port: str, value: Any) -> None:
        """Nothing to write: the runner stops after this call."""

    def close(self) -> None:
        """Nothing to close."""


class NullConnector:
    """Produces nothing, swallows everything."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec

    def read(self, spark: Any, ctx: RunContext) -> Any:
        return rows_frame(spark, [])

    def open(self, ctx: RunContext) -> None:
        """Nothing to open."""

    def write(self, port: str, value: Any) -> None:
        """Discard."""

    def close(self) -> None:
        """Nothing to close."""
