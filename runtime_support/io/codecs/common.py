"""What the codecs share: their error, bytes/text views of the input, number text.

Invariant: :func:`raw` gives back exactly the bytes a source read (a ``str`` holds them
surrogate-escaped); :func:`text` is strict UTF-8, as Tremor's codecs are.
"""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.jsonio import encode_json

__all__ = [
    "CodecError",
    "is_number",
    "number_text",
    "parse_float",
    "parse_number",
    "raw",
    "text",
]

I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


class CodecError(ValueError):
    """Input a codec can not decode, or a value it can not encode (the message is Tremor's)."""


def raw(data: str | bytes) -> bytes:
    """The bytes of one chunk."""
    return data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")


def text(data: str | bytes) -> str:
    """The chunk as UTF-8 text; :class:`CodecError` when it is not UTF-8."""
    try:
        return raw(data).decode("utf-8")
    except UnicodeDecodeError as err:
        raise CodecError(f"invalid utf-8 sequence of 1 bytes from index {err.start}") from None


def is_number(value: Any) -> bool:
    """An integer or float (never a bool)."""
    return type(value) in (int, float)


def number_text(value: Any) -> str:
    """A number as Tremor's JSON writes it (``82.0``, ``1e16``, ``7``)."""
    return encode_json(value)


def parse_number(token: str, error: str) -> int | float:
    """``1.5`` → float (a ``.`` in the token), ``-3`` → i64, ``3`` → u64, as Tremor's statsd and
    graphite codecs read values; :class:`CodecError` ``error`` otherwise."""
    try:
        if "." in token:
            return float(_strict_float(token))
        value = int(token, 10)
    except ValueError:
        raise CodecError(error) from None
    if token.startswith("+") or not I64_MIN <= value <= U64_MAX or "_" in token:
        raise CodecError(error)
    if token.startswith("-") and value < I64_MIN:
        raise CodecError(error)
    return value


def parse_float(token: str, error: str) -> float:
    """A float as Rust reads one (``1`` is ``1.0``); :class:`CodecError` ``error`` otherwise."""
    try:
        return float(_strict_float(token))
    except ValueError:
        raise CodecError(error) from None


def _strict_float(token: str) -> str:
    """Reject what Rust's float parsing rejects but Python's accepts (``_``, spaces, ``inf``)."""
    if (
        not token
        or token != token.strip()
        or "_" in token
        or token.lower().lstrip("+-")
        in (
            "inf",
            "infinity",
            "nan",
        )
    ):
        raise ValueError(token)
    return token
