"""``std::base64``: standard-alphabet, padded base64 between binaries and strings."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from runtime_support.tremor.stdlib._table import FnError, native, want_bytes, want_str

M = "std::base64"


@native(f"{M}::encode", 1)
def encode(data: Any) -> str:
    """Base64 of a binary (strings are a type error).

    >>> encode(b"snot")
    'c25vdA=='
    """
    return base64.b64encode(want_bytes(data)).decode("ascii")


@native(f"{M}::decode", 1)
def decode(text: Any) -> bytes:
    """The binary encoded by a padded standard base64 string; invalid input is an error.

    >>> decode("c25vdA==")
    b'snot'
    """
    try:
        return base64.b64decode(want_str(text), validate=True)
    except (binascii.Error, ValueError) as e:
        raise FnError(str(e)) from None
