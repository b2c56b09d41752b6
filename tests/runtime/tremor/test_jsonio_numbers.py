"""Tremor's number rules on every JSON reading path of runtime_support.tremor.jsonio.

Tremor (simd-json without ``big-int-as-float``) reads an integer from i64::MIN to u64::MAX as an
integer and refuses the line beyond that (never a float); a number with a fraction or an
exponent is a float (one that overflows to infinity is refused); ``-0`` is the integer 0. Digits
inside strings are text, whatever their length. The expected values below come from those rules
(and, for generated lines, from Python's own ``json`` module with the range rule applied to its
integers), not from the code under test.

Paths: :func:`decode_json` on ``str`` and on ``bytes``, the batch decoders of
:func:`row_decoders` (a row in a batch of ordinary rows), and the input line decoder
(:func:`~runtime_support.spark.input_lines.decode_line`, whose ``err`` record names the reason).
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime_support.spark.input_lines import BadLine, decode_line
from runtime_support.tremor.jsonio import decode_json, row_decoders

I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
REASON = "integer {} out of range (Tremor's integers: i64::MIN..u64::MAX)"
PAD = '"pad": "a long enough event to take every screen", "ts": 1700000000000000000'

# (JSON text, the value Tremor reads) - the value's type matters (int vs float).
VALUES = [
    ("-9223372036854775808", I64_MIN),
    ("9223372036854775807", I64_MAX),
    ("9223372036854775808", I64_MAX + 1),
    ("18446744073709551615", U64_MAX),
    ("1700000000000000000", 1_700_000_000_000_000_000),  # a nanosecond timestamp
    ("9999999999999999999", 9_999_999_999_999_999_999),  # every 19-digit integer is in range
    ("-999999999999999999", -999_999_999_999_999_999),
    ("0", 0),
    ("-0", 0),
    ("-0.0", -0.0),
    ("1e2", 100.0),
    ("1E+2", 100.0),
    ("1e-400", 0.0),
    ("2.5e-3", 0.0025),
    ("18446744073709551616.0", 18446744073709551616.0),  # a float, not an integer
    ("18446744073709551616e0", 18446744073709551616.0),
    ("-9223372036854775809.5", -9223372036854775809.5),
    ("1e0000000000000000000000002", 100.0),  # a long exponent is no integer
    ("1e-0000000000000000000000002", 0.01),
    ("0.00000000000000000000000001", 1e-26),
    ('"123456789012345678901234567890"', "123456789012345678901234567890"),
    ('"-99999999999999999999"', "-99999999999999999999"),
    ('"' + "7" * 5000 + '"', "7" * 5000),
    ('"\\"99999999999999999999"', '"99999999999999999999'),  # after an escaped quote
    ('"\\\\\\"-99999999999999999999"', '\\"-99999999999999999999'),
    ('"1.5e999 and 1e400 as text"', "1.5e999 and 1e400 as text"),
]
# JSON texts Tremor refuses because of an integer out of range: (text, the integer's literal).
OUT_OF_RANGE = [
    ("18446744073709551616", "18446744073709551616"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("99999999999999999999", "99999999999999999999"),
    ("-10000000000000000000", "-10000000000000000000"),
    ("123456789012345678901234567890", "123456789012345678901234567890"),
    ('["\\\\", 18446744073709551616]', "18446744073709551616"),  # after an escaped backslash
    ('{"s": "\\\\\\\\", "n": -9223372036854775809}', "-9223372036854775809"),
    ('{"id": "99999999999999999999", "n": 18446744073709551617}', "18446744073709551617"),
]
INFINITE = ["1e400", "-1e400", "[1.7976931348623159e308]"]


def _events(text: str) -> list[str]:
    """``text`` as a JSON document of its own, in an array, and as a field of a longer event."""
    return [text, f"[{text}]", f'{{"a": 1, "v": {text}, {PAD}}}']


def _expected(text: str, value):
    return [value, [value], {"a": 1, "v": value, **json.loads("{" + PAD + "}")}]


def _same(got, want) -> bool:
    if type(got) is not type(want):
        return False
    if type(got) is list:
        return len(got) == len(want) and all(_same(a, b) for a, b in zip(got, want, strict=True))
    if type(got) is dict:
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in got)
    if type(got) is float:
        return got == want and str(got) == str(want)  # -0.0 is not 0.0
    return got == want


def _paths(line: str) -> dict[str, object]:
    """The outcome of each reading path for ``line``: its value, or ("error", reason)."""
    raw = line.encode()
    batch = [b'{"n": 1}', raw, b'{"ts": 1700000000000000000}']
    outcomes: dict[str, object] = {}
    for name, decode, arg in [
        ("str", decode_json, line),
        ("bytes", decode_json, raw),
        ("batch", row_decoders(pa.array(batch, pa.binary()))[1], raw),
        ("line", decode_line, raw),
    ]:
        try:
            outcomes[name] = decode(arg)
        except BadLine as bad:
            outcomes[name] = ("error", json.loads(bad.record)["error"])
        except ValueError as err:
            outcomes[name] = ("error", str(err))
    return outcomes


@pytest.mark.parametrize(("text", "value"), VALUES)
def test_numbers_in_range_and_digits_in_strings_read_as_tremor_reads_them(text, value):
    for line, want in zip(_events(text), _expected(text, value), strict=True):
        for path, got in _paths(line).items():
            assert _same(got, want), (path, line, got)


@pytest.mark.parametrize(("text", "literal"), OUT_OF_RANGE)
def test_an_integer_out_of_range_is_an_error_with_tremors_reason(text, literal):
    for line in _events(text):
        for path, got in _paths(line).items():
            want = REASON.format(literal)
            if path == "line":
                want = f"Invalid JSON input: {want}"
            assert got == ("error", want), (path, line)


@pytest.mark.parametrize("text", INFINITE)
def test_a_float_beyond_the_doubles_is_an_error(text):
    for line in _events(text):
        for path, got in _paths(line).items():
            assert type(got) is tuple and got[0] == "error", (path, line, got)


def _tremor_reads(line: str):
    """What Tremor reads from ``line`` (Python's json module, the range rule on integers)."""

    def integer(literal: str) -> int:
        number = int(literal)
        if not I64_MIN <= number <= U64_MAX:
            raise ValueError(REASON.format(literal))
        return number

    try:
        return json.loads(line, parse_int=integer)
    except ValueError as err:
        return ("error", str(err))


_digits = st.text("0123456789", min_size=15, max_size=30)
_texts = st.text(st.sampled_from('0123456789-.e"\\ ab'), max_size=40) | _digits
_numbers = (
    st.integers(min_value=-(10**30), max_value=10**30)
    | st.integers(min_value=I64_MIN - 3, max_value=I64_MIN + 3)
    | st.integers(min_value=U64_MAX - 3, max_value=U64_MAX + 3)
    | st.floats(allow_nan=False, allow_infinity=False)
)
_values = st.recursive(
    st.none() | st.booleans() | _numbers | _texts,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_texts, kids, max_size=4),
    max_leaves=12,
)


@given(_values, st.booleans())
def test_every_path_reads_generated_events_as_tremor_does(value, ascii_only):
    """Generated events (integers of any size next to strings of digits, quotes, backslashes):
    each path gives Tremor's value, or an error exactly where Tremor's reader has one."""
    line = json.dumps(value, ensure_ascii=ascii_only)
    want = _tremor_reads(line)
    for path, got in _paths(line).items():
        if type(want) is tuple:
            assert type(got) is tuple and got[0] == "error", (path, line, got)
            if path != "line":
                assert got == want, (path, line)
        else:
            assert _same(got, want), (path, line, got)


@given(st.lists(_values, max_size=8), st.sampled_from([None, 1]), st.booleans())
def test_rows_of_one_batch_read_as_tremor_reads_each(values, indent, ascii_only):
    """Generated rows side by side in one Arrow batch (bare numbers next to each other too,
    compact or indented text): each row's decoder gives Tremor's value or refuses it."""
    lines = [json.dumps(v, indent=indent, ensure_ascii=ascii_only) for v in values]
    decoders = row_decoders(pa.array([line.encode() for line in lines], pa.binary()))
    for line, decode in zip(lines, decoders, strict=True):
        want = _tremor_reads(line)
        try:
            got = decode(line.encode())
        except ValueError as err:
            got = ("error", str(err))
        if type(want) is tuple:
            assert got == want, line
        else:
            assert _same(got, want), (line, got)


def test_orjson_alone_reads_integers_out_of_range_as_floats():
    """Why the reader checks the text: orjson turns an integer out of Tremor's range into a
    float instead of refusing it (if a release refuses it, the check could go)."""
    import orjson

    assert orjson.loads("18446744073709551616") == 2.0**64
    assert type(orjson.loads("-9223372036854775809")) is float
    assert type(orjson.loads("18446744073709551615")) is int
