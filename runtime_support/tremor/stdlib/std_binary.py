"""``std::binary``: byte strings."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import BadType, native, want_array, want_bytes

M = "std::binary"


@native(f"{M}::len", 1)
def len_(data: Any) -> int:
    """Byte count."""
    return len(want_bytes(data))


@native(f"{M}::from_bytes", 1)
def from_bytes(items: Any) -> bytes:
    """An array of integers 0..=255 as a binary.

    >>> from_bytes([115, 110, 111, 116])
    b'snot'
    """
    out = bytearray()
    for b in want_array(items):
        if type(b) is not int or not 0 <= b <= 255:
            raise BadType()
        out.append(b)
    return bytes(out)


@native(f"{M}::into_bytes", 1)
def into_bytes(data: Any) -> list:
    """A binary as an array of integers."""
    return list(want_bytes(data))
