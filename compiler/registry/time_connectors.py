"""``crononome`` (``runtime_support.io.connectors.crononome``): its config key and the check of its
cron entries at compile time.

Invariant: an ``entries`` value the runtime would reject (an expression Tremor's cron crate
rejects, a malformed entry) is a CompileError at the ``entries`` key.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key

RT = "runtime_support.io.connectors.crononome."

ENTRIES = (
    "`[{name, expr, payload}]`: `expr` as Tremor's cron crate reads it (`sec min hour "
    "day-of-month month day-of-week [year]`, days of the week 1-7 from Sunday, both day fields "
    "must match; or @yearly/@monthly/@weekly/@daily/@hourly), in UTC; run by croniter"
)
CRONONOME = Entry(
    name="crononome",
    keys=(Key(name="entries", type="array", doc=ENTRIES),),
    factory=RT + "CrononomeSource",
    ports=("out", "err"),
    doc="source: `{trigger: {name, payload}}` per firing; batch: the first `--ticks` firings "
    "(default 10), computed; stream: up to the wall clock each micro-batch (firings while the "
    "job was down come at its restart)",
)
TIME_ENTRIES = (CRONONOME,)
TIME_SOURCE_FACTORIES = {"crononome": RT + "CrononomeSource"}


def check_crononome(config: dict[str, Any], span: Span, source: Source | None) -> None:
    """The ``entries`` parse as the runtime parses them, or a CompileError at ``span``."""
    from runtime_support.io.connectors.crononome import parse_entries

    try:
        parse_entries(config.get("entries") or [], "crononome")
    except ValueError as err:
        raise CompileError(f"Invalid cron entries: {err}", span, source=source) from None
