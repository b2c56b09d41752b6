"""The std-library registry: every function and constant under its fully qualified path.

The compiler uses it to check names and arities and to fold ``const`` calls; generated jobs use
:func:`call` to run implementations with Tremor's error messages.

>>> fn = lookup("std::math::max")
>>> (fn.short_name, fn.min_arity, fn.max_arity, fn.const)
('math::max', 2, 2, True)
>>> call(fn, (1, 2.5))
2.5
>>> call(fn, ("snot", 7))
Traceback (most recent call last):
...
runtime_support.tremor.errors.TremorError: Bad type passed to function math::max/2
>>> constant("std::integer::unsigned::MAX")
18446744073709551615
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.stdlib import (  # noqa: F401  (imported to register their functions)
    aggr,
    consts_http,
    consts_otel,
    std_array,
    std_base64,
    std_binary,
    std_datetime,
    std_float,
    std_integer,
    std_json,
    std_math,
    std_path,
    std_random,
    std_range,
    std_re,
    std_record,
    std_size,
    std_string,
    std_test,
    std_time,
    std_type,
    std_url,
    std_win,
    tremor_mod,
)
from runtime_support.tremor.stdlib._table import CONSTANTS, FUNCTIONS, BadType, FnError, Function

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

_USIZE_MAX = 2**64 - 1
# Modules that hold only troy definitions (connectors, pipelines) but can still be `use`d.
_DEFINITION_MODULES = ("tremor::connectors", "tremor::pipelines", "axiom")


def _module_paths() -> frozenset[tuple[str, ...]]:
    mods: set[tuple[str, ...]] = set()
    paths = [p.rsplit("::", 1)[0] for p in (*FUNCTIONS, *CONSTANTS)]
    for path in (*paths, *_DEFINITION_MODULES):
        parts = tuple(path.split("::"))
        mods.update(parts[:i] for i in range(1, len(parts) + 1))
    return frozenset(mods)


_MODULES = _module_paths()


def lookup(path: str) -> Function | None:
    """The function at the fully qualified ``path`` (``"std::string::format"``), or ``None``."""
    return FUNCTIONS.get(path)


def functions() -> Iterator[Function]:
    """Every registered function, aggregates included, sorted by name."""
    return iter(sorted(FUNCTIONS.values(), key=lambda f: f.name))


def module_exists(path: tuple[str, ...]) -> bool:
    """True if ``path`` (e.g. ``("std", "integer", "signed")``) names a std module.

    >>> module_exists(("std", "integer", "signed")), module_exists(("std", "snot"))
    (True, False)
    """
    return tuple(path) in _MODULES


def has_constant(path: str) -> bool:
    """True if ``path`` names a module constant."""
    return path in CONSTANTS


def constant(path: str) -> Any:
    """The value of the constant at ``path``; ``KeyError`` if there is none."""
    return CONSTANTS[path]


def constants(module_path: str | tuple[str, ...]) -> dict[str, Any]:
    """The constants declared directly in a module, by short name (declaration order).

    >>> constants("tremor::windows")["EMIT_AND_EXCLUDE"]
    [True, False]
    """
    prefix = module_path if isinstance(module_path, str) else "::".join(module_path)
    out = {}
    for path, value in CONSTANTS.items():
        mod, _, name = path.rpartition("::")
        if mod == prefix:
            out[name] = value
    return out


def arity_text(fn: Function) -> str:
    """The arity as Rust's ``RangeInclusive`` debug form prints it (``1..=1``)."""
    hi = _USIZE_MAX if fn.max_arity is None else fn.max_arity
    return f"{fn.min_arity}..={hi}"


def check_arity(fn: Function, n: int, site: int = -1) -> None:
    """Raise Tremor's bad-arity error if ``fn`` cannot take ``n`` arguments."""
    if n < fn.min_arity or (fn.max_arity is not None and n > fn.max_arity):
        raise TremorError(
            f"Bad arity for function {fn.short_name}/{arity_text(fn)} "
            f"but was called with {n} arguments",
            site,
        )


def call(fn: Function, args: tuple, ctx: Any = None, site: int = -1) -> Any:
    """Run ``fn`` on ``args``; failures become ``TremorError`` with Tremor's message."""
    check_arity(fn, len(args), site)
    if fn.impl is None:
        raise TremorError(f"{fn.short_name} can only be used as an aggregate in a select", site)
    try:
        return fn.impl(ctx, *args) if fn.needs_ctx else fn.impl(*args)
    except BadType:
        raise TremorError(
            f"Bad type passed to function {fn.short_name}/{len(args)}", site
        ) from None
    except FnError as e:
        raise TremorError(
            f"Runtime error in function {fn.short_name}/{len(args)}: {e.message}", site
        ) from None
