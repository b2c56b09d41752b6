"""Shapes of events for JSON benchmarks: Tremor's sample events (``data.json`` of the shared
workloads) dressed the way real data is, one function per shape (never a unit test).

Every shape is deterministic: event ``i`` of a shape is the same on every call and machine
(no randomness; ids are digests of ``i``). The shapes that add fields keep the sample's 13 fields
and add theirs after them; :data:`EXTRA_FIELDS` declares those added fields as Spark DDL (what
a hand-written typed job reads). ``wide`` and ``metrics`` are events of their own kind, made
from the sample's values.

Usage::

    python benchmarks/shapes.py SHAPE [--events 1000000] [-o FILE]   # N lines, JSON each
    python benchmarks/shapes.py --list
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import lzma
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "workloads" / "data" / "data.json.xz"
BASE_NS = 1_700_000_000_000_000_000
LONG_MESSAGE_BYTES = 4096
WIDE_FIELDS = 120


@functools.lru_cache(maxsize=1)
def sample_events() -> tuple[str, ...]:
    """The sample events as their JSON lines (100 events of 13 fields)."""
    lines = lzma.open(SAMPLE, "rt", encoding="utf-8").read().splitlines()
    return tuple(line for line in lines if line.strip())


def _base(i: int) -> dict:
    events = sample_events()
    return json.loads(events[i % len(events)])


def _digest(i: int, salt: str = "") -> bytes:
    return hashlib.md5(f"{salt}{i}".encode()).digest()


def sample(i: int) -> dict:
    """The sample event, unchanged."""
    return _base(i)


def ns_timestamp(i: int) -> dict:
    """A nanosecond timestamp as a number (19 digits), as Tremor stamps events."""
    return {**_base(i), "ts": BASE_NS + i * 1_000 + i % 997}


def ns_timestamp_string(i: int) -> dict:
    """The same timestamp as a string."""
    return {**_base(i), "ts": str(BASE_NS + i * 1_000 + i % 997)}


def hex_id(i: int) -> dict:
    """A 32-character hexadecimal id (a trace id)."""
    return {**_base(i), "id": _digest(i).hex()}


def uuid_id(i: int) -> dict:
    """A UUID id (36 characters, dashed)."""
    return {**_base(i), "id": str(uuid.UUID(bytes=_digest(i)))}


def decimal_id(i: int) -> dict:
    """A 24-digit decimal id in a string (an account or order number): a long digit run that
    is text, not a number."""
    return {**_base(i), "id": str(int.from_bytes(_digest(i), "big") % 10**24).zfill(24)}


def u64_id(i: int) -> dict:
    """A span id as an unsigned 64-bit number of 20 digits (in range: 10^19 ..  u64::MAX)."""
    return {**_base(i), "span": 10**19 + int.from_bytes(_digest(i)[:8], "big") % (8 * 10**18)}


_PHRASES = (
    "Ça coûte très cher, señor; größer als erwartet — naïve façade",
    "日本語のログメッセージ：処理が完了しました",
    "服务器响应超时，请稍后重试",
    "사용자 로그인 실패 (비밀번호 오류)",
    "deploy ok 🚀 tests ✅ latency 📈 coffee ☕",
    "Ошибка подключения к базе данных",
)


def non_ascii(i: int) -> dict:
    """Messages in accented Latin, CJK, Hangul, Cyrillic and emoji (``about``,
    ``short_message``)."""
    event = _base(i)
    event["about"] = " ".join(_PHRASES[(i + k) % len(_PHRASES)] for k in range(4))
    event["short_message"] = _PHRASES[i % len(_PHRASES)]
    return event


def long_message(i: int) -> dict:
    """A 4 KB message (``about``: the sample's text repeated to :data:`LONG_MESSAGE_BYTES`)."""
    event = _base(i)
    text = event["about"]
    event["about"] = (text + " ") * (LONG_MESSAGE_BYTES // (len(text) + 1)) + text[:64]
    return event


def wide(i: int) -> dict:
    """A flat event of :data:`WIDE_FIELDS` fields: the sample's short scalars under numbered
    keys (strings, integers, booleans, floats)."""
    event = _base(i)
    scalars = [v for k, v in event.items() if k != "about" and not isinstance(v, list)]
    scalars += [i * 0.25, -i, f"value {i}"]
    return {f"field_{k:03d}": scalars[(i + k) % len(scalars)] for k in range(WIDE_FIELDS)}


def metrics(i: int) -> dict:
    """A metric event as Tremor's influx codec reads it: measurement, tags, many float and
    integer fields, a nanosecond timestamp."""
    event = _base(i)
    digest = _digest(i, "metrics")
    fields: dict = {}
    for k in range(16):
        fields[f"gauge_{k:02d}"] = round((digest[k] * 997 + i) / 1000 + k / 8, 6)
        fields[f"count_{k:02d}"] = digest[k] * 1_000_003 + i
    return {
        "measurement": event["type"],
        "tags": {"host": event["syslog_hostname"], "app": event["application"]},
        "fields": fields,
        "timestamp": BASE_NS + i * 1_000,
    }


SHAPES: dict[str, Callable[[int], dict]] = {
    fn.__name__: fn
    for fn in (
        sample,
        ns_timestamp,
        ns_timestamp_string,
        hex_id,
        uuid_id,
        decimal_id,
        u64_id,
        non_ascii,
        long_message,
        wide,
        metrics,
    )
}
EXTRA_FIELDS = {
    "sample": "",
    "ns_timestamp": "ts BIGINT",
    "ns_timestamp_string": "ts STRING",
    "hex_id": "id STRING",
    "uuid_id": "id STRING",
    "decimal_id": "id STRING",
    "non_ascii": "",
    "long_message": "",
}
"""The fields a shape adds to the sample's, as Spark DDL (the shapes that keep the sample's
fields; ``u64_id`` is absent: a Spark BIGINT can not hold it)."""


def lines(shape: str, events: int) -> Iterator[str]:
    """The first ``events`` events of ``shape`` as compact JSON lines (UTF-8 text kept)."""
    make = SHAPES[shape]
    for i in range(events):
        yield json.dumps(make(i), ensure_ascii=False, separators=(",", ":"))


def write(shape: str, events: int, path: Path) -> Path:
    """``events`` lines of ``shape`` into ``path`` (one JSON event per line)."""
    with path.open("w", encoding="utf-8") as out:
        for line in lines(shape, events):
            out.write(line + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shape", nargs="?", choices=list(SHAPES))
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("-o", "--output", type=Path, help="the file (default: stdout)")
    parser.add_argument("--list", action="store_true", help="list the shapes")
    args = parser.parse_args(argv)
    if args.list or not args.shape:
        for name, fn in SHAPES.items():
            print(f"{name:22s} {(fn.__doc__ or '').split(chr(10))[0]}")
        return 0
    if args.output:
        write(args.shape, args.events, args.output)
    else:
        for line in lines(args.shape, args.events):
            sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
