"""The ``crononome`` connector: Tremor's cron schedules (``config.entries``: ``[{name, expr,
payload}]``, expressions as :mod:`.cron_expr` reads them, in UTC).

Each firing is the event ``{"connector": "crononome", "ingest_ns": t, "id": i, "trigger":
{"name": name, "payload": payload}}`` (no ``payload`` key when the entry has none) with
``$crononome = {"trigger": name}`` and the origin ``tremor-crononome://<host>/<name>``, as
Tremor emits them; ``t`` is the firing time in ns, ``i`` the firing's number. Firings at the same
second come in the order of ``entries``.

Batch (as ``metronome``): the first ``--ticks`` firings (default 10) after the run's start (the
epoch with ``--ingest-ns index``), computed, not waited for. Stream: a Python Data Source read on
the driver whose offset is ``{"t": ns, "n": firings}``: each micro-batch holds the firings up to
the wall clock, numbered on; the first run's start is kept under the checkpoint, so a replayed
micro-batch holds the same events and firings while the job was down come at its restart.
"""

from __future__ import annotations

import heapq
import json
import os
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.cron_expr import to_croniter
from runtime_support.tremor.event_meta import encode_meta
from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.origin import encode_origin, hostname

SCHEMA = "seq long, value string, ingest_ns long, origin string, meta string"
MAX_PER_BATCH = 100_000


def parse_entries(entries: Any, alias: str) -> list[tuple[str, str, bool, Any]]:
    """``(name, croniter expression, has a payload, payload)`` per entry (plain values: the
    stream reader is pickled to Spark's Python workers); ValueError naming the entry and what
    is wrong (the compiler reports it at the ``entries`` key)."""
    if not isinstance(entries, list | tuple):
        raise ValueError(f"`entries` of connector `{alias}` must be an array of records")
    parsed = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) - {"name", "expr", "payload"}:
            raise ValueError(f"entry {i} of `{alias}` must be a record `{{name, expr, payload}}`")
        name, expr = entry.get("name"), entry.get("expr")
        if not isinstance(name, str) or not isinstance(expr, str):
            raise ValueError(f"entry {i} of `{alias}` needs a string `name` and `expr`")
        try:
            schedule = to_croniter(expr)
        except ValueError as err:
            raise ValueError(f"entry {i} (`{name}`) of `{alias}`: {err}") from None
        parsed.append((name, schedule, "payload" in entry, entry.get("payload")))
    return parsed


def firings(entries: list, after_ns: int, until_ns: int | None, limit: int) -> Iterator[tuple]:
    """``(ns, entry index)`` of the firings ``after_ns < ns <= until_ns`` (no bound: None), in
    time then entry order, at most ``limit`` (more when the last second has more)."""
    from croniter import CroniterBadDateError, croniter

    start = datetime.fromtimestamp(after_ns // 1_000_000_000, timezone.utc)

    def one(index: int, expr: str) -> Iterator[tuple[int, int]]:
        it = croniter(expr, start, second_at_beginning=True, day_or=False)
        while True:
            try:
                ns = int(it.get_next(float)) * 1_000_000_000
            except CroniterBadDateError:  # no firing left (a past year)
                return
            if until_ns is not None and ns > until_ns:
                return
            if ns > after_ns:
                yield ns, index

    merged = heapq.merge(*(one(i, e[1]) for i, e in enumerate(entries)))
    last = None
    for count, (ns, index) in enumerate(merged):
        if count >= limit and ns != last:
            return
        last = ns
        yield ns, index


def event_row(entries: list, seq: int, ns: int, index: int, ingest_ns: int) -> tuple:
    """The ``seq, value, ingest_ns, origin, meta`` row of one firing."""
    name, _expr, has_payload, payload = entries[index]
    trigger = {"name": name, "payload": payload} if has_payload else {"name": name}
    value = {"connector": "crononome", "ingest_ns": ns, "id": seq, "trigger": trigger}
    origin = encode_origin("tremor-crononome", hostname(), None, [name])
    return seq, encode_json(value), ingest_ns, origin, encode_meta({"crononome": {"trigger": name}})


class CrononomeSource:
    """The schedules of ``config.entries`` (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.alias = spec.alias
        self.raw = spec.config.get("entries") or []
        self.entries = parse_entries(self.raw, spec.alias)

    def read(self, spark: Any, ctx: RunContext) -> Any:
        start = 0 if ctx.ingest_ns == "index" else ctx.start_ns
        rows = []
        for seq, (ns, index) in enumerate(firings(self.entries, start, None, ctx.ticks)):
            if seq >= ctx.ticks:
                break
            rows.append(event_row(self.entries, seq, ns, index, ns))
        return spark.createDataFrame(rows, SCHEMA)

    def stream(self, spark: Any, args: Any, start_ns: int) -> Any:
        """Firings up to the wall clock, per micro-batch (see the module doc)."""
        path = os.path.join(args.checkpoint, "crononome", _safe(self.alias) + ".start")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "w", encoding="utf-8") as handle:
                handle.write(str(time.time_ns()))
            os.replace(path + ".tmp", path)
        with open(path, encoding="utf-8") as handle:
            start = int(handle.read())
        register(spark)
        return (
            spark.readStream.format("tremorc_crononome")
            .option("entries", json.dumps(self.raw))
            .option("start_ns", str(start))
            .option("ingest_ns", args.ingest_ns)
            .load()
        )


def _safe(alias: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in alias)


def _reader_class() -> type:
    from pyspark.sql.datasource import SimpleDataSourceStreamReader

    class CronReader(SimpleDataSourceStreamReader):  # type: ignore[misc]
        """Offsets ``{"t": ns, "n": firings}``; a range of offsets always reads the same rows."""

        def __init__(self, options: dict[str, str]) -> None:
            self.entries = parse_entries(json.loads(options["entries"]), "crononome")
            self.start = int(options["start_ns"])
            self.index_ns = options.get("ingest_ns") == "index"

        def initialOffset(self) -> dict:
            return {"t": self.start, "n": 0}

        def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
            now = time.time_ns()
            found = list(firings(self.entries, start["t"], now, MAX_PER_BATCH))
            end_t = found[-1][0] if len(found) >= MAX_PER_BATCH else max(start["t"], now)
            end = {"t": end_t, "n": start["n"] + len(found)}
            return iter(self._rows(start, found)), end

        def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
            found = firings(self.entries, start["t"], end["t"], end["n"] - start["n"])
            return iter(self._rows(start, list(found)))

        def _rows(self, start: dict, found: list) -> list[tuple]:
            rows = []
            for seq, (ns, index) in enumerate(found, start["n"]):
                rows.append(event_row(self.entries, seq, ns, index, seq if self.index_ns else ns))
            return rows

    return CronReader


def _source_class() -> type:
    from pyspark.sql.datasource import DataSource

    class CronSource(DataSource):  # type: ignore[misc]
        """``spark.readStream.format("tremorc_crononome")``."""

        @classmethod
        def name(cls) -> str:
            return "tremorc_crononome"

        def schema(self) -> str:
            return SCHEMA

        def simpleStreamReader(self, schema: Any) -> Any:
            return _reader_class()(dict(self.options))

    return CronSource


_REGISTERED: set[int] = set()


def register(spark: Any) -> None:
    """Register the stream source with ``spark`` (once per session)."""
    if id(spark) not in _REGISTERED:
        spark.dataSource.register(_source_class())
        _REGISTERED.add(id(spark))
