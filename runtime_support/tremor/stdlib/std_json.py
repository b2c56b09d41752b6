"""``std::json``: JSON text to values and back."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.jsonio import decode_json, encode_json, encode_json_pretty
from runtime_support.tremor.stdlib._table import FnError, native, want_str

M = "std::json"


@native(f"{M}::decode", 1)
def decode(text: Any) -> Any:
    """Parse a JSON string; malformed input is an error.

    >>> decode('[3, 2.0, {"a": null}]')
    [3, 2.0, {'a': None}]
    """
    try:
        return decode_json(want_str(text))
    except ValueError as e:
        raise FnError(str(e)) from None


@native(f"{M}::encode", 1)
def encode(v: Any) -> str:
    """Compact JSON in record insertion order."""
    return encode_json(v)


@native(f"{M}::encode_pretty", 1)
def encode_pretty(v: Any) -> str:
    """Indented JSON.

    >>> encode_pretty([1, 2, 3])
    '[\\n  1,\\n  2,\\n  3\\n]'
    """
    return encode_json_pretty(v)
