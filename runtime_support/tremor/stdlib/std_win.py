"""``std::win``: window introspection inside a select."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import native

M = "std::win"


@native(f"{M}::cardinality", 0, const=False, needs_ctx=True)
def cardinality(ctx: Any) -> int:
    """Number of live groups of the enclosing select (``ctx.cardinality``)."""
    return int(getattr(ctx, "cardinality", 0) or 0)
