"""Per-event context handed to generated scripts and to std-lib functions that need it.

>>> ctx = EventContext(ingest_ns=3)
>>> (ctx.ingest_ns, ctx.recursion_limit, ctx.instance, ctx.args)
(3, 1024, 'tremor', None)
"""

from __future__ import annotations

from typing import Any

__all__ = ["EventContext"]


class EventContext:
    """What a script can see besides event, meta and state.

    Attributes:
        ingest_ns: the event's ingest timestamp (u64 nanoseconds).
        origin_uri: the origin URI as a string, or None when the event has no origin.
        args: script/query args (``null`` in a standalone script).
        group: the select's group array, or None outside a select.
        window: name of the emitting window, or None.
        recursion_limit: maximal number of ``recur`` steps per call.
        instance: the runtime instance name (``system::instance()``).
        cardinality: number of live groups (``win::cardinality()``).
    """

    __slots__ = (
        "ingest_ns",
        "origin_uri",
        "args",
        "group",
        "window",
        "recursion_limit",
        "instance",
        "cardinality",
    )

    def __init__(
        self,
        ingest_ns: int = 0,
        origin_uri: str | None = None,
        args: Any = None,
        group: Any = None,
        window: Any = None,
        recursion_limit: int = 1024,
        instance: str = "tremor",
        cardinality: int = 0,
    ) -> None:
        self.ingest_ns = ingest_ns
        self.origin_uri = origin_uri
        self.args = args
        self.group = group
        self.window = window
        self.recursion_limit = recursion_limit
        self.instance = instance
        self.cardinality = cardinality
