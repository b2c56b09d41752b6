"""What every flow connector shares: its spec, the run context, the source and sink protocols.

Sources are bounded in a batch job: each yields a DataFrame ``seq, value, ingest_ns, origin``
(``value`` is the decoded event as JSON text, ``seq`` its position in the source, ``origin`` the
origin URI Tremor's connector of that kind sets, or null). A sink either writes a whole
DataFrame ``value, seq, sub`` with Spark (``write_frame``: the ``file`` connector's part files;
``null``) or receives values on the driver in Tremor's emission order (``open``/``write``/
``close``: ``stdio``, a ``file`` with ``single_file``); ``exit`` (``stops``) receives nothing:
its first event ends the run.
"""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

ROW_SCHEMA = "seq long, value string, ingest_ns long"


@dataclass(frozen=True)
class ConnectorSpec:
    """One connector instance: ``alias`` (``flow::connector``), builtin ``kind``, the evaluated
    ``with`` values of its definition (``codec``, ``config``, ``preprocessors``, …) and the
    dotted names of what builds its ``source`` and its ``sink`` from the spec (the factories of
    the compiler's connector registry, ``compiler.registry.connectors``; ``""`` where the kind
    has none). A factory may return None: a ``file`` connector reads or writes by its mode."""

    alias: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    sink: str = ""

    @property
    def config(self) -> dict[str, Any]:
        """The connector-specific ``config`` record (empty when absent)."""
        value = self.params.get("config")
        return value if isinstance(value, dict) else {}


def factory(name: str) -> Any:
    """The object the dotted ``name`` names (``runtime_support.io.connectors.kafka.KafkaSink``);
    None for ``""``."""
    if not name:
        return None
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def build_source(spec: ConnectorSpec) -> Any:
    """The source object of ``spec`` (None when the connector does not produce events)."""
    make = factory(spec.source)
    return None if make is None else make(spec)


def build_sink(spec: ConnectorSpec) -> Any:
    """The sink object of ``spec`` (None when the connector does not consume events)."""
    make = factory(spec.sink)
    return None if make is None else make(spec)


@dataclass
class RunContext:
    """Options of one flow run (see :func:`runtime_support.flows.cli.flow_main`)."""

    ticks: int = 10
    stdin_path: str | None = None
    stdout_path: str | None = None
    ingest_ns: str = "wallclock"
    start_ns: int = field(default_factory=time.time_ns)
    exited: bool = False  # set when an event reached an exit connector
    partitions: int | None = None  # split each source into this many partitions (--partitions)
    _stdout: TextIO | None = None

    def ingest(self, index: int) -> int:
        """ingest_ns of the ``index``-th event of a source."""
        return index if self.ingest_ns == "index" else self.start_ns + index

    def stdout(self) -> Any:
        """The binary stream stdio sinks write to (``-o`` file or the process stdout)."""
        if self._stdout is None:
            if self.stdout_path:
                self._stdout = open(self.stdout_path, "wb")  # noqa: SIM115 - closed in close()
            else:
                self._stdout = sys.stdout.buffer  # type: ignore[assignment]
        return self._stdout

    def close(self) -> None:
        """Flush (and close a ``-o`` file)."""
        if self._stdout is not None:
            self._stdout.flush()
            if self.stdout_path:
                self._stdout.close()
            self._stdout = None


class Source(Protocol):
    """A connector that produces events."""

    def read(self, spark: Any, ctx: RunContext) -> Any: ...


class Sink(Protocol):
    """A connector that consumes events on the driver; ``stops`` is True for ``exit``."""

    stops: bool

    def open(self, ctx: RunContext) -> None: ...

    def write(self, port: str, value: Any) -> None: ...

    def close(self) -> None: ...


class FrameSink(Protocol):
    """A connector that writes its events with Spark (``progress`` counts them)."""

    stops: bool

    def write_frame(self, frame: Any, progress: Any) -> None: ...


def rows_frame(spark: Any, rows: list[tuple[int, str, int]], origin: str | None = None) -> Any:
    """A ``seq, value, ingest_ns, origin`` DataFrame from driver-side rows (one origin for all)."""
    return with_origin(spark.createDataFrame(rows, ROW_SCHEMA), origin)


def with_origin(df: Any, origin: str | None) -> Any:
    """``df`` plus the ``origin`` column every event of a source carries (see origin.py)."""
    from pyspark.sql import functions as F

    return df.withColumn("origin", F.lit(origin).cast("string"))
