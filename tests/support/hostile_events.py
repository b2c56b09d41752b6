"""A seeded stream of hostile JSON-lines events as bytes, each labelled with the fate the pipeline
``tests/fixtures/hostile/hostile.trickle`` must give it. The labels come from what the generator
wrote and Tremor's rules, never from running tremorc:

- Tremor's json codec (simd-json 0.13, no ``big-int-as-float``) rejects text that is not UTF-8,
  malformed JSON, an integer beyond u64::MAX or below i64::MIN, and a float that overflows to
  infinity (``1e400``); ``-0`` is the integer 0, ``1e-400`` the float 0.0; duplicate keys: the
  last wins. Tremor has no nesting limit; tremorc reads 254 levels (``jsonio.MAX_DEPTH``) and
  sends deeper lines to ``err`` (a documented limit, so the label says ``err``).
- The script drops ``action == "drop"`` records, then ``key + ""`` and ``n + 0`` are runtime
  errors (to ``err``, with the event) unless ``key`` is a string and ``n`` a number.

Fates: ``out`` (``expect`` = the value on ``out``), ``err`` (``expect`` = the err record's
``event``: the value, the line's text, or base64 of a line that is not UTF-8), ``drop``.
No line holds ``\\n`` or ``\\r`` (Spark's line separators) or is blank.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_DEPTH = 254
# group keys: plain ones, and ones that are hard to carry (empty, NUL, quotes, non-ASCII)
KEYS = [f"k{i}" for i in range(40)] + ["", "k\u0000", 'q"uote', "\u65e5\u672c", "\U0001f600"]


@dataclass(frozen=True)
class Hostile:
    """One input line, its fate, the kind of line (for the error's wording) and what to expect."""

    line: bytes
    fate: str
    kind: str
    expect: Any = None


# (JSON text, the number Tremor reads, or None when Tremor rejects the line)
NUMBERS = [
    ("7", 7),
    ("-12", -12),
    ("0.1", 0.1),
    ("2.0", 2.0),
    ("-0", 0),
    ("-0.0", -0.0),
    ("1e-400", 0.0),
    ("1.5e300", 1.5e300),
    ("1E5", 1e5),
    ("18446744073709551615", 18446744073709551615),
    ("9223372036854775807", 9223372036854775807),
    ("-9223372036854775808", -9223372036854775808),
    ("3.14159265358979323846264338327950288", 3.14159265358979323846264338327950288),
    ("0.000000000000000000000000000001", 1e-30),
]
HUGE = [
    "1e400",
    "-1e400",
    "18446744073709551616",
    "-9223372036854775809",
    "1" * 30,
    "9" * 400,
    "-" + "4" * 25,
]
# (JSON text of a string, the string)
TEXTS = [
    ('"plain"', "plain"),
    ('"caf\u00e9 \u65e5\u672c \U0001f600"', "caf\u00e9 \u65e5\u672c \U0001f600"),
    ('"\\u00e9\\ud83d\\ude00"', "\u00e9\U0001f600"),
    ('"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'),
    ('"[[[{{{ 123456789012345678901234567890"', "[[[{{{ 123456789012345678901234567890"),
    ('""', ""),
    ('"nul \\u0000 del \u007f"', "nul \u0000 del \u007f"),
]
MALFORMED = [
    b"hello",
    b"NaN",
    b"Infinity",
    b"undefined",
    b"True",
    b"{:1}",
    b'{"a" 1}',
    b"[1,]",
    b'{"a":1,}',
    b"{'a':1}",
    b"+1",
    b"01",
    b"1.",
    b".5",
    b'{"a":"unterminated}',
    b"[1 2]",
    b'{"a":1}}',
    b"{}{}",
    b'"\\x"',
    b"[-]",
]
# a byte never in UTF-8, an overlong '/', a cut 3-byte sequence, an encoded surrogate, > U+10FFFF,
# a lone continuation byte
BAD_UTF8 = [b"\xff", b"\xfe", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf5\x80\x80", b"\x80"]


def generate(n: int, seed: int = 10) -> Iterator[Hostile]:
    """``n`` labelled lines, the same for the same ``seed``."""
    rng = random.Random(seed)
    makers = [
        (55, _valid),
        (8, _drop),
        (12, _wrong_type),
        (10, _malformed),
        (4, _huge),
        (7, _bad_utf8),
        (4, _deep),
    ]
    weights = [w for w, _ in makers]
    for i in range(n):
        (maker,) = rng.choices([m for _, m in makers], weights)
        event = maker(rng, i)
        assert event.line.strip() and not set(event.line) & {10, 13}, event
        yield event


def write_lines(path: Path, events: list[Hostile]) -> None:
    """The events as one JSON-lines file."""
    path.write_bytes(b"".join(e.line + b"\n" for e in events))


def write_folder(folder: Path, events: list[Hostile], files: int) -> None:
    """The events as ``files`` JSON-lines files whose names sort in event order."""
    folder.mkdir(parents=True, exist_ok=True)
    size = -(-len(events) // files)
    for index in range(files):
        write_lines(folder / f"part-{index:05d}.json", events[index * size : (index + 1) * size])


def _record(rng: random.Random, i: int) -> tuple[list[str], dict[str, Any]]:
    """A valid event's members (JSON text) and its value as read (the script adds 0 to ``n``:
    :func:`_passed`)."""
    key = rng.choice(KEYS)
    number, value = rng.choice(NUMBERS)
    text, string = rng.choice(TEXTS)
    quoted = json.dumps(key, ensure_ascii=rng.random() < 0.5)
    members = [f'"id":{i}', f'"key":{quoted}', f'"n":{number}', f'"s":{text}']
    return members, {"id": i, "key": key, "n": value, "s": string}


def _passed(value: dict[str, Any]) -> dict[str, Any]:
    """The value the script emits: ``n + 0`` (IEEE: -0.0 + 0 is 0.0)."""
    return {**value, "n": value["n"] + 0}


def _line(members: list[str]) -> bytes:
    return ("{" + ",".join(members) + "}").encode()


def _valid(rng: random.Random, i: int) -> Hostile:
    members, value = _record(rng, i)
    extra = rng.randrange(4)
    if extra == 1:  # duplicate keys: the last wins
        members.insert(2, '"n":"not a number"')
        members.insert(0, '"key":17')
    elif extra == 2:
        members.append('"":{"":[]}')
        value[""] = {"": []}
    elif extra == 3:
        members.append('"action":"drop","action":"keep"')
        value["action"] = "keep"
    return Hostile(_line(members), "out", "valid", _passed(value))


def _drop(rng: random.Random, i: int) -> Hostile:
    members = [f'"id":{i}', '"action":"drop"']
    if rng.random() < 0.5:
        members.append('"n":"wrong type, but dropped first"')
    if rng.random() < 0.3:
        members.insert(1, '"action":"keep"')
    return Hostile(_line(members), "drop", "drop")


def _wrong_type(rng: random.Random, i: int) -> Hostile:
    members, value = _record(rng, i)
    choice = rng.randrange(6)
    if choice == 0:
        bad, parsed = rng.choice([("17", 17), ("null", None), ('["k1"]', ["k1"]), ("{}", {})])
        members[1], value["key"] = f'"key":{bad}', parsed
    elif choice == 1:
        bad, parsed = rng.choice([('"5"', "5"), ("true", True), ("null", None), ("[1]", [1])])
        members[2], value["n"] = f'"n":{bad}', parsed
    elif choice == 2:
        del members[2], value["n"]
    elif choice == 3:
        del members[1], value["key"]
    elif choice == 4:
        members.append('"n":"last wins"')
        value["n"] = "last wins"
    else:
        text, parsed = rng.choice([("5", 5), ('"text"', "text"), ("null", None), ("[1,2]", [1, 2])])
        return Hostile(text.encode(), "err", "runtime", parsed)
    return Hostile(_line(members), "err", "runtime", value)


def _malformed(rng: random.Random, i: int) -> Hostile:
    if rng.random() < 0.5:
        line = rng.choice(MALFORMED)
    else:
        whole = _line(_record(rng, i)[0])
        cut = rng.randrange(1, len(whole) - 1)
        line = rng.choice([whole[:cut], whole + b" x", whole + b",", whole[1:]])
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:  # cut inside a multi-byte character
            return Hostile(line, "err", "invalid_utf8", base64.b64encode(line).decode())
    return Hostile(line, "err", "invalid_json", line.decode())


def _huge(rng: random.Random, i: int) -> Hostile:
    members, _ = _record(rng, i)
    members[2] = f'"n":{rng.choice(HUGE)}'
    line = _line(members)
    return Hostile(line, "err", "invalid_json", line.decode())


def _bad_utf8(rng: random.Random, i: int) -> Hostile:
    line = _line(_record(rng, i)[0])
    bad = rng.choice(BAD_UTF8)
    where = rng.choice([0, len(line), line.index(b'"key":"') + 7])
    line = line[:where] + bad + line[where:]
    return Hostile(line, "err", "invalid_utf8", base64.b64encode(line).decode())


def _deep(rng: random.Random, i: int) -> Hostile:
    """Arrays or records nested under ``deep``: the event is one level more."""
    members, value = _record(rng, i)
    depth = rng.choice([10, MAX_DEPTH - 1, MAX_DEPTH, 1023, 1024, 5000])
    records = rng.random() < 0.5
    inner, nested = "1", 1
    for _ in range(depth):
        inner = '{"a":' + inner + "}" if records else "[" + inner + "]"
        nested = {"a": nested} if records else [nested]
    members.append(f'"deep":{inner}')
    line = _line(members)
    if depth + 1 > MAX_DEPTH:
        return Hostile(line, "err", "invalid_json", line.decode())
    value["deep"] = nested
    return Hostile(line, "out", "deep", _passed(value))


def typed(value: Any) -> str:
    """A value as text that tells int from float and -0.0 from 0.0 (for multiset comparison)."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + typed(value[k]) for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(typed(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        return f"f{value!r}"
    return json.dumps(value)
