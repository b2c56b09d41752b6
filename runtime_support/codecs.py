"""Codecs and pre-/post-processors of flow connectors (Tremor's ``tremor-codec`` /
``tremor-interceptor``), as far as a batch job needs them.

A codec is described by its ``with`` value: a name (``"json"``) or ``{"name": …, "config": {…}}``.
Decoding turns one preprocessed chunk of text into a Tremor value; encoding turns a value into the
text a sink writes (post-processors then frame it). Binary data travels as Python ``bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jsonio import canonical_json, decode_json, encode_json

__all__ = ["CODECS", "Codec", "Framing", "codec_from", "framing_from"]


class JsonCodec:
    """``json``: JSON ⇄ value; config ``mode`` ``sorted`` sorts the keys of the output."""

    @staticmethod
    def decode(data: str, config: Any) -> tuple[bool, Any]:
        return (True, decode_json(data)) if data.strip() else (False, None)

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        if isinstance(config, dict) and config.get("mode") == "sorted":
            return canonical_json(value)
        return encode_json(value)


class StringCodec:
    """``string``: text ⇄ string (other values are written as JSON)."""

    @staticmethod
    def decode(data: str, config: Any) -> tuple[bool, Any]:
        return True, data

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return value if type(value) in (str, bytes) else encode_json(value)


class BinaryCodec:
    """``binary``: bytes ⇄ binary value (other values are written as JSON)."""

    @staticmethod
    def decode(data: str, config: Any) -> tuple[bool, Any]:
        return True, data.encode("utf-8", "surrogateescape")

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return value if type(value) in (str, bytes) else encode_json(value)


class NullCodec:
    """``null``: decodes no event, encodes nothing."""

    @staticmethod
    def decode(data: str, config: Any) -> tuple[bool, Any]:
        return False, None

    @staticmethod
    def encode(value: Any, config: Any) -> str | bytes | None:
        return None


#: Codec name → implementation; mirrors the factories of ``compiler.registry.codecs``
#: (tests/test_registry.py checks both agree).
CODECS: dict[str, Any] = {
    "binary": BinaryCodec,
    "json": JsonCodec,
    "null": NullCodec,
    "string": StringCodec,
}


@dataclass(frozen=True)
class Codec:
    """A codec by name with its config; the work is done by its ``CODECS`` implementation."""

    name: str = "json"
    config: Any = None

    def decode(self, data: str) -> tuple[bool, Any]:
        """``(True, value)`` for one chunk, ``(False, None)`` when the chunk yields no event.

        Raises ``ValueError`` on malformed input (Tremor drops such chunks with an error log).
        """
        return CODECS[self.name].decode(data, self.config)  # type: ignore[no-any-return]

    def encode(self, value: Any) -> str | bytes | None:
        """The serialised form of ``value`` (None: the codec writes nothing)."""
        return CODECS[self.name].encode(value, self.config)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Framing:
    """Pre-/post-processing: ``separator`` set means the ``separate`` processor is in the chain;
    ``drop_empty``: ``remove-empty`` runs after it (or alone), so empty chunks yield no event."""

    separator: str | None = None
    drop_empty: bool = False

    def frame(self, data: str | bytes) -> bytes:
        """Bytes written for one encoded event."""
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        if self.separator is None:
            return raw
        return raw + self.separator.encode("utf-8")


def _name_config(spec: Any) -> tuple[str, Any]:
    """``"x"`` or ``{"name": "x", "config": c}`` → ``("x", c)``."""
    if isinstance(spec, dict):
        return str(spec.get("name", "")), spec.get("config")
    return str(spec), None


def codec_from(spec: Any, default: str = "json") -> Codec:
    """The codec of a connector's ``codec`` value (``None``: ``default``)."""
    if spec is None:
        return Codec(default)
    name, config = _name_config(spec)
    if name not in CODECS:
        raise ValueError(f"Codec `{name}` is not supported by tremorc's Spark runtime")
    return Codec(name, config)


def framing_from(processors: Any) -> Framing:
    """The framing of a ``preprocessors`` / ``postprocessors`` list (only ``separate`` and
    ``remove-empty`` are understood; others are rejected, by the compiler's registry first)."""
    separator = None
    drop_empty = False
    for item in processors or ():
        name, config = _name_config(item)
        if name == "separate":
            separator = "\n"
            drop_empty = False  # an earlier `remove-empty` saw whole reads, never empty
            if isinstance(config, dict) and isinstance(config.get("separator"), str):
                separator = config["separator"]
        elif name == "remove-empty":
            drop_empty = True
        else:
            raise ValueError(f"Processor `{name}` is not supported by tremorc's Spark runtime")
    return Framing(separator, drop_empty)
