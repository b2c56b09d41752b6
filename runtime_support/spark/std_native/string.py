"""Exact native lowerings of ``std::string`` (see ``native_base`` for the contract).

Spark strings are UTF-8 and count code points (``char_length``), like the Python backend, and
the VARIANT reader rejects lone surrogates, so lengths, substrings, ``contains`` and ``reverse``
agree on every string. Case mapping differs between Java and Python (Unicode versions, special
casing), so ``lowercase``/``uppercase``/``capitalize`` are exact only on ASCII strings.
"""

from __future__ import annotations

from typing import Any

from runtime_support.spark.std_native.base import F, as_variant, fallback, kind, lowers, typed
from runtime_support.tremor.stdlib.std_string import _WS

M = "std::string"
ASCII = r"^[\x00-\x7F]*$"
# Rust's White_Space set as a Java character class (\z: very end; `$` would allow a newline).
_WS_CLASS = "[" + "".join(f"\\u{ord(c):04x}" for c in _WS) + "]"


def _str(v: Any) -> tuple[Any, Any]:
    return typed(v, "string"), kind(v) == "STRING"


def _uint(v: Any) -> tuple[Any, Any]:
    n = typed(v, "bigint")
    return n, (kind(v) == "BIGINT") & (n >= 0)


@lowers(f"{M}::len", "integer")
def len_(s: Any) -> tuple[Any, Any]:
    """``char_length`` counts code points."""
    text, ok = _str(s)
    return as_variant(F().char_length(text).cast("bigint")), ok


@lowers(f"{M}::bytes", "integer")
def bytes_(s: Any) -> tuple[Any, Any]:
    """UTF-8 length."""
    text, ok = _str(s)
    return as_variant(F().octet_length(text).cast("bigint")), ok


@lowers(f"{M}::is_empty", "bool")
def is_empty(s: Any) -> tuple[Any, Any]:
    text, ok = _str(s)
    return as_variant(text == ""), ok


@lowers(f"{M}::contains", "bool")
def contains(s: Any, sub: Any) -> tuple[Any, Any]:
    """Byte-wise substring of valid UTF-8 = code-point substring (``""`` is contained)."""
    text, ok = _str(s)
    needle, ok2 = _str(sub)
    return as_variant(text.contains(needle)), ok & ok2


@lowers(f"{M}::replace", "string", "exact unless `from` is empty (Spark leaves the text as is)")
def replace(s: Any, old: Any, new: Any) -> tuple[Any, Any]:
    text, ok1 = _str(s)
    frm, ok2 = _str(old)
    to, ok3 = _str(new)
    return as_variant(F().replace(text, frm, to)), ok1 & ok2 & ok3 & (frm != "")


def _strip(s: Any, pattern: str) -> tuple[Any, Any]:
    text, ok = _str(s)
    return as_variant(F().regexp_replace(text, pattern, "")), ok


@lowers(f"{M}::trim", "string")
def trim(s: Any) -> tuple[Any, Any]:
    """Unicode White_Space as an explicit Java class (Spark's ``trim`` strips spaces only)."""
    return _strip(s, f"^{_WS_CLASS}+|{_WS_CLASS}+\\z")


@lowers(f"{M}::trim_start", "string")
def trim_start(s: Any) -> tuple[Any, Any]:
    return _strip(s, f"^{_WS_CLASS}+")


@lowers(f"{M}::trim_end", "string")
def trim_end(s: Any) -> tuple[Any, Any]:
    return _strip(s, f"{_WS_CLASS}+\\z")


def _ascii(s: Any) -> tuple[Any, Any]:
    text, ok = _str(s)
    return text, ok & text.rlike(ASCII)


@lowers(f"{M}::lowercase", "string", "exact on ASCII strings only (Java/Python case tables)")
def lowercase(s: Any) -> tuple[Any, Any]:
    text, ok = _ascii(s)
    return as_variant(F().lower(text)), ok


@lowers(f"{M}::uppercase", "string", "exact on ASCII strings only (Java/Python case tables)")
def uppercase(s: Any) -> tuple[Any, Any]:
    text, ok = _ascii(s)
    return as_variant(F().upper(text)), ok


@lowers(f"{M}::capitalize", "string", "exact on ASCII strings only (Java/Python case tables)")
def capitalize(s: Any) -> tuple[Any, Any]:
    text, ok = _ascii(s)
    f = F()
    return as_variant(f.concat(f.upper(f.substring(text, 1, 1)), f.substring(text, 2, 1 << 30))), ok


@lowers(f"{M}::substr", "string")
def substr(s: Any, start: Any, end: Any) -> tuple[Any, Any]:
    """Out-of-range start → 0, end → length, start > end → the whole string (quirk)."""
    f = F()
    text, ok1 = _str(s)
    lo_in, ok2 = _uint(start)
    hi_in, ok3 = _uint(end)
    n = f.char_length(text)
    lo = f.when(lo_in < n, lo_in.cast("int")).otherwise(f.lit(0))
    hi = f.when(hi_in < n, hi_in.cast("int")).otherwise(n)
    out = f.when(lo <= hi, text.substr(lo + 1, hi - lo)).otherwise(text)
    return as_variant(out), ok1 & ok2 & ok3


@lowers(f"{M}::split", "array", "exact unless the separator is empty or holds `\\E`")
def split(s: Any, sep: Any) -> tuple[Any, Any]:
    """Java ``split(\\Q sep \\E, -1)`` keeps every empty piece, like Rust ``str::split``."""
    f = F()
    text, ok1 = _str(s)
    sp, ok2 = _str(sep)
    pieces = f.split(text, f.concat(f.lit("\\Q"), sp, f.lit("\\E")), -1)
    exact = ok1 & ok2 & (sp != "") & ~sp.contains("\\E")
    return f.to_variant_object(pieces), exact


@lowers(f"{M}::reverse", "string")
def reverse(s: Any) -> tuple[Any, Any]:
    """Spark reverses by code point."""
    text, ok = _str(s)
    return as_variant(F().reverse(text)), ok


fallback(
    "placeholders and JSON rendering of non-string arguments (key order, float text)",
    f"{M}::format",
)
fallback(
    "binary values never occur in a VARIANT read from JSON",
    f"{M}::from_utf8_lossy",
    f"{M}::into_binary",
)
