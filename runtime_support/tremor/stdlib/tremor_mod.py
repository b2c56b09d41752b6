"""``tremor::*``: system, origin, chash, windows and mime."""

from __future__ import annotations

import socket
import time
from typing import Any

from runtime_support.tremor.jsonio import canonical_json
from runtime_support.tremor.origin import decode_origin, origin_string
from runtime_support.tremor.stdlib import chash as _chash
from runtime_support.tremor.stdlib._table import constant, native, want_int, want_str

VERSION = "0.13.0-rc.33"
# 'tremor\0\0' and '\0\0tremor' as little-endian integers.
_K1, _K2 = 8_390_880_576_440_238_080, 128_034_676_764_530

constant("tremor::windows::EMIT_AND_INCLUDE", [True, True])
constant("tremor::windows::EMIT_AND_EXCLUDE", [True, False])
constant("tremor::windows::DONT_EMIT", False)
constant("tremor::mime::ANY", "*/*")
constant("tremor::mime::AMY", "*/*")


@native("tremor::system::hostname", 0, const=False)
def hostname() -> str:
    """The machine's host name."""
    return socket.gethostname()


@native("tremor::system::ingest_ns", 0, const=False, needs_ctx=True)
def ingest_ns(ctx: Any) -> int:
    """The current event's ingest timestamp."""
    return int(getattr(ctx, "ingest_ns", 0) or 0)


@native("tremor::system::instance", 0, const=False, needs_ctx=True)
def instance(ctx: Any) -> str:
    """The runtime instance name (``"tremor"``)."""
    return str(getattr(ctx, "instance", "tremor"))


@native("tremor::system::nanotime", 0, const=False)
def nanotime() -> int:
    """Wall-clock nanoseconds since the epoch."""
    return time.time_ns()


@native("tremor::system::version", 0)
def version() -> str:
    """The Tremor version this compiler targets."""
    return VERSION


def _origin(ctx: Any) -> dict | None:
    return decode_origin(getattr(ctx, "origin_uri", None))


def _origin_field(name: str) -> None:
    @native(f"tremor::origin::{name}", 0, const=False, needs_ctx=True)
    def impl(ctx: Any) -> Any:
        rec = _origin(ctx)
        return None if rec is None else rec.get(name)

    impl.__doc__ = f"The event origin's {name} (``null`` without origin)."


for _field in ("scheme", "host", "port", "path"):
    _origin_field(_field)


@native("tremor::origin::as_uri_record", 0, const=False, needs_ctx=True)
def as_uri_record(ctx: Any) -> dict | None:
    """``{scheme, host, port, path}`` of the event origin, or ``null``."""
    return _origin(ctx)


@native("tremor::origin::as_uri_string", 0, const=False, needs_ctx=True)
def as_uri_string(ctx: Any) -> str | None:
    """The event origin as a URI string, or ``null``."""
    rec = _origin(ctx)
    return None if rec is None else origin_string(rec)


def _slot_count(n: Any) -> int:
    return want_int(n) & 0xFFFFFFFF  # Rust `as u32`


@native("tremor::chash::jump", 2)
def jump(key: Any, slots: Any) -> int:
    """Jump-consistent-hash slot of ``key`` with Tremor's fixed SipHash keys.

    >>> jump("snot", 9), jump("badger", 9)
    (8, 2)
    """
    return _chash.slot(_K1, _K2, want_str(key), _slot_count(slots))


@native("tremor::chash::jump_with_keys", 4)
def jump_with_keys(k1: Any, k2: Any, key: Any, slots: Any) -> int:
    """Jump-consistent-hash slot of ``key`` with SipHash keys ``k1``, ``k2``.

    >>> jump_with_keys(8, 2, "badger", 9)
    3
    """
    mask = (1 << 64) - 1
    k1, k2 = want_int(k1) & mask, want_int(k2) & mask
    return _chash.slot(k1, k2, want_str(key), _slot_count(slots))


@native("tremor::chash::sorted_serialize", 1)
def sorted_serialize(v: Any) -> str:
    """Compact JSON with record keys sorted.

    >>> sorted_serialize({"1": [2, 1], "0": {"5": 0, "3": 4}})
    '{"0":{"3":4,"5":0},"1":[2,1]}'
    """
    return canonical_json(v)
