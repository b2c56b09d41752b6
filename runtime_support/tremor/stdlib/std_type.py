"""``std::type``: type names and predicates."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import native
from runtime_support.tremor.values import I64_MAX, type_name

M = "std::type"


@native(f"{M}::as_string", 1)
def as_string(v: Any) -> str:
    """``"null" "bool" "integer" "float" "string" "array" "record" "bytes"``."""
    return type_name(v)


def _predicate(name: str, test: Any) -> None:
    @native(f"{M}::{name}", 1)
    def impl(v: Any) -> bool:
        return bool(test(v))

    impl.__doc__ = f"``type::{name}``."


_predicate("is_null", lambda v: v is None)
_predicate("is_bool", lambda v: type(v) is bool)
# (quirk) u64 values above i64::MAX are not "integers".
_predicate("is_integer", lambda v: type(v) is int and v <= I64_MAX)
_predicate("is_float", lambda v: type(v) is float)
_predicate("is_number", lambda v: type(v) in (int, float))
_predicate("is_string", lambda v: type(v) is str)
_predicate("is_array", lambda v: type(v) is list)
_predicate("is_record", lambda v: type(v) is dict)
_predicate("is_binary", lambda v: type(v) is bytes)
