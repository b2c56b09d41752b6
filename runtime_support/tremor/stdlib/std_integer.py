"""``std::integer`` (+ ``integer::signed``/``unsigned`` bounds)."""

from __future__ import annotations

import re
from typing import Any

from runtime_support.tremor.stdlib._table import FnError, constant, native, want_str
from runtime_support.tremor.values import I64_MAX, I64_MIN, U64_MAX

M = "std::integer"
_RUST_INT = re.compile(r"[+-]?[0-9]+")

constant(f"{M}::signed::MAX", I64_MAX)
constant(f"{M}::signed::MIN", I64_MIN)
constant(f"{M}::unsigned::MAX", U64_MAX)
constant(f"{M}::unsigned::MIN", 0)


@native(f"{M}::parse", 1)
def parse(text: Any) -> int:
    """Rust ``i64`` parsing: optional sign and decimal digits only.

    >>> parse("42"), parse("-7")
    (42, -7)
    """
    s = want_str(text)
    if not s:
        raise FnError("cannot parse integer from empty string")
    if not _RUST_INT.fullmatch(s):
        raise FnError("invalid digit found in string")
    n = int(s)
    if n > I64_MAX:
        raise FnError("number too large to fit in target type")
    if n < I64_MIN:
        raise FnError("number too small to fit in target type")
    return n
