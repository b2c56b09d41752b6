"""Input lines Tremor's json codec would reject become one err record each, with the line
(runtime_support.spark.input_lines), and numbers and nesting read as Tremor reads them
(runtime_support.tremor.jsonio). The expectations are simd-json 0.13's rules (Tremor's parser), read
in its source: ``numberparse/correct.rs`` (no ``big-int-as-float``), ``tremor-value``'s
last-key-wins map insert."""

from __future__ import annotations

import base64
import json

import pyarrow as pa
import pytest

from runtime_support.spark.input_lines import BadLine, decode_line, source_columns
from runtime_support.tremor.jsonio import MAX_DEPTH, decode_json, encode_json

U64_MAX, I64_MIN = 18446744073709551615, -9223372036854775808


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("18446744073709551615", U64_MAX),
        ("-9223372036854775808", I64_MIN),
        ("-0", 0),
        ("1e-400", 0.0),
        ("[1.23456789012345678901234567890]", [1.2345678901234568]),
        ('{"n":"123456789012345678901234567890"}', {"n": "123456789012345678901234567890"}),
        ('{"a":1,"b":2,"a":3}', {"a": 3, "b": 2}),
        ('{"":{"":[]}}', {"": {"": []}}),
    ],
)
def test_numbers_and_keys_tremor_reads(text: str, value: object) -> None:
    got = decode_json(text)
    assert got == value and json.dumps(got) == json.dumps(value)


@pytest.mark.parametrize(
    "text",
    ["18446744073709551616", "-9223372036854775809", "[" + "9" * 30 + "]", "1e400", "-1e400"],
)
def test_numbers_tremor_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        decode_json(text)
    with pytest.raises(ValueError):
        decode_json(text.encode())


@pytest.mark.parametrize("open_, close", [("[", "]"), ('{"a":', "}")])
def test_nesting_limit(open_: str, close: str) -> None:
    deepest = open_ * MAX_DEPTH + "1" + close * MAX_DEPTH
    value = decode_json(deepest)
    assert json.loads(encode_json({"wrapped": [value]})) == {"wrapped": [json.loads(deepest)]}
    for depth in (MAX_DEPTH + 1, 1025, 5000):
        with pytest.raises(ValueError, match=f"nesting deeper than {MAX_DEPTH} levels"):
            decode_json(open_ * depth + "1" + close * depth)


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps(["[" * 2000, {"k{": "]" * 10}])
    assert decode_json(text) == ["[" * 2000, {"k{": "]" * 10}]


def _record(raw: bytes) -> dict:
    with pytest.raises(BadLine) as caught:
        decode_line(raw)
    return json.loads(caught.value.record)


def test_a_line_that_is_not_utf8_is_kept_as_base64() -> None:
    raw = b'{"key":"a\xff"}'
    record = _record(raw)
    assert record["error"].startswith("Invalid UTF-8 input: byte 0xff at offset 9")
    assert base64.b64decode(record["event"]) == raw


def test_invalid_json_keeps_the_line() -> None:
    for raw in (b'{"a":1} x', '{"a":1} x', b"[1e400]", '{"n":"\u00e9"'):
        record = _record(raw)
        text = raw.decode() if isinstance(raw, bytes) else raw
        assert record["error"].startswith("Invalid JSON input: ") and record["event"] == text
    assert decode_line(b'{"a":"\xc3\xa9"}') == {"a": "\u00e9"}


def test_source_columns_pass_bytes_the_text_reader_kept() -> None:
    values = pa.array([b'{"a":1}', b"\xfe{}"], pa.binary()).view(pa.string())
    batch = pa.RecordBatch.from_arrays([pa.array([0, 1]), values], ["seq", "value"])
    with pytest.raises(UnicodeDecodeError):
        batch.to_pydict()  # why the source stage does not read text
    assert source_columns(batch) == {"seq": [0, 1], "value": [b'{"a":1}', b"\xfe{}"]}
