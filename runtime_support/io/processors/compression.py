"""The compression algorithms of Tremor's ``decompress`` / ``compress`` processors.

Names are Tremor's: ``gzip zlib xz2 snappy lz4 zstd br``. gzip, zlib and xz come from the
standard library; snappy (framed format), lz4 (frame format), zstd and brotli from ``cramjam``
(one wheel for the four, the formats Tremor's Rust crates write). Every failure is a
:class:`~runtime_support.io.processors.errors.ProcessorError` with the library's reason.
"""

from __future__ import annotations

import gzip
import lzma
import zlib
from collections.abc import Callable

from runtime_support.io.processors.errors import ProcessorError

__all__ = ["ALGORITHMS", "check_level", "compress", "decompress", "detect"]

ALGORITHMS = ("gzip", "zlib", "xz2", "snappy", "lz4", "zstd", "br")

#: Allowed ``level`` range per algorithm (Tremor accepts a level for these three only).
LEVELS = {"xz2": (0, 9), "zstd": (-7, 22), "lz4": (0, 2**32 - 1)}
LEVEL_ERRORS = {
    "xz2": "Xz2 supports compression level between 0 and 9 but {0} was given",
    "zstd": "Zstd supports compression level between -7 and 22 but {0} was given",
    "lz4": "Lz4 compression level cannot be less than 0 but {0} was given",
}
DEFAULT_LEVELS = {"xz2": 9, "zstd": 0, "lz4": 4}


def _cramjam(name: str) -> object:
    import cramjam

    return getattr(cramjam, name)


def check_level(algorithm: str, level: int | None) -> None:
    """Tremor's config errors for ``level`` (ProcessorError with Tremor's message)."""
    if level is None:
        return
    if algorithm not in LEVELS:
        raise ProcessorError("Compression level not supported for given algorithm")
    low, high = LEVELS[algorithm]
    if not low <= level <= high:
        raise ProcessorError(LEVEL_ERRORS[algorithm].format(level))


def compress(algorithm: str, data: bytes, level: int | None = None) -> bytes:
    """``data`` compressed whole by ``algorithm`` (one gzip member, one xz stream, one frame)."""
    if level is None:
        level = DEFAULT_LEVELS.get(algorithm)
    try:
        if algorithm == "gzip":
            return gzip.compress(data, mtime=0)
        if algorithm == "zlib":
            return zlib.compress(data)
        if algorithm == "xz2":
            return lzma.compress(data, format=lzma.FORMAT_XZ, preset=level)
        if algorithm == "snappy":
            return bytes(_cramjam("snappy").compress(data))  # type: ignore[attr-defined]
        if algorithm == "lz4":
            return bytes(_cramjam("lz4").compress(data, level=level))  # type: ignore[attr-defined]
        if algorithm == "zstd":
            return bytes(_cramjam("zstd").compress(data, level=level))  # type: ignore[attr-defined]
        if algorithm == "br":
            return bytes(_cramjam("brotli").compress(data, level=11))  # type: ignore[attr-defined]
    except (OSError, ValueError, lzma.LZMAError, zlib.error) as err:
        raise ProcessorError(str(err)) from None
    raise ProcessorError(f"Unknown compression algorithm: {algorithm}")


def _gzip_first(data: bytes) -> bytes:
    """The first gzip member (Tremor's autodetect reads one member, its explicit gzip all)."""
    return zlib.decompressobj(wbits=31).decompress(data)


def _xz(data: bytes) -> bytes:
    return lzma.decompress(data, format=lzma.FORMAT_XZ)


def _via(module: str) -> Callable[[bytes], bytes]:
    def run(data: bytes) -> bytes:
        return bytes(_cramjam(module).decompress(data))  # type: ignore[attr-defined]

    return run


_DECOMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.decompress,
    "zlib": zlib.decompress,
    "xz2": _xz,
    "snappy": _via("snappy"),
    "lz4": _via("lz4"),
    "zstd": _via("zstd"),
    "br": _via("brotli"),
}


def decompress(algorithm: str, data: bytes) -> bytes:
    """``data`` decompressed by ``algorithm``; ProcessorError when it is not such data."""
    import cramjam

    try:
        return _DECOMPRESS[algorithm](data)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as err:
        raise ProcessorError(f"{algorithm}: {err}") from None
    except cramjam.DecompressionError as err:
        raise ProcessorError(f"{algorithm}: {err}") from None


def detect(data: bytes) -> bytes:
    """Tremor's ``autodetect``: the algorithm named by the magic bytes of the first 6 bytes
    (gzip, zlib, xz, snappy framed, lz4 frame, zstd); anything else, or under 6 bytes, passes
    through unchanged."""
    head = data[:6]
    if len(head) < 6:
        return data
    if head[:2] == b"\x1f\x8b":
        algorithm = "gzip-first"
    elif head[0] == 0x78 and head[1] in (0x01, 0x5E, 0x9C, 0xDA):
        algorithm = "zlib"
    elif head == b"\xfd7zXZ\x00":
        algorithm = "xz2"
    elif head == b"sNaPpY" or head[0] == 0xFF:
        algorithm = "snappy"
    elif head[:4] == b"\x04\x22\x4d\x18":
        algorithm = "lz4"
    elif head[:4] == b"\x28\xb5\x2f\xfd":
        algorithm = "zstd"
    else:
        return data
    if algorithm == "gzip-first":
        try:
            return _gzip_first(data)
        except zlib.error as err:
            raise ProcessorError(f"gzip: {err}") from None
    return decompress(algorithm, data)
