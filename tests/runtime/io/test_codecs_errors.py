"""What a source does with a chunk its codec rejects (one ``err`` event with the reason, the
chunk kept byte for byte), and what a sink does with an event its codec can not encode
(reported, written as nothing): never a traceback."""

from __future__ import annotations

import base64
import json

import pytest

from runtime_support.io.codecs import codec_from
from runtime_support.spark.input_lines import CODEC_ERROR, BadLine, decode_line


def rejected(codec: str, chunk: bytes) -> dict:
    text = codec_from(codec).decoded_text(chunk)
    assert text is not None and text.startswith(CODEC_ERROR)
    with pytest.raises(BadLine) as caught:  # the stage turns it into the err event
        decode_line(text.encode())
    return json.loads(caught.value.record)


def test_a_rejected_text_chunk_is_an_err_event_with_the_reason_and_the_chunk() -> None:
    record = rejected("statsd", b"gorets")
    assert record == {"error": "Invalid statsd input: Invalid statsd metric", "event": "gorets"}


def test_a_rejected_binary_chunk_keeps_its_bytes() -> None:
    record = rejected("msgpack", b"\xc1\xff")
    assert record["error"].startswith("Invalid msgpack input: Invalid msgpack data")
    assert base64.b64decode(record["event"]) == b"\xc1\xff"  # a binary value renders as base64


def test_not_utf8_for_a_text_codec_is_rejected_too() -> None:
    record = rejected("string", b"a\xffb")
    assert record["error"] == "Invalid string input: invalid utf-8 sequence of 1 bytes from index 1"


def test_decoded_chunks_are_event_json_and_empty_ones_no_event() -> None:
    assert codec_from("csv").decoded_text(b"a,1") == '["a","1"]'
    assert codec_from("csv").decoded_text(b"") is None
    assert codec_from("influx").decoded_text(b"m f=1i", 7) == (
        '{"measurement":"m","tags":{},"fields":{"f":1},"timestamp":7}'
    )


def test_a_json_line_that_looks_like_the_mark_is_still_only_an_err_event() -> None:
    with pytest.raises(BadLine):
        decode_line(b"\0codec-err")


def test_an_unencodable_event_is_reported_and_written_as_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert codec_from("statsd").encode({"no": "metric"}) is None
    assert capsys.readouterr().err == (
        "Error: codec statsd can not encode an event: Invalid statsd metric\n"
    )
