"""`real-workflow-throughput-json`: the script classifies each event into metadata (`$class`,
`$rate`, `$dimension(s)`) for a `grouper::bucket` rate limiter and emits the event unchanged;
the bucket's `out` and `overflow` ports both go to `out`, so every event reaches `out` exactly
once, unchanged, whatever its class. The metadata never reaches the output, so a Spark user
writes the typed pass-through (the classification would be columns Spark prunes)."""

from __future__ import annotations

from handwritten.passthrough import run

__all__ = ["run"]
