"""Window kinds (``define window w from <kind> with … end``, TREMOR.md §2.3).

Invariant: ``tumbling`` is the one kind Tremor implements (``sliding`` parses, and Tremor
itself rejects it: "Sliding windows are not yet implemented"). ``sliding``, ``session`` and
``lateness`` (event time) are tremorc extensions (docs/extensions.md), whose docs start
with :data:`EXTENSION`. Which keys combine is checked where the window is instantiated
(:mod:`compiler.passes.window_ext`).
"""

from __future__ import annotations

from .common import Entry, Key, Registry

#: How the doc of a tremorc-only kind (or key) starts.
EXTENSION = "tremorc extension"

_MAX_GROUPS = Key(name="max_groups", type="unsigned", doc="limit of live groups")
_LATENESS = Key(
    name="lateness",
    type="unsigned",
    doc=f"{EXTENSION}: event time (needs a time `script`); ns the watermark trails the latest",
)

WINDOWS = Registry(
    "window kind",
    (
        Entry(
            name="tumbling",
            keys=(
                Key(name="size", type="unsigned", doc="events (or script weight) per window"),
                Key(name="interval", type="unsigned", doc="ns of ingest time per window"),
                _MAX_GROUPS,
                _LATENESS,
            ),
            scope="keyed",
            keyed_by="group by",
            factory="runtime_support.tremor.windows.Frame",
            doc="size, interval or state windows",
        ),
        Entry(
            name="sliding",
            keys=(
                Key(name="size", type="unsigned", doc="events per window"),
                Key(name="interval", type="unsigned", doc="ns per window"),
                Key(name="slide", type="unsigned", required=True, doc="events or ns per step"),
                _MAX_GROUPS,
                _LATENESS,
            ),
            scope="keyed",
            keyed_by="group by",
            factory="runtime_support.tremor.windows_ext.ExtWindow",
            doc=f"{EXTENSION}: overlapping windows by count or time",
        ),
        Entry(
            name="session",
            keys=(
                Key(name="gap", type="unsigned", required=True, doc="ns of silence ending it"),
                _MAX_GROUPS,
                _LATENESS,
            ),
            scope="keyed",
            keyed_by="group by",
            factory="runtime_support.tremor.windows_ext.ExtWindow",
            doc=f"{EXTENSION}: a group's activity until a gap",
        ),
    ),
)
