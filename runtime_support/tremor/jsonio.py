"""JSON in and out, exactly as Tremor (simd-json + value-trait + ryu) reads and writes it.

orjson escapes the same characters as Tremor and keeps insertion order, so it does the work.
Its float text, however, depends on its version: older releases print ryu's ``1e16``, newer ones
``1e+16``. Output containing ``e+`` is therefore re-encoded by :func:`_encode_slow`, which
formats floats with :func:`format_float` (Rust ryu's rules, implemented here), so the result never
depends on the orjson version. Binaries are rendered as base64 strings; non-finite floats (which
Tremor's ``format_finite`` leaves unspecified) are written as ``null``.

Numbers read as simd-json 0.13 (Tremor's parser, without ``big-int-as-float``) reads them: an
integer beyond u64::MAX or below i64::MIN, and a float that overflows to infinity (``1e400``), is
invalid JSON; ``-0`` is the integer 0. orjson reads an integer out of that range as a float, so
the text decides: only a run of 20 digits, or a minus and 19, can be one, and only such runs are
looked at (:func:`_check_integers`), never every token. Duplicate keys: the last one wins (at the
first one's place).
Nesting: Tremor has no depth limit; tremorc reads at most :data:`MAX_DEPTH` nested arrays and
records (what its encoder and the stages' pickling handle) and rejects deeper text as invalid
JSON, with a reason naming the limit.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import orjson

__all__ = [
    "canonical_json",
    "decode_json",
    "encode_json",
    "encode_json_pretty",
    "encode_json_utf8",
    "format_float",
    "interp_str",
    "row_decoders",
]

MAX_DEPTH = 254
"""The deepest nesting of arrays and records tremorc reads (orjson's encoder writes 254 levels)."""
I64_MIN, U64_MAX = -(2**63), 2**64 - 1
# An integer Tremor can not hold has 20 digits or more, or a minus and 19 or more (JSON has no
# leading zeros): once every digit and minus is a zero, either is a run of 20 zeros, one bytes
# search (a 19-digit integer without a minus, a nanosecond timestamp, is always in range).
_SCREEN = bytes.maketrans(b"123456789-{", b"0000000000[")
_RUN = b"0" * 20
_STRUCTURE = {
    str: re.compile(r'"(?:[^"\\]|\\.)*"|([\[{])|[\]}]'),
    bytes: re.compile(rb'"(?:[^"\\]|\\.)*"|([\[{])|[\]}]'),
}


def _default(v: Any) -> Any:
    if type(v) is bytes:
        return base64.b64encode(v).decode("ascii")
    raise TypeError(f"not a Tremor value: {type(v).__name__}")


def decode_json(text: str | bytes) -> Any:
    """Parse JSON, keeping int vs float (``1.0`` stays a float); duplicate keys: last wins.

    Raises ``ValueError`` on malformed input, on a number Tremor can not hold (see the module
    doc) and on nesting deeper than :data:`MAX_DEPTH`.

    >>> decode_json('{"a": 1, "b": 1.0, "a": [18446744073709551615]}')
    {'a': [18446744073709551615], 'b': 1.0}
    >>> decode_json('[18446744073709551616]')
    Traceback (most recent call last):
    ValueError: integer 18446744073709551616 out of range (Tremor's integers: i64::MIN..u64::MAX)
    """
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        if "depth limit" in str(err):
            raise ValueError(_too_deep()) from None
        raise
    if len(text) > 19:
        # One pass of cheap screens: digits and minus to 0 (a run of 20 may be out of range) and
        # `{` to `[` (more openers than the limit may nest too deep); the exact checks run
        # rarely and cost little.
        data = text if type(text) is bytes else text.encode()
        screened = data.translate(_SCREEN)
        at = screened.find(_RUN)
        if at != -1:
            _check_integers(data, screened, at)
        if len(data) > 2 * MAX_DEPTH and screened.count(b"[") > MAX_DEPTH:
            _check_depth(text)
    return value


def row_decoders(column: Any, nesting: bool = True) -> list[Any]:
    """Per row of an Arrow column of JSON texts (binary or string, nulls allowed), a function
    that decodes it exactly as :func:`decode_json` does: :func:`decode_json` itself where a
    check may refuse the row, ``orjson.loads`` (its common case, unchecked) elsewhere.
    ``nesting=False``: without the screen for nesting (a caller that gives each value to
    ``orjson.dumps``, which refuses exactly what is nested deeper than :data:`MAX_DEPTH`, and
    then takes the exact path); integers are still screened.

    The screens run with numpy over chunks of the column's data buffer, not per row (per row
    they cost more than the parse): a literal of 20 digits, or of a minus and 19, where an
    integer stands and out of range (:func:`_out_of_range`; strings not told apart) marks the
    rows it touches (a window across two rows of one chunk: both, conservative), and so does a
    row longer than 2 × :data:`MAX_DEPTH` bytes with more than :data:`MAX_DEPTH` openers (``[``
    or ``{``, inside strings too, as decode_json counts them). Invariant: every row that may
    hold an integer out of range or nest too deep gets :func:`decode_json`; ``orjson.loads``
    reads every other row as :func:`decode_json` does.
    """
    rows = len(column)
    decoders: list[Any] = [orjson.loads] * rows
    if not rows or column.buffers()[2] is None:
        return decoders
    for row in _risky_rows(column, nesting):
        decoders[row] = decode_json
    return decoders


def _risky_rows(column: Any, nesting: bool = True) -> list[int]:
    """The rows :func:`row_decoders` gives :func:`decode_json` (ascending), screened in chunks
    of whole rows of about :data:`_CHUNK_BYTES` (so numpy's temporaries stay in the CPU's
    cache: on a whole 10,000-row batch every pass went to memory)."""
    import numpy as np
    import pyarrow.types as types

    _, offsets_buffer, data_buffer = column.buffers()
    rows = len(column)
    large = types.is_large_binary(column.type) or types.is_large_string(column.type)
    width = np.int64 if large else np.int32
    offsets = np.frombuffer(offsets_buffer, width, rows + 1, column.offset * width().itemsize)
    first_byte = int(offsets[0])
    offsets = offsets - first_byte
    data = np.frombuffer(data_buffer, np.uint8, int(offsets[-1]), first_byte)
    cuts = np.searchsorted(offsets, np.arange(0, int(offsets[-1]), _CHUNK_BYTES), "right") - 1
    bounds = sorted({*cuts.tolist(), rows})
    marked: list[int] = []
    for low, high in zip(bounds[:-1], bounds[1:], strict=True):
        at = int(offsets[low])
        chunk = data[at : int(offsets[high])]
        starts, ends = offsets[low:high] - at, offsets[low + 1 : high + 1] - at
        found = _risky_in_chunk(chunk, starts, ends, nesting)
        marked.extend(row + low for row in found)
    return marked


def _risky_in_chunk(data: Any, starts: Any, ends: Any, nesting: bool = True) -> list[int]:
    """:func:`_risky_rows` of the rows ``[starts[i], ends[i])`` of one chunk of bytes ``data``
    (a window that crosses rows marks each of them: conservative); ``nesting``: also the rows
    with too many openers."""
    import numpy as np

    digits = (data - ord("0")) < 10  # digits (bytes below "0" wrap around to large values)
    marked = np.zeros(len(starts), bool)
    # 19 digits in a row cover 4 whole 4-byte blocks of the chunk (4 × 4 + 3 bytes): blocks of
    # 4 digits, 4 in a row, are the cheap screen; only the few places it finds are looked at.
    whole = len(digits) // 4 * 4
    quads = digits[:whole].view(np.uint32) == _FOUR_DIGITS
    hits = np.flatnonzero(quads[:-3] & quads[1:-2] & quads[2:-1] & quads[3:])
    if len(hits):
        at = _out_of_range(data, hits, starts, ends)
        first = np.searchsorted(ends, at, "right")  # the rows of each window's first, last byte
        last = np.searchsorted(ends, at + len(_RUN) - 1, "right")
        marked[first] = marked[last] = True
        across = last - first > 1  # windows over rows shorter than themselves (rare)
        for low, high in zip(first[across].tolist(), last[across].tolist(), strict=True):
            marked[low : high + 1] = True
    long_rows = (ends - starts) > 2 * MAX_DEPTH
    if nesting and long_rows.any():
        openers = np.flatnonzero((data | 0x20) == ord("{"))  # "[" | 0x20 == "{", no other byte
        if len(openers) > MAX_DEPTH:
            counts = np.searchsorted(openers, ends) - np.searchsorted(openers, starts)
            marked |= (counts > MAX_DEPTH) & long_rows
    return np.flatnonzero(marked).tolist()


def _out_of_range(data: Any, hits: Any, starts: Any, ends: Any) -> Any:
    """The starts of the 20-byte windows of a chunk ``data`` that may hold an integer literal
    Tremor can not hold, judged as :func:`_check_integers` judges a run, strings not told
    apart (conservative). ``hits``: the 4-byte blocks that begin 16 digits in a row.

    A window is 20 digits, or a minus and 19 (the 16 digits of a hit ``h`` lie in the windows
    starting at ``4h - 4`` to ``4h``, and every window holds a hit's 16 digits, so these are
    all of them). It is kept where an integer stands outside strings (after one of
    :data:`_BEFORE_INTEGER` or at its row's start) and then (a) its digits go on past it: a
    literal longer than 20 bytes, out of range if an integer; or (b) it ends there (before one
    of :data:`_AFTER_INTEGER` or at its row's end) above u64::MAX or below i64::MIN, compared
    as text (the same length; JSON has no leading zeros)."""
    import numpy as np

    before, after = np.zeros(256, bool), np.zeros(256, bool)
    before[list(_BEFORE_INTEGER)] = after[list(_AFTER_INTEGER)] = True
    at = ((4 * hits - 4)[:, None] + np.arange(5)).ravel()  # overlapping ones twice: harmless
    at = at[(at >= 0) & (at <= len(data) - len(_RUN))]
    at = at[(data[at + len(_RUN) - 1] - ord("0")) < 10]  # first the cheap tests of one byte
    row_start = starts[np.minimum(np.searchsorted(starts, at), len(starts) - 1)] == at
    at = at[before[data[at - 1]] | row_start]  # where an integer stands (most are not)
    text = data[at[:, None] + np.arange(len(_RUN))]
    numeral = (text - ord("0")) < 10
    numeral[:, 0] |= text[:, 0] == _MINUS
    windows = numeral.all(axis=1)
    at, text = at[windows], text[windows]
    if not len(at):
        return at
    row = np.searchsorted(ends, at, "right")
    stop = at + len(_RUN)
    following = data[np.minimum(stop, len(data) - 1)]
    longer = (stop < len(data)) & ((following - ord("0")) < 10)
    limit = np.where(text[:, :1] == _MINUS, _I64_MIN_TEXT, _U64_MAX_TEXT)
    differ = text != limit
    first = differ.argmax(axis=1)  # the first byte that differs (0 when none)
    rows = np.arange(len(at))
    above = differ[rows, first] & (text[rows, first] > limit[rows, first])
    ends_there = after[following] | (stop == ends[row])
    return at[longer | (ends_there & above)]


_U64_MAX_TEXT, _I64_MIN_TEXT = list(str(U64_MAX).encode()), list(str(I64_MIN).encode())


_CHUNK_BYTES = 1 << 19
"""Bytes of JSON text :func:`_risky_rows` screens at once (whole rows, so a chunk may exceed it)."""
_FOUR_DIGITS = 0x01010101
"""Four ``True`` bytes of a digit mask read as one native uint32 (the same in either order)."""
_MINUS = ord("-")


def _too_deep() -> str:
    return f"nesting deeper than {MAX_DEPTH} levels (tremorc reads JSON up to {MAX_DEPTH} levels)"


def _check_integers(data: bytes, screened: bytes, at: int) -> None:
    """Raise ``ValueError`` for an integer literal (outside strings) Tremor can not hold.

    ``data``: JSON text orjson read (so valid JSON); ``screened``: ``data`` through
    :data:`_SCREEN` (digits and minus signs as ``0``); ``at``: where its first run of 20 or
    more such bytes starts. Only those runs are looked at. Outside strings such a run is a
    number's literal (or its part before a fraction or an exponent, or its exponent's digits),
    an integer when it stands where valid JSON lets one stand (after one of
    :data:`_BEFORE_INTEGER` or the start; before one of :data:`_AFTER_INTEGER` or the end:
    never next to a fraction, an exponent or a letter); only one out of range is then placed
    inside or outside a string (:func:`_in_string`). No tokenizer runs: a line costs a few
    searches per long run, whatever its strings hold.
    """
    while at != -1:
        end = _ZEROS.match(screened, at).end()
        if (
            (data[at - 1] in _BEFORE_INTEGER if at else True)
            and (data[end] in _AFTER_INTEGER if end < len(data) else True)
            and data.find(_MINUS, at + 1, end) == -1
        ):
            literal = data[at:end]
            out_of_range = len(literal) > 20 or not I64_MIN <= int(literal) <= U64_MAX
            if out_of_range and not _in_string(data, at):
                raise ValueError(
                    f"integer {literal.decode()} out of range (Tremor's integers: "
                    "i64::MIN..u64::MAX)"
                )
        at = screened.find(_RUN, end)


def _in_string(data: bytes, at: int) -> bool:
    """Whether offset ``at`` of valid JSON text ``data`` lies inside a string: after an odd
    number of unescaped quotes. A quote is escaped when an odd run of backslashes comes right
    before it (valid JSON has backslashes only inside strings; most lines have none, found by
    one ``memchr``)."""
    quotes = data.count(b'"', 0, at)
    slash = data.find(_BACKSLASH, 0, at)
    while slash != -1:
        after = slash
        while data[after] == _BACKSLASH:
            after += 1
        if (after - slash) % 2 and data[after] == _QUOTE:
            quotes -= 1
        slash = data.find(_BACKSLASH, after, at)
    return quotes % 2 == 1


_ZEROS = re.compile(b"0+")
_BEFORE_INTEGER = b":,[ \t\r\n"
"""The bytes before an integer outside strings (or the text's start)."""
_AFTER_INTEGER = b",]} \t\r\n"
"""The bytes after an integer outside strings (or the text's end)."""
_BACKSLASH, _QUOTE = ord("\\"), ord('"')


def _check_depth(text: str | bytes) -> None:
    """Raise ``ValueError`` when arrays and records (outside strings) nest beyond the limit."""
    depth = 0
    for match in _STRUCTURE[type(text)].finditer(text):
        token = match.group(0)
        if match.group(1) is not None:
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(_too_deep())
        elif token in ("]", "}", b"]", b"}"):
            depth -= 1


_PLUS = ord("+")


def _dumps(v: Any, option: int = 0) -> str:
    try:
        out = orjson.dumps(v, default=_default, option=option)
    except orjson.JSONEncodeError as err:
        if "Recursion limit" not in str(err):
            raise
        out = b"e+"  # nested deeper than orjson writes: the Python encoder below does
    # A float orjson printed its own way (or just text containing "e+"); `+` is rare in JSON
    # text and found by memchr (`_PLUS in out`, an int: a one-byte bytes needle takes CPython's
    # general search, 8x slower), `e` is common and makes the two-byte search slower still.
    if _PLUS in out and b"e+" in out:
        return _encode_slow(
            v,
            sort_keys=bool(option & orjson.OPT_SORT_KEYS),
            indent=2 if option & orjson.OPT_INDENT_2 else 0,
        )
    return out.decode()


def encode_json(v: Any) -> str:
    """Tremor's compact JSON (insertion order, ryu floats, binary as base64).

    >>> encode_json({"f": 1.0, "e": 1e16, "s": 1.5e-7, "b": b"hi", "n": None})
    '{"f":1.0,"e":1e16,"s":1.5e-7,"b":"aGk=","n":null}'
    """
    # :func:`_dumps` with no option, its common case inlined (every output event passes here)
    try:
        out = orjson.dumps(v, default=_default)
    except orjson.JSONEncodeError:
        return _dumps(v)
    if _PLUS in out and b"e+" in out:
        return _dumps(v)
    return out.decode()


def encode_json_utf8(v: Any) -> bytes:
    """:func:`encode_json` as UTF-8 bytes (a stage's output column is built from them without
    a ``str`` per event)."""
    try:
        out = orjson.dumps(v, default=_default)
    except orjson.JSONEncodeError:
        return _dumps(v).encode()
    if _PLUS in out and b"e+" in out:
        return _dumps(v).encode()
    return out


def encode_json_pretty(v: Any) -> str:
    """Indented JSON (two spaces, ``"key": value``) as ``json::encode_pretty`` writes it."""
    return _dumps(v, orjson.OPT_INDENT_2)


def canonical_json(v: Any) -> str:
    """Compact JSON with sorted keys (how the test harnesses compare outputs).

    >>> canonical_json({"b": 1, "a": [2.0]})
    '{"a":[2.0],"b":1}'
    """
    return _dumps(v, orjson.OPT_SORT_KEYS)


def interp_str(v: Any) -> str:
    """Render a value inside string interpolation: strings raw, everything else compact JSON.

    >>> interp_str("x"), interp_str(2.0), interp_str([1, "a"])
    ('x', '2.0', '[1,"a"]')
    """
    if type(v) is str:
        return v
    return _dumps(v)


def _encode_slow(v: Any, *, sort_keys: bool, indent: int, level: int = 0) -> str:
    """The same JSON as orjson's, built in Python with :func:`format_float` for floats."""
    kind = type(v)
    if kind is float:
        return format_float(v)
    if kind is dict:
        items = sorted(v.items()) if sort_keys else v.items()
        parts = [
            f"{orjson.dumps(k).decode()}:{' ' if indent else ''}"
            + _encode_slow(x, sort_keys=sort_keys, indent=indent, level=level + 1)
            for k, x in items
        ]
        return _join("{", parts, "}", indent, level)
    if kind is list:
        parts = [_encode_slow(x, sort_keys=sort_keys, indent=indent, level=level + 1) for x in v]
        return _join("[", parts, "]", indent, level)
    return orjson.dumps(v, default=_default).decode()


def _join(open_: str, parts: list[str], close: str, indent: int, level: int) -> str:
    if not parts:
        return open_ + close
    if not indent:
        return open_ + ",".join(parts) + close
    inner = "\n" + " " * (indent * (level + 1))
    return open_ + inner + ("," + inner).join(parts) + "\n" + " " * (indent * level) + close


def format_float(f: float) -> str:
    """A float as Tremor's JSON writes it: Rust ryu's ``format64`` layout of the shortest
    round-trip digits (which Python's ``repr`` also finds).

    >>> format_float(0.1 + 0.2), format_float(1e-5), format_float(1e-7), format_float(1e16)
    ('0.30000000000000004', '0.00001', '1e-7', '1e16')
    >>> format_float(1e15), format_float(123.0), format_float(-1.2345678901234568e17)
    ('1000000000000000.0', '123.0', '-1.2345678901234568e17')
    """
    if f != f or f in (float("inf"), float("-inf")):
        return "null"
    if f == 0.0:
        return "-0.0" if str(f).startswith("-") else "0.0"
    text = repr(f)
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    digits = raw.lstrip("0")
    kk = len(whole) + int(exponent or 0) - (len(raw) - len(digits))  # 10^(kk-1) <= |f| < 10^kk
    digits = digits.rstrip("0")
    k = kk - len(digits)
    if 0 <= k and kk <= 16:
        body = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        body = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        body = "0." + "0" * -kk + digits
    elif len(digits) == 1:
        body = f"{digits}e{kk - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + body
