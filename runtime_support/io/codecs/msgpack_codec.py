"""``msgpack``: MessagePack ⇄ value (Tremor decodes with ``rmp_serde``), with the ``msgpack``
package.

Invariants: the first MessagePack object of the chunk is the event (trailing bytes are ignored,
as ``rmp_serde::from_slice`` does); ``bin`` ⇄ binary values, ``str`` ⇄ strings; map keys must
be strings (Tremor's records); integers keep their kind and the most compact encoding.
"""

from __future__ import annotations

from typing import Any

import msgpack

from runtime_support.io.codecs.common import CodecError, raw

__all__ = ["MsgPackCodec"]


class MsgPackCodec:
    """``msgpack``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        try:
            value = msgpack.unpackb(raw(data), raw=False, strict_map_key=True, use_list=True)
        except msgpack.ExtraData as extra:
            value = extra.unpacked
        except (ValueError, TypeError, msgpack.UnpackException) as err:
            raise CodecError(f"Invalid msgpack data: {err or type(err).__name__}") from None
        return True, _checked(value)

    @staticmethod
    def encode(value: Any, config: Any) -> bytes:
        try:
            return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]
        except (TypeError, ValueError, OverflowError) as err:
            raise CodecError(f"Invalid msgpack value: {err}") from None


def _checked(value: Any) -> Any:
    """``value`` with only Tremor's types: string keys, no extension types."""
    kind = type(value)
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise CodecError("Invalid msgpack data: map keys must be strings")
        return {k: _checked(v) for k, v in value.items()}
    if kind is list:
        return [_checked(v) for v in value]
    if isinstance(value, msgpack.ExtType) or kind is msgpack.Timestamp:
        raise CodecError("Invalid msgpack data: extension types are not supported")
    return value
