"""Float text never depends on the installed orjson: Tremor's (ryu's) layout everywhere."""

from __future__ import annotations

import math

import orjson
from hypothesis import given
from hypothesis import strategies as st

from runtime_support.tremor.jsonio import _encode_slow, canonical_json, encode_json, format_float

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(finite)
def test_format_float_round_trips_without_plus_exponents(f: float) -> None:
    text = format_float(f)
    assert float(text) == f and math.copysign(1, float(text)) == math.copysign(1, f)
    assert "e+" not in text
    assert "e" in text or "." in text  # a float always reads back as a float


@given(finite)
def test_decimal_range_is_ryus(f: float) -> None:
    text = format_float(f)
    magnitude = abs(f)
    if f != 0 and (magnitude >= 1e16 or magnitude < 1e-5):
        assert "e" in text
    else:
        assert "e" not in text


values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | finite | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(values)
def test_slow_encoder_agrees_with_orjson_except_for_float_text(v: object) -> None:
    compact = orjson.dumps(v).decode()
    if "e+" not in compact:
        assert _encode_slow(v, sort_keys=False, indent=0) == compact
        pretty = orjson.dumps(v, option=orjson.OPT_INDENT_2).decode()
        assert _encode_slow(v, sort_keys=False, indent=2) == pretty
    assert orjson.loads(encode_json(v)) == v
    assert orjson.loads(canonical_json(v)) == v


def test_large_floats_inside_structures_use_ryu_layout() -> None:
    assert encode_json({"a": [1e16, 2.5e300], "s": "e+1"}) == '{"a":[1e16,2.5e300],"s":"e+1"}'
