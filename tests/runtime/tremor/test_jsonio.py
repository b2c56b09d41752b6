"""Tests for runtime_support.tremor.jsonio: Tremor's JSON reading and writing."""

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime_support.tremor.jsonio import (
    canonical_json,
    decode_json,
    encode_json,
    encode_json_pretty,
    format_float,
    interp_str,
)


@pytest.mark.parametrize(
    ("f", "text"),
    [
        (1.0, "1.0"),
        (2.0, "2.0"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (1e16, "1e16"),
        (1e15, "1000000000000000.0"),
        (123456789012345680.0, "1.2345678901234568e17"),
        (1.5e-7, "1.5e-7"),
        (1e-5, "0.00001"),
        (1.234e-5, "0.00001234"),
        (1e-6, "1e-6"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (-1.5, "-1.5"),
        (100.0, "100.0"),
    ],
)
def test_float_format_matches_ryu(f, text):
    assert format_float(f) == text
    assert encode_json([f]) == f"[{text}]"


def test_decode_keeps_int_vs_float():
    v = decode_json('{"a": 1, "b": 1.0, "c": 1e2, "d": 18446744073709551615, "e": -5}')
    assert v == {"a": 1, "b": 1.0, "c": 100.0, "d": 2**64 - 1, "e": -5}
    assert type(v["a"]) is int and type(v["b"]) is float and type(v["c"]) is float


def test_decode_duplicate_keys_last_wins_and_order_kept():
    v = decode_json('{"z": 1, "a": 2, "z": 3}')
    assert v == {"z": 3, "a": 2}


def test_decode_errors():
    with pytest.raises(ValueError):
        decode_json("{")
    with pytest.raises(ValueError):
        decode_json("[NaN]")


def test_encode_compact_ordered_and_bytes():
    v = {"b": b"\x00\xff", "a": [True, None, 'x\n"é'], "i": -(2**63), "u": 2**64 - 1}
    assert encode_json(v) == (
        '{"b":"AP8=","a":[true,null,"x\\n\\"é"],"i":-9223372036854775808,"u":18446744073709551615}'
    )


def test_encode_control_chars():
    assert encode_json("\x01\t") == '"\\u0001\\t"'


def test_canonical_sorts_nested_keys():
    assert canonical_json({"b": {"d": 1, "c": 2.0}, "a": []}) == '{"a":[],"b":{"c":2.0,"d":1}}'


def test_pretty():
    assert encode_json_pretty({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}'


def test_interp():
    assert interp_str("raw") == "raw"
    assert interp_str(None) == "null"
    assert interp_str({"a": "b"}) == '{"a":"b"}'
    assert interp_str(b"hi") == '"aGk="'


def test_non_finite_floats_become_null():
    assert encode_json([math.inf, math.nan]) == "[null,null]"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(), kids, max_size=4),
    max_leaves=20,
)


def _same_types(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return list(a) == list(b) and all(_same_types(a[k], b[k]) for k in a)
    return a == b or (type(a) is float and a == b)


@given(json_values)
def test_round_trip_keeps_int_float_and_order(v):
    back = decode_json(encode_json(v))
    assert back == v
    assert _same_types(back, v)


LINES = [
    b'{"a":1}',
    b'{"a": 18446744073709551615, "b": -9223372036854775808}',
    b'{"a": 18446744073709551616}',
    b'{"a": -9223372036854775809, "pad": "...................."}',
    b'{"s": "0000000000000000000000", "n": 1}',
    b"[1e400]",
    b"[" * 254 + b"]" * 254,
    b"[" * 255 + b"]" * 255,
    b'{"a":' * 255 + b"1" + b"}" * 255,
    b'{"a": 1, "a": 2.0}',
    b"not json",
    b'{"a": "\xff"}',
    b"",
    b"\x00codec-error\x00{}",
]


@pytest.mark.parametrize("line", LINES)
def test_the_line_decoder_agrees_with_decode_json(line):
    """Same value, or an error for the same lines (its fast path defers to the general one)."""
    from runtime_support.spark.input_lines import decode_line

    def outcome(decode):
        try:
            return ("value", encode_json(decode(line)))
        except ValueError:
            return ("error", None)

    assert outcome(decode_line) == outcome(decode_json)


@given(json_values)
def test_the_inlined_encoder_agrees_with_the_general_one(v):
    from runtime_support.tremor.jsonio import _dumps

    assert encode_json(v) == _dumps(v)


@pytest.mark.parametrize("v", [1e16, [1.5e-7, {"x": 1e300}], b"bin", {"deep": [[[[1.0]]]]}])
def test_the_inlined_encoder_agrees_on_floats_and_binaries(v):
    from runtime_support.tremor.jsonio import _dumps

    assert encode_json(v) == _dumps(v)


def _outcome(decode, line):
    try:
        return ("value", encode_json(decode(line)))
    except ValueError as err:
        return ("error", str(err))


def _texts(lines, kind):
    import pyarrow as pa

    return pa.array(lines, kind)


@pytest.mark.parametrize("kind", ["binary", "large_binary"])
def test_row_decoders_agree_with_decode_json_on_every_line(kind):
    """Whatever a batch holds, each row's decoder gives decode_json's value or error."""
    from runtime_support.tremor.jsonio import row_decoders

    lines = [line for line in LINES if not line.startswith(b"\x00")] + [None]
    decoders = row_decoders(_texts(lines, kind))
    for line, decode in zip(lines[:-1], decoders, strict=False):
        assert _outcome(decode, line) == _outcome(decode_json, line), line


def test_row_decoders_check_exactly_the_risky_rows():
    """Rows decode_json would check (runs of 20 digits or of a minus and 19, more than 254
    openers) get it; others the plain parse; a run across two rows marks both (conservative)."""
    import orjson

    from runtime_support.tremor.jsonio import row_decoders

    deep = b"[" * 255 + b"]" * 255
    many_flat = b"[" + b"[]," * 300 + b"[]]"  # 301 openers, depth 2: checked, not refused
    lines = [b"1", b'{"big": 18446744073709551616}', b'"x"', deep]
    lines += [b"12345678901", b"123456789012", b'"y"']  # a run of 23 digits across rows 4 and 5
    lines += [many_flat] + [b"[[1]]"] * 40
    decoders = row_decoders(_texts(lines, "binary"))
    checked = [i for i, decode in enumerate(decoders) if decode is decode_json]
    assert checked == [1, 3, 4, 5, 7]
    assert all(decoders[i] is orjson.loads for i in range(len(lines)) if i not in checked)
    assert _outcome(decoders[7], many_flat)[0] == "value"


def test_row_decoders_count_openers_per_row_around_empty_rows():
    """Empty rows (between, before and after rows of more than 254 openers) neither hide an
    opener of the rows beside them nor are marked themselves."""
    from runtime_support.tremor.jsonio import row_decoders

    deep = b"[" * 255 + b"]" * 255
    shallow = b"[" * 254 + b"]" * 254 + b"  "
    lines = [b"", deep, b"", b"", shallow, deep, b""]
    decoders = row_decoders(_texts(lines, "binary"))
    assert [decode is decode_json for decode in decoders] == [
        False, True, False, False, False, True, False,
    ]  # fmt: skip


def test_row_decoders_without_the_nesting_screen_still_screen_integers():
    from runtime_support.tremor.jsonio import row_decoders

    deep = b"[" * 255 + b"]" * 255
    lines = [deep, b'{"big": 18446744073709551616}', b"1"]
    decoders = row_decoders(_texts(lines, "binary"), nesting=False)
    assert [decode is decode_json for decode in decoders] == [False, True, False]


def test_row_decoders_read_a_sliced_column():
    """A column that is a slice of a larger one (a non-zero offset) is screened on its rows."""
    from runtime_support.tremor.jsonio import row_decoders

    lines = [b"1", b"[18446744073709551616]", b"2", b"[18446744073709551616]", b"3"]
    column = _texts(lines, "binary").slice(2, 3)
    decoders = row_decoders(column)
    assert [decode is decode_json for decode in decoders] == [False, True, False]


@given(st.lists(st.one_of(st.integers(), st.floats(allow_nan=False), json_values), max_size=8))
def test_row_decoders_agree_with_decode_json_on_generated_rows(values):
    from runtime_support.tremor.jsonio import row_decoders

    lines = [json.dumps(v).encode() for v in values]  # any integer, also out of range
    for line, decode in zip(lines, row_decoders(_texts(lines, "binary")), strict=True):
        assert _outcome(decode, line) == _outcome(decode_json, line)


def test_row_decoders_screen_a_batch_larger_than_one_chunk():
    """A batch of several screening chunks: the rows marked are exactly those whose own text
    has an integer literal out of range where an integer stands (strings not told apart) or
    more than 254 openers in over 508 bytes, wherever a chunk ends (runs of 16-19 digits,
    in-range literals of 20 digits and long digit runs inside strings are not marked)."""
    import re

    from runtime_support.tremor.jsonio import _CHUNK_BYTES, row_decoders

    filler = b'{"about":"' + b"x" * 600 + b'","n":12345678}'
    risky = {
        b'{"n":' + b"9" * 20 + b"}",
        b'{"n":-' + b"1" * 25 + b"}",
        b'{"n":-' + b"9" * 19 + b"}",
        b"[" * 255 + b"]" * 255,
        b'{"s":"' + b"{" * 300 + b'"}',
    }
    harmless = [b'{"n":' + b"7" * 18 + b"}", b'{"n":' + b"7" * 16 + b"}", b"[" * 254 + b"]" * 254]
    harmless += [b'{"ts":' + b"1" * 19 + b"}", b'{"n":-' + b"1" * 18 + b"}"]
    harmless += [
        b'{"u":18446744073709551615,"i":-9223372036854775808}',
        b'{"s":"' + b"9" * 40 + b'"}',
    ]
    lines = []
    for i in range(3 * _CHUNK_BYTES // len(filler)):
        lines.append(filler)
        if i % 97 == 0:
            lines.append(sorted(risky)[i % len(risky)])
        if i % 89 == 0:
            lines.append(harmless[i % len(harmless)])
    expected = [
        i
        for i, line in enumerate(lines)
        if any(
            not -(2**63) <= int(literal) <= 2**64 - 1
            for literal in re.findall(rb"(?:^|[:,\[\s])(-?\d{19,})(?=[,\]}\s]|$)", line)
        )
        or (len(line) > 508 and len(re.findall(rb"[\[{]", line)) > 254)
    ]
    assert len(expected) > 10
    decoders = row_decoders(_texts(lines, "binary"))
    assert [i for i, decode in enumerate(decoders) if decode is decode_json] == expected
