"""Codecs and pre-/post-processors of flow connectors (Tremor's ``tremor-codec`` /
``tremor-interceptor``), as far as a batch job needs them.

A codec is described by its ``with`` value: a name (``"json"``) or ``{"name": …, "config": {…}}``.
Decoding turns one preprocessed chunk of text into a Tremor value; encoding turns a value into the
text a sink writes (post-processors then frame it). Binary data travels as Python ``bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Framing:
    """A connector's pre- or postprocessors (see :mod:`runtime_support.processors`).

    ``simple``: the chain is only ``separate`` (with just a ``separator``) and ``remove-empty``,
    which Spark's text reader and writer do themselves: ``separator`` is then the separator (None
    without ``separate``) and ``drop_empty`` says ``remove-empty`` runs after it (or alone).
    Otherwise ``separator`` is None and a connector runs the chain (``pre_chain`` /
    ``post_chain``) on the bytes itself.
    """

    separator: str | None = None
    drop_empty: bool = False
    processors: tuple[Any, ...] = ()
    simple: bool = True
    _post: Any = field(default=None, compare=False, repr=False)

    def pre_chain(self) -> Any:
        """A fresh preprocessor chain (one per stream: a file, a connection)."""
        from .processors import PreChain

        return PreChain(self.processors)

    def post_chain(self) -> Any:
        """A fresh postprocessor chain (one per output stream)."""
        from .processors import PostChain

        return PostChain(self.processors)

    def frame(self, data: str | bytes, ingest_ns: int = 0) -> bytes:
        """Bytes written for one encoded event (this Framing's own postprocessor chain, so
        ``collect``/``chunk``/``streaming-compress`` hold bytes back until :meth:`finish`)."""
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        if self.simple:
            return raw if self.separator is None else raw + self.separator.encode("utf-8")
        if self._post is None:
            self._post = self.post_chain()
        return b"".join(self._post.process(raw, ingest_ns))

    def finish(self) -> bytes:
        """What the postprocessors still hold at the end of the output (then a fresh chain)."""
        chain, self._post = self._post, None
        return b"" if chain is None else b"".join(chain.finish())


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


_SIMPLE_SEPARATE = {"separator"}


def framing_from(processors: Any) -> Framing:
    """The framing of a ``preprocessors`` / ``postprocessors`` list: ``simple`` (see
    :class:`Framing`) when it is ``separate`` (only its ``separator``) and ``remove-empty``;
    any other chain runs through :mod:`runtime_support.processors` (an unknown processor or a
    bad config raises ``ValueError``, the compiler's registry having rejected it first)."""
    from .processors import POSTPROCESSORS, PREPROCESSORS

    items = [_name_config(item) for item in processors or ()]
    names = [name for name, _ in items]
    simple = (
        all(
            name == "remove-empty"
            or name == "separate"
            and (config is None or set(config) <= _SIMPLE_SEPARATE)
            for name, config in items
        )
        and names.count("separate") <= 1
    )
    unknown = [n for n in names if n not in PREPROCESSORS and n not in POSTPROCESSORS]
    if unknown:
        raise ValueError(f"Processor `{unknown[0]}` is not supported by tremorc's Spark runtime")
    if not simple:
        return Framing(processors=tuple(processors), simple=False)
    separator = None
    drop_empty = False
    for name, config in items:
        if name == "separate":
            separator = "\n"
            drop_empty = False  # an earlier `remove-empty` saw whole reads, never empty
            if isinstance(config, dict) and isinstance(config.get("separator"), str):
                separator = config["separator"]
        else:
            drop_empty = True
    return Framing(separator, drop_empty, tuple(processors or ()), True)
