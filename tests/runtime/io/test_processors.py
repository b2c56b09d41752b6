"""Tremor's own pre-/postprocessor unit tests (``tremor-interceptor/src/{pre,post}processor/*.rs``),
transcribed by hand: exact bytes in and out, chunk boundaries, and errors with their reasons."""

from __future__ import annotations

import random

import pytest

from runtime_support.io.processors import (
    Failed,
    PostChain,
    PreChain,
    ProcessorError,
    postprocess_stream,
    preprocess_stream,
)
from runtime_support.io.processors import post as P
from runtime_support.io.processors import pre as R
from runtime_support.io.processors.compression import ALGORITHMS, decompress

# --- separate (preprocessor) ---------------------------------------------------------------


def _data(chunks: list) -> list[bytes]:
    return [d for d, _ in chunks]


def test_separate_named_alone_has_no_limit() -> None:
    """tremorc's difference (README): Tremor's default by name discards lines over 8192 bytes."""
    assert R.Separate.from_config(None).max_length is None
    assert _data(preprocess_stream(["separate"], b"x" * 9000 + b"\ny", 0)) == [b"x" * 9000, b"y"]


def test_separate_from_config() -> None:
    pp = R.Separate.from_config({"separator": "\n", "max_length": 12345, "buffered": False})
    assert (pp.buffered, pp.max_length, pp.separator) == (False, 12345, b"\n")
    with pytest.raises(ProcessorError) as err:
        R.Separate.from_config({"separator": "abc"})
    assert str(err.value) == "split Invalid config: Invalid 'separator': \"abc\", must be 1 byte."


def test_separate_test6() -> None:
    pp = R.Separate(10, 10, True)
    assert _data(pp.process(b"012345\n0123456789\n", 0)) == [b"012345", b"0123456789"]
    assert pp.process(b"012345", 0) == []
    assert _data(pp.process(b"\n0123456789\n", 0)) == [b"012345", b"0123456789"]
    assert pp.process(b"012345", 0) == []
    # Tremor: the read fails; here the fragment is dropped with the reason, the read goes on
    assert pp.process(b"0123456789\n", 0) == []
    assert pp.dropped == [
        "Discarded fragment of length 10 since total length of 16 exceeds maximum allowed "
        "length of 10"
    ]
    assert _data(pp.process(b"012345\n0123456789\n", 0)) == [b"012345", b"0123456789"]
    assert pp.finish(None, 0) == []


def test_separate_non_default_separator_and_empty() -> None:
    pp = R.Separate(0, 10, True)
    assert _data(pp.process(b"012345\x000123456789\x00", 0)) == [b"012345", b"0123456789"]
    pp = R.Separate()
    assert pp.process(b"", 0) == []
    assert pp.process(b"a", 0) == [] and pp.process(b"", 0) == []


def test_separate_buffering() -> None:
    pp = R.Separate(10, 10, True)
    assert _data(pp.process(b"012345\n0123456789\nabc\n", 0)) == [
        b"012345",
        b"0123456789",
        b"abc",
    ]
    assert pp.finish(None, 0) == []
    pp = R.Separate(10, 10, True)
    assert _data(pp.process(b"0123456789\n012345", 0)) == [b"0123456789"]
    assert _data(pp.process(b"\n", 0)) == [b"012345"]
    assert pp.finish(None, 0) == []
    pp = R.Separate(10, 10, True)
    assert _data(pp.process(b"0123456789\n012345", 0)) == [b"0123456789"]
    assert _data(pp.process(b"\nabc", 0)) == [b"012345"]
    assert _data(pp.finish(None, 0)) == [b"abc"]
    pp = R.Separate(10, 10, True)
    pp.process(b"0123456789\n012345", 0)
    assert _data(pp.process(b"abc\n", 0)) == [b"012345abc"]


def test_separate_leftovers() -> None:
    pp = R.Separate(10, 10, True)
    assert _data(pp.process(b"123\n456", 0)) == [b"123"]
    assert pp.process(b"7890", 0) == []
    assert _data(pp.process(b"123\n456", 0)) == [b"4567890123"]
    assert _data(pp.finish(None, 0)) == [b"456"]
    assert pp.buffer == b""


def test_separate_max_length() -> None:
    data = bytearray(b"A" * 10000)
    data[9998] = ord("\n")
    out = R.Separate(10, 0, False).process(bytes(data), 0)
    assert [len(d) for d, _ in out] == [9998, 1]
    pp = R.Separate.from_config({"separator": "\n", "max_length": 12345})
    assert [len(d) for d, _ in pp.process(bytes(data), 0)] == [9998]
    assert [len(d) for d, _ in pp.finish(None, 0)] == [1]


def test_separate_finish_chain() -> None:
    data = bytearray(b"A" * 100)
    data[89] = ord("|")
    pp = R.Separate.from_config({"separator": "|", "max_length": 0, "buffered": False})
    assert [len(d) for d, _ in pp.process(bytes(data), 0)] == [89, 10]
    assert _data(pp.finish(b"|", 0)) == [b"", b""]
    pp = R.Separate.from_config({"separator": "|", "max_length": 0, "buffered": True})
    assert [len(d) for d, _ in pp.process(bytes(data), 0)] == [89]
    assert [len(d) for d, _ in pp.finish(b"|A", 0)] == [10, 1]


@pytest.mark.parametrize(
    ("inbound", "first", "second"),
    [(b"snot\nbadger", b"snot", b"badger"), (b"snot\n", b"snot", b""), (b"\nsnot", b"", b"snot")]
    + [(b"\n", b"", b"")],
)
@pytest.mark.parametrize("separator", [b"\n", b"\r"])
def test_separate_no_buffer(inbound: bytes, first: bytes, second: bytes, separator: bytes) -> None:
    inbound = inbound.replace(b"\n", separator)
    assert _data(R.Separate(separator[0], 0, False).process(inbound, 0)) == [first, second]


def test_separate_buffered_and_lines() -> None:
    text = b"snot\nbadger\nwombat\ncapybara\nquagga"
    pre = R.Separate(10, 1000, True)
    assert _data(pre.process(text, 0) + pre.finish(None, 0)) == text.split(b"\n")
    encoded = P.Separate().process(b"snot\nbadger")
    assert encoded == [b"snot\nbadger\n"]
    pre = R.Separate()
    assert _data(pre.process(encoded[0], 0)) == [b"snot", b"badger"]
    assert pre.finish(None, 0) == []


# --- the other preprocessors ---------------------------------------------------------------


def test_remove_empty() -> None:
    pre = R.RemoveEmpty()
    assert pre.process(b"snot badger", 0) == [(b"snot badger", 0)]
    assert pre.process(b"", 0) == [] and pre.finish(None, 0) == []


def test_base64_round_trip() -> None:
    assert P.Base64().process(b"snot badger") == [b"c25vdCBiYWRnZXI="]
    assert R.Base64().process(b"c25vdCBiYWRnZXI=", 0) == [(b"snot badger", 0)]
    assert R.Base64().process(b"c25vdCBiYWRnZXI", 0) == [(b"snot badger", 0)]  # padding optional
    assert P.Base64().process(b"") == [b""]
    assert P.Base64().process(b"\n") == [b"Cg=="]
    assert P.Base64().process(b"snot") == [b"c25vdA=="]
    with pytest.raises(ProcessorError, match="Invalid symbol 32, offset 4"):
        R.Base64().process(b"c25v dA==", 0)


def test_ingest_ns() -> None:
    assert R.IngestNs().process(bytes([0, 0, 0, 0, 0, 0, 0, 42]) + b"89", 0) == [(b"89", 42)]
    with pytest.raises(ProcessorError, match="< 8 byte"):
        R.IngestNs().process(bytes(7), 0)
    post = P.IngestNs()
    encoded = post.process(bytes([1, 2, 3]), 42, 23)[0]
    assert R.IngestNs().process(encoded, 0) == [(bytes([1, 2, 3]), 42)]
    assert post.finish(None) == []


def test_length_prefixed() -> None:
    data = bytes(range(10))
    wire = P.LengthPrefixed().process(data)[0]
    assert wire == (10).to_bytes(8, "big") + data
    chain = PreChain(["length-prefixed"])
    assert chain.process(wire[:7], 0) == []
    assert chain.process(wire[7:], 0) == [(data, 0)]
    assert chain.process(wire[:7], 0) == []
    assert chain.finish(0) == []  # an incomplete message is not emitted


def test_textual_length_prefixed() -> None:
    pre = R.TextualLengthPrefixed()
    payload = pre.process(b"42 " + b"O" * 42, 0)
    assert [len(d) for d, _ in payload] == [42]
    pre = R.TextualLengthPrefixed()
    assert pre.process(b"", 0) == []
    assert P.TextualLengthPrefixed().process(b"") == [b"0 "]
    assert pre.process(b"0 ", 0) == [(b"", 0)]
    assert P.TextualLengthPrefixed().process(bytes([1, 2, 3])) == [b"3 \x01\x02\x03"]


def test_textual_length_prefix_loop() -> None:
    datas = [
        "24 '?\U000d617eѨR\u202e\U000f8f7c\U000ede29\U000ac78436 ?{¥?MȺ\r\U000bac419\U0005bbbb\r"
        "\U0001c46c\U0004ba79¥\x7f*?:\x00$i",
        "60 %\U000a825a\U000a4269\U00039e0c\U000b3e21<ì\U000f6c20ѨÛ`HW\U0009523fV",
        "\x03\U000605fe%Fq\U00089b5e\U00093780Q3",
        "¥?\ufeff9",
        " '\ufffd2\U0004269b",
    ]
    pre = R.TextualLengthPrefixed()
    out = [d for text in datas for d, _ in pre.process(text.encode("utf-8"), 0)]
    assert [len(d) for d in out] == [24, 36, 60, 9]


@pytest.mark.parametrize("seed", range(20))
def test_textual_length_prefix_chopped(seed: int) -> None:
    """Tremor's proptest: length-prefixed strings, concatenated, chopped into up to 5 reads."""
    rng = random.Random(seed)
    texts = ["".join(chr(rng.randrange(33, 0x2FF)) for _ in range(rng.randrange(1, 40)))]
    texts += ["x" * rng.randrange(1, 5) for _ in range(rng.randrange(0, 4))]
    wire = b"".join(str(len(t.encode())).encode() + b" " + t.encode() for t in texts)
    cuts = sorted(rng.sample(range(1, len(wire)), min(4, len(wire) - 1)))
    pieces = [wire[a:b] for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True)]
    pre = R.TextualLengthPrefixed()
    out = [d for piece in pieces for d, _ in pre.process(piece, 0)]
    assert [len(d) for d in out] == [len(t.encode()) for t in texts]


def test_textual_length_prefix_bad_length() -> None:
    with pytest.raises(ProcessorError, match="invalid digit"):
        R.TextualLengthPrefixed().process(b"4x abcd", 0)


# --- decompress / compress ------------------------------------------------------------------

MAGIC = {
    "gzip": b"\x1f\x8b",
    "zlib": b"\x78",
    "xz2": b"\xfd7z",
    "snappy": b"\xff\x06\x00\x00",
    "lz4": b"\x04\x22\x4d\x18",
    "zstd": b"\x28\xb5\x2f\xfd",
}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_compress_symmetric(algorithm: str) -> None:
    config = {"algorithm": algorithm}
    wire = P.Compress(config).process(b"snot")[0]
    assert wire.startswith(MAGIC.get(algorithm, b""))
    assert R.Decompress.from_config(config).process(wire, 0) == [(b"snot", 0)]
    if algorithm != "br":  # brotli has no magic bytes
        assert R.Decompress.from_config({"algorithm": "autodetect"}).process(wire, 0) == [
            (b"snot", 0)
        ]
        assert R.Decompress.from_config(None).process(wire, 0) == [(b"snot", 0)]


def test_decompress_passes_unknown_data_and_rejects_bad() -> None:
    assert R.Decompress().process(b"snot badger", 0) == [(b"snot badger", 0)]
    assert R.Decompress().process(b"snot", 0) == [(b"snot", 0)]  # under 6 bytes
    with pytest.raises(ProcessorError, match="Unknown compression algorithm: snot"):
        R.Decompress.from_config({"algorithm": "snot"})
    with pytest.raises(ProcessorError, match="^gzip: "):
        R.Decompress.from_config({"algorithm": "gzip"}).process(b"\x1f\x8bnot gzip", 0)
    chain = preprocess_stream([{"name": "decompress", "config": {"algorithm": "zstd"}}], b"x", 0)
    assert len(chain) == 1 and isinstance(chain[0], Failed) and chain[0].reason.startswith("zstd")


def test_compress_config_errors() -> None:
    for algorithm in ("gzip", "zlib", "xz2", "snappy", "lz4", "zstd", "br"):
        P.Compress({"algorithm": algorithm})
    for bad in ("gzi", "xz", "snapp", "zli", "zst", "snot"):
        with pytest.raises(ProcessorError, match=f"Unknown compression algorithm: {bad}"):
            P.Compress({"algorithm": bad})
    with pytest.raises(ProcessorError, match="Missing algorithm"):
        P.Compress({})
    for level in (-1, 10):
        with pytest.raises(ProcessorError, match="between 0 and 9"):
            P.Compress({"algorithm": "xz2", "level": level})
    for level in range(10):
        P.Compress({"algorithm": "xz2", "level": level})
    with pytest.raises(ProcessorError, match="cannot be less than 0"):
        P.Compress({"algorithm": "lz4", "level": -1})
    for level in (-8, 23):
        with pytest.raises(ProcessorError, match="between -7 and 22"):
            P.Compress({"algorithm": "zstd", "level": level})
    for level in range(-7, 23):
        wire = P.Compress({"algorithm": "zstd", "level": level}).process(b"snot")[0]
        assert decompress("zstd", wire) == b"snot"
    with pytest.raises(ProcessorError, match="level not supported"):
        P.Compress({"algorithm": "gzip", "level": 3})


@pytest.mark.parametrize("algorithm", ["zstd", "xz2"])
def test_streaming_compress(algorithm: str) -> None:
    post = P.StreamingCompress({"algorithm": algorithm})
    out = post.process(b"hello") + post.process(b" badger") + post.finish(b" world")
    assert decompress(algorithm, b"".join(out)) == b"hello badger world"
    for level in (-1, 10):
        with pytest.raises(ProcessorError, match="between 0 and 9"):
            P.StreamingCompress({"algorithm": "xz2", "level": level})
    for level in (-8, 23):
        with pytest.raises(ProcessorError, match="between -7 and 22"):
            P.StreamingCompress({"algorithm": "zstd", "level": level})
    with pytest.raises(ProcessorError, match="Unknown compression algorithm: gzip"):
        P.StreamingCompress({"algorithm": "gzip"})


@pytest.mark.parametrize(
    ("algorithm", "magic"), [("xz2", b"\xfd7zXZ\x00"), ("zstd", b"\x28\xb5\x2f\xfd")]
)
def test_streaming_compress_is_one_stream(algorithm: str, magic: bytes) -> None:
    events = [b"event %d\n" % i for i in range(50_000)]
    spec = [{"name": "streaming-compress", "config": {"algorithm": algorithm}}]
    wire = postprocess_stream(spec, events)
    assert decompress(algorithm, wire) == b"".join(events)
    assert wire.count(magic) == 1  # one stream, not one per event


# --- chunk / collect ------------------------------------------------------------------------


def test_chunk_config() -> None:
    for config in ({"max_bytes": 0}, [], {"max_bytes": 100, "another_field": [True]}, None):
        with pytest.raises(ProcessorError):
            P.Chunk(config)  # type: ignore[arg-type]
    assert P.Chunk({"max_bytes": 1432}).max_bytes == 1432


def test_chunk_exact_and_too_big() -> None:
    assert P.Chunk({"max_bytes": 100}).process(bytes(100)) == [bytes(100)]
    pp = P.Chunk({"max_bytes": 100})
    assert pp.process(bytes(101)) == [] and pp.finish(None) == []


@pytest.mark.parametrize("seed", range(30))
def test_chunk_property(seed: int) -> None:
    """Tremor's proptest ``test_chunk``, over seeded random inputs."""
    rng = random.Random(seed)
    pp, acc, max_bytes = P.Chunk({"max_bytes": 100}), 0, 100
    for _ in range(rng.randrange(0, 100)):
        data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 5, 30, 60, 99, 100, 500])))
        res = pp.process(data)
        assert all(res) and all(len(r) <= max_bytes for r in res)
        if len(data) > max_bytes:
            assert res == []
        elif acc + len(data) > max_bytes:
            assert len(res) == 1
            acc = len(data)
        elif acc + len(data) == max_bytes:
            assert [len(r) for r in res] == [max_bytes]
            acc = 0
        else:
            assert res == []
            acc += len(data)
    last = rng.choice([None, b"", b"x" * 50, b"y" * 200])
    res = pp.finish(last)
    assert all(res) and all(len(r) <= max_bytes for r in res)
    if acc > 0 or (last and len(last) <= max_bytes):
        assert res


def test_collect() -> None:
    pp = P.Collect({})
    assert [pp.process(b""), pp.process(b"snot"), pp.process(b"badger")] == [[], [], []]
    assert pp.finish(b"wobble") == [b"snotbadgerwobble"]
    pp = P.Collect({})
    pp.process(b"snot"), pp.process(b"badger")
    assert pp.finish(None) == [b"snotbadger"]
    pp = P.Collect({"max_bytes": 5})
    assert pp.process(b"") == [] and pp.process(b"snot") == []
    assert pp.process(b"badger") == [b"snot"]
    assert pp.finish(b"wobble") == [b"badger", b"wobble"]


# --- separate / length prefix / gelf (postprocessors) ---------------------------------------


def test_separate_postprocessor() -> None:
    pp = P.Separate({"separator": "|"})
    assert pp.process(b"") == [b"|"] and pp.process(b"foob") == [b"foob|"]
    pp = P.Separate(None)
    assert pp.process(b"") == [b"\n"] and pp.process(b"foob") == [b"foob\n"]
    with pytest.raises(ProcessorError) as err:
        P.Separate({"separator": "abc"})
    assert (
        str(err.value) == "seperate Invalid config: Invalid 'separator': \"abc\", must be 1 byte."
    )


def test_postprocess_chain() -> None:
    """Tremor's ``postprocess_ok``, with base64 standing in for its test-only reverse."""
    chain = PostChain(["base64", "separate"])
    assert chain.process(b"\ntons\nregdab\n", 42) == [b"CnRvbnMKcmVnZGFiCg==\n"]
    assert chain.finish() == []


def test_gelf_round_trip() -> None:
    data = bytes(range(20))
    encoder = P.GelfChunking(chunk_size=20)
    wire = encoder.process(data, 0, 0)
    assert len(wire) == 3
    decoder = R.GelfChunking()
    assert decoder.process(wire[0], 0) == [] and decoder.process(wire[1], 0) == []
    assert decoder.process(wire[2], 0) == [(data, 0)]


def test_gelf_message_ids() -> None:
    data = bytes(range(20))
    encoder = P.GelfChunking(chunk_size=20, counter=2)
    assert int.from_bytes(encoder.process(data, 0)[1][2:10], "big") == (2 << 16)
    encoder = P.GelfChunking(chunk_size=20, counter=2**64 - 1)
    first, second = encoder.process(data, 0), encoder.process(data, 0)
    assert int.from_bytes(first[1][2:10], "big") == ((2**64 - 1) << 16) % 2**64
    assert int.from_bytes(second[1][2:10], "big") == 0


def test_gelf_preprocessor_headers() -> None:
    pre = R.GelfChunking()
    assert pre.process(b'{"snot": "badger"}', 0) == [(b'{"snot": "badger"}', 0)]
    assert pre.process(b"{}", 0) == [(b"{}", 0)]
    for bad in (b"", b"{"):
        with pytest.raises(ProcessorError, match="Invalid Gelf Header"):
            pre.process(bad, 0)
    with pytest.raises(ProcessorError, match=r"Invalid Gelf Header: 3 bytes, Some\(\[1, 2\]\)"):
        pre.process(b"\x01\x02\x03", 0)


def test_gelf_too_many_chunks() -> None:
    with pytest.raises(ProcessorError, match="Maximum number of chunks is 128"):
        P.GelfChunking(chunk_size=13).process(bytes(129), 0)


# --- chains ----------------------------------------------------------------------------------


def test_pre_chain_errors_are_items() -> None:
    out = preprocess_stream(["separate", "base64"], b"c25vdA==\n!!\nYmFkZ2Vy", 3)
    assert out == [(b"snot", 3), Failed("Invalid symbol 33, offset 0."), (b"badger", 3)]


def test_pre_chain_reports_discarded_fragments() -> None:
    config = {"name": "separate", "config": {"max_length": 3}}
    out = preprocess_stream([config], b"abc\nabcdef\nxy\n", 0)
    assert out[1:] == [(b"abc", 0), (b"xy", 0)]
    assert isinstance(out[0], Failed) and "exceeds maximum allowed length of 3" in out[0].reason
    # a too long last fragment (no separator after it) loses only itself
    out = preprocess_stream([config], b"ab\ncd\nlong tail", 0)
    assert [item for item in out if not isinstance(item, Failed)] == [(b"ab", 0), (b"cd", 0)]
    assert sum(isinstance(item, Failed) for item in out) == 1


def test_compressed_lines_round_trip() -> None:
    events = [b'{"i":%d}' % i for i in range(100)]
    for algorithm in ALGORITHMS:
        spec = [{"name": "compress", "config": {"algorithm": algorithm}}]
        blobs = [postprocess_stream(spec, [e + b"\n"]) for e in events]
        pre = [{"name": "decompress", "config": {"algorithm": algorithm}}, "separate"]
        assert [preprocess_stream(pre, blob, 0) for blob in blobs] == [[(e, 0)] for e in events]
