"""The ``metrics`` connector in a streaming flow: counts recorded per micro-batch, emitted by a
stream source in a later micro-batch.

Each micro-batch's ``#metrics`` rows are this batch's counts (a stage's graph lives for one
micro-batch's partition; a stateful stage reports what it counted since its last output). The
``foreachBatch`` sink (:class:`MetricsRecorder`) adds them to the totals of the batch before and
writes ``<checkpoint>/metrics/totals/<batch>.json``; when the reporters' totals changed and
``interval_s`` has passed since the last emission, it also writes ``emit/<batch>.json``: the
metrics events of the totals. The source (a Python Data Source stream reader on the driver,
offsets ``{"b": batch, "n": events so far}``) returns the events of the newest ``emit`` file in
the next micro-batch. Totals that changed before ``interval_s`` had passed are written down as
``pending/<batch>.json`` (when they fall due); once that time has come and nothing was emitted
since, the source moves its offset (``"p": batch``, no rows) so that Spark runs a micro-batch
which emits them, as Tremor reports on its interval whether or not events arrive. Without it a
flow whose last input came early in an interval would never report its final counts. Files are
written once (a replayed micro-batch keeps the first copy and reads the same events), so counts
are exact and at most one snapshot late.
"""

from __future__ import annotations

import glob
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec, RunContext, rows_frame
from runtime_support.io.connectors.metrics import MetricsSpec, metrics_events, totals
from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.origin import encode_origin, hostname

__all__ = ["MetricsRecorder", "MetricsSource", "metrics_stream"]

SCHEMA = "seq long, value string, ingest_ns long, origin string"


def _write_once(path: str, data: Any) -> None:
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(path + ".tmp", path)


def _newest(folder: str, below: int | None = None) -> tuple[int, Any] | None:
    """The highest-numbered ``<n>.json`` of ``folder`` (below ``below``) and its content."""
    found = [int(os.path.basename(p)[:-5]) for p in glob.glob(os.path.join(folder, "*.json"))]
    found = [n for n in found if below is None or n < below]
    if not found:
        return None
    with open(os.path.join(folder, f"{max(found)}.json"), encoding="utf-8") as handle:
        return max(found), json.load(handle)


class MetricsRecorder:
    """The ``foreachBatch`` side: totals per micro-batch and the emitted snapshots."""

    def __init__(self, spec: MetricsSpec, checkpoint: str) -> None:
        self.spec = spec
        self.root = os.path.join(checkpoint, "metrics")

    def record(self, frame: Any, batch_id: int) -> None:
        """Add the micro-batch's ``#metrics`` rows of ``frame`` (``port``, ``value``)."""
        from pyspark.sql import functions as F

        rows = frame.filter(F.col("port") == "#metrics").select("value").collect()
        before = _newest(os.path.join(self.root, "totals"), batch_id)
        counts = Counter({tuple(k): n for *k, n in (before[1] if before else [])})
        counts.update(totals(row.value for row in rows))
        path = os.path.join(self.root, "totals", f"{batch_id}.json")
        _write_once(path, [[*key, n] for key, n in sorted(counts.items())])
        now = time.time_ns()
        events = metrics_events(self.spec, counts, now)
        last = _newest(os.path.join(self.root, "emit"), batch_id)
        if last is not None:
            fresh = [_untimed(e) for e in events] != [_untimed(e) for e in last[1]["events"]]
            due = now - last[1]["ns"] >= self.spec.interval_s * 1_000_000_000
            if not (fresh and due):
                if fresh:
                    due_ns = last[1]["ns"] + self.spec.interval_s * 1_000_000_000
                    _write_once(os.path.join(self.root, "pending", f"{batch_id}.json"), due_ns)
                return
        emit = {"ns": now, "events": events}
        _write_once(os.path.join(self.root, "emit", f"{batch_id}.json"), emit)


def _untimed(event: dict) -> dict:
    return {k: v for k, v in event.items() if k != "timestamp"}


def metrics_stream(spark: Any, checkpoint: str, ingest_ns: str) -> Any:
    """The streaming DataFrame ``seq, value, ingest_ns, origin`` of the emitted snapshots."""
    _register(spark)
    return (
        spark.readStream.format("tremorc_metrics")
        .option("folder", os.path.join(checkpoint, "metrics", "emit"))
        .option("pending", os.path.join(checkpoint, "metrics", "pending"))
        .option("ingest_ns", ingest_ns)
        .load()
    )


def _rows(folder: str, batch: int, first: int, index_ns: bool) -> list[tuple]:
    with open(os.path.join(folder, f"{batch}.json"), encoding="utf-8") as handle:
        emit = json.load(handle)
    origin = encode_origin("tremor-metrics", hostname(), None, [])
    return [
        (seq, encode_json(event), seq if index_ns else emit["ns"], origin)
        for seq, event in enumerate(emit["events"], first)
    ]


def _reader_class() -> type:
    from pyspark.sql.datasource import SimpleDataSourceStreamReader

    class MetricsReader(SimpleDataSourceStreamReader):  # type: ignore[misc]
        """Offsets ``{"b": emitted batch file, "n": events so far}``, with ``"p": batch`` when
        a micro-batch is asked for to emit the pending totals of that batch."""

        def __init__(self, options: dict[str, str]) -> None:
            self.folder = options["folder"]
            self.pending = options["pending"]
            self.index_ns = options.get("ingest_ns") == "index"

        def initialOffset(self) -> dict:
            return {"b": -1, "n": 0}

        def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
            newest = _newest(self.folder)
            if newest is None or newest[0] <= start["b"]:
                return iter(()), self._due(start, -1 if newest is None else newest[0])
            rows = _rows(self.folder, newest[0], start["n"], self.index_ns)
            return iter(rows), {"b": newest[0], "n": start["n"] + len(rows)}

        def _due(self, start: dict, emitted: int) -> dict:
            """``start``, or with ``"p"`` when pending totals newer than the last emission
            have fallen due and no micro-batch was asked for them yet."""
            pending = _newest(self.pending)
            if pending is None or pending[0] <= emitted or start.get("p") == pending[0]:
                return start
            if time.time_ns() < pending[1]:
                return start
            return {**start, "p": pending[0]}

        def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
            if end["b"] == start["b"]:
                return iter(())
            return iter(_rows(self.folder, end["b"], start["n"], self.index_ns))

    return MetricsReader


def _source_class() -> type:
    from pyspark.sql.datasource import DataSource

    class MetricsDataSource(DataSource):  # type: ignore[misc]
        """``spark.readStream.format("tremorc_metrics")``."""

        @classmethod
        def name(cls) -> str:
            return "tremorc_metrics"

        def schema(self) -> str:
            return SCHEMA

        def simpleStreamReader(self, schema: Any) -> Any:
            return _reader_class()(dict(self.options))

    return MetricsDataSource


_REGISTERED: set[int] = set()


def _register(spark: Any) -> None:
    if id(spark) not in _REGISTERED:
        spark.dataSource.register(_source_class())
        _REGISTERED.add(id(spark))


class MetricsSource:
    """Batch: emits nothing while the flow runs (see :func:`metrics_inputs`); stream: the
    counts of earlier micro-batches (:func:`metrics_stream`)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec

    def read(self, spark: Any, ctx: RunContext) -> Any:
        return rows_frame(spark, [])

    def stream(self, spark: Any, args: Any, start_ns: int) -> Any:
        return metrics_stream(spark, args.checkpoint, args.ingest_ns)
