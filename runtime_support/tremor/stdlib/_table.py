"""The mutable tables that std modules fill at import time, and the helpers they share.

Each std module registers its functions with :func:`native` (or :func:`tremor_fn` for functions
Tremor itself writes in tremor-script) and its constants with :func:`constant`. Implementations
signal failures with :class:`BadType` or :class:`FnError`; :func:`registry.call` turns them into
``TremorError`` with Tremor's message naming the function by its last two path segments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.values import I64_MAX, I64_MIN

__all__ = [
    "BadType",
    "CONSTANTS",
    "FUNCTIONS",
    "FnError",
    "Function",
    "IMPURE",
    "IMPURE_MODULES",
    "aggregate",
    "constant",
    "native",
    "tremor_fn",
    "want_array",
    "want_bytes",
    "want_int",
    "want_record",
    "want_str",
    "want_uint",
]


@dataclass(frozen=True)
class Function:
    """One std-library function.

    Attributes:
        name: fully qualified path, e.g. ``"std::math::max"``.
        min_arity: fewest arguments accepted.
        max_arity: most arguments accepted, ``None`` when variadic.
        const: may be folded at compile time when all arguments are literals.
        impl: the Python implementation; called ``impl(*args)`` or ``impl(ctx, *args)``.
        needs_ctx: ``impl`` takes the event context as first argument.
        aggregate: a trickle aggregate (``aggr::*``); ``impl`` is ``None`` until trickle lands.
        native: Tremor implements it in Rust (False: written in tremor-script upstream).
        lowering: the exact native Spark lowering (``native_base.Lowering``: a builder from
            argument VARIANT Columns to a result Column plus a guard Column saying where the
            result is exact), or ``None`` when the function only runs in Python.
        fallback: why there is no lowering (shown in docs/stdlib.md); empty when lowered.
        returns: the Tremor type name(s) of the result where known (``"integer"``,
            ``"bool|null"``…), else ``None``.
        pure: the result depends on the arguments alone (set from :data:`IMPURE` and
            :data:`IMPURE_MODULES` at registration). Only pure functions run at build time; an
            impure one (clock, host, randomness, the event) never does, and every ``const``
            function is pure.
    """

    name: str
    min_arity: int
    max_arity: int | None
    const: bool
    impl: Callable[..., Any] | None
    needs_ctx: bool = False
    aggregate: bool = False
    native: bool = True
    lowering: Any = None
    fallback: str = ""
    returns: str | None = None
    pure: bool = True

    @property
    def short_name(self) -> str:
        """The last two path segments, as Tremor's error messages print them (``math::max``)."""
        return "::".join(self.name.split("::")[-2:])


class BadType(Exception):
    """An argument has the wrong type: ``Bad type passed to function m::f/n``."""


class FnError(Exception):
    """A runtime failure inside a function: ``Runtime error in function m::f/n: <message>``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


FUNCTIONS: dict[str, Function] = {}
CONSTANTS: dict[str, Any] = {}

#: Functions whose result depends on more than their arguments: the clock, the host, the
#: running instance or the event being processed. Never evaluated at build time.
IMPURE = frozenset(
    {
        "tremor::system::hostname",
        "tremor::system::nanotime",
        "tremor::system::ingest_ns",
        "tremor::system::instance",
        "std::win::cardinality",
    }
)
#: Modules all of whose functions are impure (randomness; the event's origin).
IMPURE_MODULES = ("std::random", "tremor::origin")


def _register(fn: Function) -> None:
    if fn.name in FUNCTIONS:
        raise ValueError(f"duplicate std function {fn.name}")
    module = fn.name.rsplit("::", 1)[0]
    pure = fn.name not in IMPURE and module not in IMPURE_MODULES
    FUNCTIONS[fn.name] = dataclasses.replace(fn, pure=pure)


def native(
    path: str,
    arity: int | tuple[int, int | None],
    *,
    const: bool = True,
    needs_ctx: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering a Rust-native std function under the fully qualified ``path``."""
    lo, hi = (arity, arity) if isinstance(arity, int) else arity

    def deco(impl: Callable[..., Any]) -> Callable[..., Any]:
        _register(Function(path, lo, hi, const, impl, needs_ctx))
        return impl

    return deco


def tremor_fn(
    path: str, arity: int | tuple[int, int | None]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for functions Tremor defines in tremor-script (never folded upstream)."""
    lo, hi = (arity, arity) if isinstance(arity, int) else arity

    def deco(impl: Callable[..., Any]) -> Callable[..., Any]:
        _register(Function(path, lo, hi, False, impl, native=False))
        return impl

    return deco


def aggregate(path: str, lo: int, hi: int) -> None:
    """Register a trickle aggregate's signature (its implementation lives with trickle)."""
    _register(Function(path, lo, hi, False, None, aggregate=True))


def constant(path: str, value: Any) -> None:
    """Register a module constant under its fully qualified ``path``."""
    if path in CONSTANTS:
        raise ValueError(f"duplicate std constant {path}")
    CONSTANTS[path] = value


def want_str(v: Any) -> str:
    """``v`` if it is a string, else :class:`BadType`."""
    if type(v) is not str:
        raise BadType()
    return v


def want_int(v: Any) -> int:
    """``v`` if it is an integer in i64 range (Rust ``as_i64``), else :class:`BadType`."""
    if type(v) is not int or not I64_MIN <= v <= I64_MAX:
        raise BadType()
    return v


def want_uint(v: Any) -> int:
    """``v`` if it is a non-negative integer (Rust ``as_u64``), else :class:`BadType`."""
    if type(v) is not int or v < 0:
        raise BadType()
    return v


def want_array(v: Any) -> list:
    """``v`` if it is an array, else :class:`BadType`."""
    if type(v) is not list:
        raise BadType()
    return v


def want_record(v: Any) -> dict:
    """``v`` if it is a record, else :class:`BadType`."""
    if type(v) is not dict:
        raise BadType()
    return v


def want_bytes(v: Any) -> bytes:
    """``v`` if it is a binary, else :class:`BadType`."""
    if type(v) is not bytes:
        raise BadType()
    return v
