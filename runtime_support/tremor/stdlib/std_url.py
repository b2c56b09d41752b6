"""``std::url``: percent encoding (not const upstream)."""

from __future__ import annotations

import re
from typing import Any

from runtime_support.tremor.stdlib._table import FnError, native, want_str

M = "std::url"
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PCT = re.compile(rb"%([0-9A-Fa-f]{2})")


@native(f"{M}::encode", 1, const=False)
def encode(text: Any) -> str:
    """Percent-encode every UTF-8 byte except ASCII letters and digits.

    >>> encode("snot badger-1")
    'snot%20badger%2D1'
    """
    data = want_str(text).encode()
    return "".join(chr(b) if b in _ALNUM else f"%{b:02X}" for b in data)


@native(f"{M}::decode", 1, const=False)
def decode(text: Any) -> str:
    """Percent-decode (``+`` stays ``+``, malformed escapes stay literal); must be UTF-8.

    >>> decode("%22snot%20badger%22+%zz")
    '"snot badger"+%zz'
    """
    s = want_str(text)
    raw = _PCT.sub(lambda m: bytes([int(m.group(1), 16)]), s.encode())
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise FnError(f"Could not urldecode value: {s}") from None
