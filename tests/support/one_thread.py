"""Tremor's single-threaded reference for the partitioning tests: a job's ``GRAPH`` run in one
thread, in-process, without Spark, and the synthetic events those tests feed it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from runtime_support.tremor.graph import END_OF_INPUT, Event, Graph, GraphSpec
from runtime_support.tremor.jsonio import decode_json, encode_json

HOSTS = ("alpha", "beta", "gamma")
TAGS = ("red", "green", "blue", "cyan")


def one_thread(
    graph: GraphSpec,
    streams: dict[str, list[str]],
    ingest: Callable[[int], int],
    origin: str | None = None,
) -> list[tuple[str, str]]:
    """Every ``(port, JSON text)`` one thread emits: events in ``seq`` order (stream ``n`` of
    ``count`` numbers its line ``i`` ``i * count + n``, as flow and query jobs do), then the
    end-of-input tick; an undecodable line is the documented ``err`` event."""
    live = Graph(graph)
    count = len(streams)
    events = sorted(
        (i * count + n, stream, line)
        for n, (stream, lines) in enumerate(streams.items())
        for i, line in enumerate(lines)
    )
    outputs: list[tuple[str, Any]] = []
    for seq, stream, line in events:
        try:
            value = decode_json(line)
        except ValueError as err:
            outputs.append(("err", {"error": f"Invalid JSON input: {err}", "event": line}))
            continue
        outputs += live.push(stream, Event(value, {}, ingest(seq), origin))
    outputs += live.tick(END_OF_INPUT)
    return [(port, encode_json(value)) for port, value in outputs]


def synthetic_lines(count: int, bad: bool = True) -> list[str]:
    """Events with every field the synthetic programs read: several groups per event
    (``tags``), uneven key frequencies; with ``bad``, one undecodable line in the middle."""
    lines = []
    for i in range(count):
        event = {
            "host": HOSTS[(i * i) % 3],
            "tags": [TAGS[(i * k) % len(TAGS)] for k in range(1, 2 + i % 3)],
            "aint": (i * 37) % 101,
            "cls": f"c{i % 4}",
            "keys": [f"g{(i * 7) % 13}"],
            "keys10": [f"g{i % 10}"],
        }
        lines.append(json.dumps(event))
    if bad:
        lines.insert(count // 2, "{not json")
    return lines
