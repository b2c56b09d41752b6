"""Tremor's preprocessors (``tremor-interceptor/src/preprocessor``), one class each.

Invariant: ``process(data, ns)`` takes one chunk of bytes and the chunk's ingest time and returns
the chunks it makes, each with its ingest time (only ``ingest-ns`` changes it); it raises
:class:`ProcessorError` when Tremor's returns an error (the whole call then yields no chunk).
``finish(data, ns)`` ends the stream: ``data`` is what the processor before it emitted when it
finished (None at the head of a chain). Fragments Tremor discards with only a log line are
recorded in ``dropped`` (reasons), so a source can report them instead of losing them silently.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from runtime_support.io.processors import compression
from runtime_support.io.processors.errors import ProcessorError

__all__ = ["PREPROCESSORS", "make_preprocessor"]

Chunks = list[tuple[bytes, int]]
DEFAULT_BUF_SIZE = 8 * 1024


class Preprocessor:
    """Base: no state, nothing to flush."""

    name = ""

    def __init__(self) -> None:
        self.dropped: list[str] = []

    def process(self, data: bytes, ns: int) -> Chunks:
        raise NotImplementedError

    def finish(self, data: bytes | None, ns: int) -> Chunks:
        return [] if data is None else self.process(data, ns)


def separator_byte(config: dict[str, Any], what: str) -> int:
    """The one-byte ``separator`` of a ``separate`` config (Tremor's error otherwise)."""
    text = config.get("separator", "\n")
    raw = text.encode("utf-8") if isinstance(text, str) else b""
    if len(raw) != 1:
        raise ProcessorError(
            f"{what} Invalid config: Invalid 'separator': \"{text}\", must be 1 byte."
        )
    return raw[0]


class Separate(Preprocessor):
    """``separate``: split at ``separator``; ``buffered`` keeps a trailing fragment for the next
    chunk; fragments over ``max_length`` (0: no limit) are discarded, each with a reason in
    ``dropped``. Named without a config there is no limit (Tremor's is 8192 bytes; a file source
    splits lines with Spark's text reader, which has none)."""

    name = "separate"

    def __init__(
        self, separator: int = 10, max_length: int = DEFAULT_BUF_SIZE, buffered: bool = True
    ):
        super().__init__()
        self.separator = bytes([separator])
        self.max_length = max_length or None
        self.buffered = buffered
        self.buffer = b""

    @classmethod
    def from_config(cls, config: dict[str, Any] | None) -> Separate:
        if config is None:  # Tremor: 8192; tremorc's text reader has no limit, nor has this
            return cls(max_length=0)
        return cls(
            separator_byte(config, "split"),
            int(config.get("max_length") or 0),
            bool(config.get("buffered", True)),
        )

    def _too_long(self, length: int) -> bool:
        return self.max_length is not None and length > self.max_length

    def _exceeds(self, part: int, total: int) -> None:
        """A discarded fragment (and the buffer before it): Tremor fails the whole read here;
        the fragment alone is dropped, with its reason, and the read goes on."""
        self.buffer = b""
        self.dropped.append(
            f"Discarded fragment of length {part} since total length of {total} exceeds "
            f"maximum allowed length of {self.max_length}"
        )

    def _valid(self, fragment: bytes) -> bool:
        if self._too_long(len(fragment)):
            self._exceeds(len(fragment), len(fragment))
            return False
        return True

    def _save(self, fragment: bytes) -> None:
        total = len(self.buffer) + len(fragment)
        if self._too_long(total):
            self._exceeds(len(fragment), total)
        else:
            self.buffer += fragment

    def process(self, data: bytes, ns: int) -> Chunks:
        parts = data.split(self.separator)
        if not self.buffered:
            return [(p, ns) for p in parts[:-1] if self._valid(p)] + [(parts[-1], ns)]
        if len(parts) == 1:
            self._save(data)
            return []
        out: Chunks = []
        first = parts[0]
        if self.buffer:
            total = len(self.buffer) + len(first)
            if self._too_long(total):
                self._exceeds(len(first), total)
            else:
                out.append((self.buffer + first, ns))
            self.buffer = b""
        elif self._valid(first):
            out.append((first, ns))
        out.extend((p, ns) for p in parts[1:-1] if self._valid(p))
        self._save(parts[-1])
        return out

    def finish(self, data: bytes | None, ns: int) -> Chunks:
        out = self.process(data, ns) if data is not None else []
        if self.buffer:
            out.append((self.buffer, ns))
            self.buffer = b""
        return out


class RemoveEmpty(Preprocessor):
    """``remove-empty``: drop zero-length chunks."""

    name = "remove-empty"

    def process(self, data: bytes, ns: int) -> Chunks:
        return [(data, ns)] if data else []


_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def b64decode(data: bytes) -> bytes:
    """Tremor's base64: the standard alphabet, padding optional (never too much), canonical
    final bits; ProcessorError with the reason otherwise."""
    body = data.rstrip(b"=")
    bad = next((i for i, b in enumerate(body) if b not in _ALPHABET), None)
    if bad is not None:
        raise ProcessorError(f"Invalid symbol {body[bad]}, offset {bad}.")
    if len(body) % 4 == 1:
        raise ProcessorError("Invalid input length.")
    if len(data) > len(body) and len(data) % 4:
        raise ProcessorError("Invalid padding.")
    decoded = base64.b64decode(body + b"=" * (-len(body) % 4))
    if base64.b64encode(decoded).rstrip(b"=") != body:
        last = len(body) - 1
        raise ProcessorError(f"Invalid last symbol {body[last]}, offset {last}.")
    return decoded


class Base64(Preprocessor):
    """``base64``: decode (see :func:`b64decode`)."""

    name = "base64"

    def process(self, data: bytes, ns: int) -> Chunks:
        return [(b64decode(data), ns)]


class Decompress(Preprocessor):
    """``decompress``: config ``algorithm`` (``gzip zlib xz2 snappy lz4 zstd br``, default
    ``autodetect``: by magic bytes, passing other data through)."""

    name = "decompress"

    def __init__(self, algorithm: str = "autodetect") -> None:
        super().__init__()
        if algorithm != "autodetect" and algorithm not in compression.ALGORITHMS:
            raise ProcessorError(
                f"decompress Invalid config: Unknown compression algorithm: {algorithm}"
            )
        self.algorithm = algorithm

    @classmethod
    def from_config(cls, config: dict[str, Any] | None) -> Decompress:
        return cls(str((config or {}).get("algorithm", "autodetect")))

    def process(self, data: bytes, ns: int) -> Chunks:
        if self.algorithm == "autodetect":
            return [(compression.detect(data), ns)]
        return [(compression.decompress(self.algorithm, data), ns)]


class IngestNs(Preprocessor):
    """``ingest-ns``: the first 8 bytes (big-endian u64) are the chunk's ingest time."""

    name = "ingest-ns"

    def process(self, data: bytes, ns: int) -> Chunks:
        if len(data) < 8:
            raise ProcessorError("Extract Ingest Ts Preprocessor: < 8 byte")
        return [(data[8:], int.from_bytes(data[:8], "big"))]


class LengthPrefixed(Preprocessor):
    """``length-prefixed``: messages behind an 8-byte big-endian length; an incomplete one
    waits for more data (and is not emitted at the end)."""

    name = "length-prefixed"

    def __init__(self) -> None:
        super().__init__()
        self.length: int | None = None
        self.buffer = b""

    def process(self, data: bytes, ns: int) -> Chunks:
        self.buffer += data
        out: Chunks = []
        while True:
            if self.length is not None:
                if len(self.buffer) < self.length:
                    break
                out.append((self.buffer[: self.length], ns))
                self.buffer = self.buffer[self.length :]
                self.length = None
            self.length = self._read_length()
            if self.length is None:
                break
        return out

    def _read_length(self) -> int | None:
        """Consume the next length header from the buffer; None while it is incomplete."""
        if len(self.buffer) <= 8:  # Tremor reads a length only with more than 8 bytes
            return None
        length = int.from_bytes(self.buffer[:8], "big")
        self.buffer = self.buffer[8:]
        return length

    def finish(self, data: bytes | None, ns: int) -> Chunks:
        return [] if data is None else self.process(data, ns)


_WHITESPACE = re.compile(rb"[ \t\n\x0c\r]")


class TextualLengthPrefixed(LengthPrefixed):
    """``textual-length-prefixed``: messages behind an ASCII decimal length and one ASCII
    whitespace byte (RFC 5425 octet counting)."""

    name = "textual-length-prefixed"

    def _read_length(self) -> int | None:
        found = _WHITESPACE.search(self.buffer)
        if found is None:
            return None
        digits = self.buffer[: found.start()]
        self.buffer = self.buffer[found.start() + 1 :]
        return _textual_length(digits)


def _textual_length(digits: bytes) -> int:
    """Rust's ``str::parse::<u32>`` of the prefix (an optional ``+``, then decimal digits)."""
    try:
        text = digits.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProcessorError(f"invalid utf-8 sequence of 1 bytes from index {err.start}") from None
    body = text[1:] if text.startswith("+") else text
    if not body:
        raise ProcessorError("cannot parse integer from empty string")
    if not body.isascii() or not body.isdigit():
        raise ProcessorError("invalid digit found in string")
    if int(body) >= 2**32:
        raise ProcessorError("number too large to fit in target type")
    return int(body)


FIVE_SEC = 5_000_000_000


class GelfChunking(Preprocessor):
    """``gelf-chunking``: reassemble GELF chunks (``0x1e 0x0f``, 8-byte id, seq, count);
    ``0x1f 0x3c`` (uncompressed WELF) and ``{…`` are whole messages. Incomplete messages are
    dropped after 5 s of ingest time (two generations of buffers, as Tremor)."""

    name = "gelf-chunking"

    def __init__(self) -> None:
        super().__init__()
        self.buffer: dict[int, list[bytes | None]] = {}
        self.last_buffer: dict[int, list[bytes | None]] = {}
        self.last_swap = 0

    def process(self, data: bytes, ns: int) -> Chunks:
        if len(data) < 2:
            shown = f"[{data[0]}, 0]" if data else "None"
            raise ProcessorError(f"Invalid Gelf Header: {len(data)} bytes, {shown}")
        if data[:2] == b"\x1f\x3c":
            whole = self._enqueue(ns, -1, 0, 1, data[2:])
        elif data[:2] == b"\x1e\x0f" and len(data) >= 12:
            key = int.from_bytes(data[2:10], "big")
            whole = self._enqueue(ns, key, data[10], data[11], data[12:])
        elif data[:1] == b"{":
            whole = self._enqueue(ns, 0, 0, 1, data)
        else:
            shown = f"Some([{data[0]}, {data[1]}])"
            raise ProcessorError(f"Invalid Gelf Header: {len(data)} bytes, {shown}")
        return [] if whole is None else [(whole, ns)]

    def _enqueue(self, ns: int, key: int, seq: int, count: int, data: bytes) -> bytes | None:
        if (ns - self.last_swap) % 2**64 > FIVE_SEC:
            self.last_swap = ns
            self.last_buffer, self.buffer = self.buffer, {}
        if count == 1:
            return data
        home = self.buffer if key in self.buffer else self.last_buffer
        if key not in home:
            if seq >= count:
                self.dropped.append(f"Discarding out of range chunk {seq}/{count} for {key}")
                return None
            home = self.buffer
            home[key] = [None] * count
        segments = home[key]
        if seq >= len(segments) or segments[seq] is not None:
            self.dropped.append(f"Duplicate index {seq} for gelf message id {key}")
            del home[key]
            return None
        segments[seq] = data
        if any(s is None for s in segments):
            return None
        del home[key]
        return b"".join(s for s in segments if s is not None)


PREPROCESSORS: dict[str, Any] = {
    "base64": lambda config: Base64(),
    "decompress": Decompress.from_config,
    "gelf-chunking": lambda config: GelfChunking(),
    "ingest-ns": lambda config: IngestNs(),
    "length-prefixed": lambda config: LengthPrefixed(),
    "remove-empty": lambda config: RemoveEmpty(),
    "separate": Separate.from_config,
    "textual-length-prefixed": lambda config: TextualLengthPrefixed(),
}


def make_preprocessor(name: str, config: dict[str, Any] | None) -> Preprocessor:
    """A fresh preprocessor ``name`` with ``config`` (ProcessorError for a bad config)."""
    if name not in PREPROCESSORS:
        raise ProcessorError(f"{name} Preprocessor not found.")
    return PREPROCESSORS[name](config)  # type: ignore[no-any-return]
