"""Flow connectors for batch Spark jobs: which builtin kinds exist and how to build them.

``build_source`` / ``build_sink`` turn a :class:`ConnectorSpec` into a source or sink object;
the tables ``SOURCES`` / ``SINKS`` map each supported kind to its implementation (the compiler's
registry has already rejected every other kind).
"""

from __future__ import annotations

from typing import Any

from runtime_support.connectors.base import ConnectorSpec, InputPathError, RunContext, Sink, Source, check_readable

__all__ = [
    "ConnectorSpec",
    "InputPathError",
    "RunContext",
    "SINKS",
    "SOURCES",
    "Sink",
    "Source",
    "build_sink",
    "build_source",
    "check_inputs",
    "check_readable",
    "input_paths",
    "jar_conf",
]

#: Names served by :mod:`.kinds`, imported on first use (it imports every connector).
_KINDS = frozenset({"SINKS", "SOURCES", "build_sink", "build_source", "check_inputs",
                    "input_paths", "jar_conf"})  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _KINDS:
        from runtime_support.connectors import kinds

        return getattr(kinds, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
