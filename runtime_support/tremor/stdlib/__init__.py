"""Tremor's standard library: the registry of functions and constants (see :mod:`.registry`).

The registry's names are re-exported lazily: importing one std module (the extractors import
``chrono_parse``) does not register the whole library; the first use of a name below does.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Function",
    "call",
    "constant",
    "constants",
    "functions",
    "has_constant",
    "lookup",
    "module_exists",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from runtime_support.tremor.stdlib import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
