"""Window kinds (``define window w from <kind> with … end``, TREMOR.md §2.3).

Invariant: ``tumbling`` is the one kind Tremor implements (``sliding`` parses, and Tremor
itself rejects it: "Sliding windows are not yet implemented"). Exactly one of ``size``,
``interval`` or a ``state`` clause is checked where the window is instantiated.
"""

from __future__ import annotations

from .common import Entry, Key, Registry

WINDOWS = Registry(
    "window kind",
    (
        Entry(
            name="tumbling",
            keys=(
                Key(name="size", type="unsigned", doc="events (or script weight) per window"),
                Key(name="interval", type="unsigned", doc="ns of ingest time per window"),
                Key(name="max_groups", type="unsigned", doc="limit of live groups"),
            ),
            scope="keyed",
            keyed_by="group by",
            factory="runtime_support.windows.Frame",
            doc="size, interval or state windows",
        ),
        Entry(
            name="sliding",
            supported=False,
            reason="Sliding windows are not yet implemented (in Tremor either)",
        ),
    ),
)
