"""The ``metronome`` connector: periodic events, bounded for a batch job.

A Tremor metronome ticks forever; here it emits ``RunContext.ticks`` events (``--ticks``,
default 10), tick ``i`` being ``{"connector": "metronome", "ingest_ns": t_i, "id": i}`` with
``t_i = start + (i + 1) * interval``. A flow with an ``exit`` connector stops earlier, at the first
event that reaches it, exactly as the runtime would.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, rows_frame
from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.origin import encode_origin, hostname


class MetronomeSource:
    """Generates the ticks on the driver (they are tiny)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        interval = spec.config.get("interval")
        if type(interval) is not int or interval < 0:
            raise ValueError(
                f"Invalid config for connector `{spec.alias}`: `interval` (ns) must be a "
                "non-negative integer"
            )
        self.interval = interval

    def read(self, spark: Any, ctx: RunContext) -> Any:
        start = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        rows = []
        for i in range(ctx.ticks):
            ns = start + (i + 1) * self.interval
            value = {"connector": "metronome", "ingest_ns": ns, "id": i}
            rows.append((i, encode_json(value), ns))
        origin = encode_origin("tremor-metronome", hostname(), None, [str(self.interval)])
        return rows_frame(spark, rows, origin)
