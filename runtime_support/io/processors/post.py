"""Tremor's postprocessors (``tremor-interceptor/src/postprocessor``), one class each.

Invariant: ``process(data, ingest_ns, egress_ns)`` takes one encoded event (or what the
processor before emitted for it) and returns the byte strings to write, in order; ``finish(data)``
ends the stream (``data``: what the processor before emitted when it finished, None at the head)
and returns what is left. A sink writes the concatenation of everything returned. Errors are
:class:`ProcessorError` with Tremor's message.
"""

from __future__ import annotations

import base64
import lzma
from typing import Any

from runtime_support.io.processors import compression
from runtime_support.io.processors.errors import ProcessorError

__all__ = ["POSTPROCESSORS", "make_postprocessor"]


class Postprocessor:
    """Base: stateless, ``finish`` processes its data like any other."""

    name = ""
    streaming = False  # True: output depends on earlier events (a sink keeps one per stream)

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        raise NotImplementedError

    def finish(self, data: bytes | None) -> list[bytes]:
        return [] if data is None else self.process(data)


class Separate(Postprocessor):
    """``separate``: append the one-byte ``separator`` (default newline)."""

    name = "separate"

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        from runtime_support.io.processors.pre import separator_byte

        self.separator = bytes([separator_byte(config or {}, "seperate")])

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        return [data + self.separator]


class Base64(Postprocessor):
    """``base64``: standard base64, padded."""

    name = "base64"

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        return [base64.b64encode(data)]


class LengthPrefixed(Postprocessor):
    """``length-prefixed``: prepend the length as an 8-byte big-endian integer."""

    name = "length-prefixed"

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        return [len(data).to_bytes(8, "big") + data]


class TextualLengthPrefixed(Postprocessor):
    """``textual-length-prefixed``: prepend the decimal length and a space."""

    name = "textual-length-prefixed"

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        return [str(len(data)).encode() + b" " + data]


class IngestNs(Postprocessor):
    """``ingest-ns``: prepend the event's ingest time as an 8-byte big-endian integer."""

    name = "ingest-ns"

    def __init__(self) -> None:
        self.last_ns = 0

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        self.last_ns = ingest_ns
        return [(ingest_ns % 2**64).to_bytes(8, "big") + data]

    def finish(self, data: bytes | None) -> list[bytes]:
        return [] if data is None else self.process(data, self.last_ns)


class Compress(Postprocessor):
    """``compress``: each event compressed on its own; ``algorithm`` required, ``level`` for
    ``xz2`` (0..9), ``zstd`` (-7..22) and ``lz4`` (>= 0) only."""

    name = "compress"

    def __init__(self, config: dict[str, Any] | None) -> None:
        self.algorithm, self.level = _algorithm(config, compression.ALGORITHMS)

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        return [compression.compress(self.algorithm, data, self.level)]


def _algorithm(config: dict[str, Any] | None, known: tuple[str, ...]) -> tuple[str, int | None]:
    algorithm = (config or {}).get("algorithm")
    if not isinstance(algorithm, str):
        raise ProcessorError("compress Invalid config: Missing algorithm")
    if algorithm not in known:
        raise ProcessorError(f"compress Invalid config: Unknown compression algorithm: {algorithm}")
    level = (config or {}).get("level")
    try:
        compression.check_level(algorithm, level)
    except ProcessorError as err:
        raise ProcessorError(f"compress Invalid config: {err}") from None
    return algorithm, level


PIECE = 1024
ZSTD_BLOCK = 128 * 1024


def _pieces(data: bytes) -> list[bytes]:
    """Output in 1024-byte pieces, as Tremor's streaming encoders hand it over."""
    return [data[i : i + PIECE] for i in range(0, len(data), PIECE)]


class StreamingCompress(Postprocessor):
    """``streaming-compress``: one ``xz2`` or ``zstd`` stream over all events, ended by
    ``finish`` (``level``: xz2 0..9, default 6; zstd -7..22, default 0 = zstd's default)."""

    name = "streaming-compress"
    streaming = True

    def __init__(self, config: dict[str, Any] | None) -> None:
        self.algorithm, level = _algorithm(config, ("xz2", "zstd"))
        self.level = (6 if self.algorithm == "xz2" else 0) if level is None else level
        self.encoder: Any = None
        self.pending = 0

    def _encoder(self) -> Any:
        if self.encoder is None:
            if self.algorithm == "xz2":
                self.encoder = lzma.LZMACompressor(lzma.FORMAT_XZ, preset=self.level)
            else:
                import cramjam

                self.encoder = cramjam.zstd.Compressor(level=self.level)
        return self.encoder

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        encoder = self._encoder()
        if self.algorithm == "xz2":
            return _pieces(encoder.compress(data))
        encoder.compress(data)  # cramjam keeps the output until a flush, which ends a block:
        self.pending += len(data)  # flush once per zstd block of input, not per event
        if self.pending < ZSTD_BLOCK:
            return []
        self.pending = 0
        return _pieces(bytes(encoder.flush()))

    def finish(self, data: bytes | None) -> list[bytes]:
        out = self.process(data) if data is not None else []
        encoder, self.encoder, self.pending = self._encoder(), None, 0
        tail = encoder.flush() if self.algorithm == "xz2" else bytes(encoder.finish())
        return [b"".join(out) + bytes(tail)]


class Chunk(Postprocessor):
    """``chunk``: pack events into chunks of at most ``max_bytes`` (required, > 0); an event
    larger than that is discarded (Tremor logs it)."""

    name = "chunk"
    streaming = True

    def __init__(self, config: dict[str, Any] | None) -> None:
        if not isinstance(config, dict):
            raise ProcessorError("chunk Missing config")
        max_bytes = config.get("max_bytes")
        if set(config) != {"max_bytes"} or type(max_bytes) is not int or max_bytes < 0:
            raise ProcessorError("chunk Invalid config: `max_bytes` must be a positive integer")
        if max_bytes == 0:
            raise ProcessorError("chunk Invalid config: `max_bytes` must be > 0")
        self.max_bytes = max_bytes
        self.chunk = b""
        self.dropped: list[str] = []

    def _discard(self, length: int) -> None:
        self.dropped.append(
            f"[postprocessor::chunk] payload of size {length} exceeded max_bytes "
            f"{self.max_bytes}. Discarding..."
        )

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        total = len(self.chunk) + len(data)
        if len(data) > self.max_bytes:
            self._discard(len(data))
            return []
        if total > self.max_bytes:
            out, self.chunk = self.chunk, data
            return [out]
        if total == self.max_bytes:
            out, self.chunk = self.chunk + data, b""
            return [out]
        self.chunk += data
        return []

    def finish(self, data: bytes | None) -> list[bytes]:
        out, self.chunk = self.chunk, b""
        data = data or b""
        if len(data) > self.max_bytes:
            self._discard(len(data))
            data = b""
        if not out:
            return [data] if data else []
        if not data:
            return [out]
        return [out, data] if len(out) + len(data) > self.max_bytes else [out + data]


class Collect(Postprocessor):
    """``collect``: concatenate events; with ``max_bytes`` (0: no limit) the buffer is emitted
    before an event that would take it over; ``finish`` emits the rest (even empty)."""

    name = "collect"
    streaming = True

    def __init__(self, config: dict[str, Any] | None) -> None:
        config = config or {}
        max_bytes = config.get("max_bytes", 0)
        if set(config) - {"max_bytes"} or type(max_bytes) is not int or max_bytes < 0:
            raise ProcessorError("collect Invalid config: `max_bytes` must be an unsigned integer")
        self.max_bytes = max_bytes
        self.buffer = b""

    def _over(self, data: bytes) -> bool:
        return self.max_bytes != 0 and len(self.buffer) + len(data) > self.max_bytes

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        if self._over(data):
            out, self.buffer = self.buffer, data
            return [out]
        self.buffer += data
        return []

    def finish(self, data: bytes | None) -> list[bytes]:
        over = data is not None and self._over(data)
        out, self.buffer = self.buffer, b""
        if data is None:
            return [out]
        return [out, data] if over else [out + data]


class GelfChunking(Postprocessor):
    """``gelf-chunking``: split into GELF chunks of at most 8192 bytes (12-byte header: magic
    ``0x1e 0x0f``, message id ``(ingest_ns & 0xffff) | (counter << 16)``, seq, count); more
    than 128 chunks is an error."""

    name = "gelf-chunking"

    def __init__(self, chunk_size: int = 8192, counter: int = 0) -> None:
        self.chunk_size = chunk_size
        self.counter = counter

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        step = self.chunk_size - 12
        pieces = [data[i : i + step] for i in range(0, len(data), step)]
        if len(pieces) > 128:
            raise ProcessorError(
                f"[GELF encoder] Maximum number of chunks is 128 this package would cause "
                f"{len(pieces)} chunks."
            )
        message_id = ((ingest_ns & 0xFFFF) | (self.counter << 16)) % 2**64
        self.counter = 0 if self.counter == 2**64 - 1 else self.counter + 1
        head = b"\x1e\x0f" + message_id.to_bytes(8, "big")
        return [head + bytes([i, len(pieces)]) + piece for i, piece in enumerate(pieces)]

    def finish(self, data: bytes | None) -> list[bytes]:
        import time

        return [] if data is None else self.process(data, time.time_ns())


POSTPROCESSORS: dict[str, Any] = {
    "base64": lambda config: Base64(),
    "chunk": Chunk,
    "collect": Collect,
    "compress": Compress,
    "gelf-chunking": lambda config: GelfChunking(),
    "ingest-ns": lambda config: IngestNs(),
    "length-prefixed": lambda config: LengthPrefixed(),
    "separate": Separate,
    "streaming-compress": StreamingCompress,
    "textual-length-prefixed": lambda config: TextualLengthPrefixed(),
}


def make_postprocessor(name: str, config: dict[str, Any] | None) -> Postprocessor:
    """A fresh postprocessor ``name`` with ``config`` (ProcessorError for a bad config)."""
    if name not in POSTPROCESSORS:
        raise ProcessorError(f"{name} Postprocessor not found.")
    return POSTPROCESSORS[name](config)  # type: ignore[no-any-return]
