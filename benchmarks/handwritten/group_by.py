"""`select event from in group by event.application into out`: with no window, a grouped
select emits every event once (the group only keys window state)."""

from __future__ import annotations

from handwritten.passthrough import run

__all__ = ["run"]
