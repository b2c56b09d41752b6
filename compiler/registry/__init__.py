"""One registry per kind of thing a Tremor program names: what exists, what tremorc supports.

Every registry is a :class:`~compiler.registry.common.Registry` of entries (name, config keys
with types/defaults/required-ness, state scope, supported or why not, runtime factory). The
checks in :mod:`compiler.registry.checks` and :mod:`compiler.registry.connector_checks` hold
every use in a program against them; ``tools/gen_registry_doc.py`` renders them to
``docs/registries.md``.
"""

from __future__ import annotations

from .aggregates import AGGREGATES
from .codecs import CODECS
from .common import Entry, Key, Registry
from .connectors import CONNECTORS
from .operators import OPERATORS
from .processors import POSTPROCESSORS, PREPROCESSORS
from .windows import WINDOWS

#: Every registry, in the order the docs list them.
ALL = (CONNECTORS, CODECS, PREPROCESSORS, POSTPROCESSORS, OPERATORS, WINDOWS, AGGREGATES)


__all__ = [
    "AGGREGATES",
    "ALL",
    "CODECS",
    "CONNECTORS",
    "Entry",
    "Key",
    "OPERATORS",
    "POSTPROCESSORS",
    "PREPROCESSORS",
    "Registry",
    "WINDOWS",
]
