"""Tremor's standard library: the registry of functions and constants (see :mod:`.registry`)."""

from runtime_support.stdlib.registry import (
    Function,
    call,
    constant,
    constants,
    functions,
    has_constant,
    lookup,
    module_exists,
)

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
