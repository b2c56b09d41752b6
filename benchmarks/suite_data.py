"""Workloads, input data and output comparison of the benchmark suite (``suite.py``).

Invariants: every workload reads the same cached DataFrame ``seq, value, ingest_ns`` (``value``
one event as JSON text, ``seq`` the line's position, ``ingest_ns`` = ``BASE_NS + seq * 1000``,
one event per microsecond as Tremor's blaster replays a file); both jobs of a workload write
JSON text; outputs are compared as multisets of parsed JSON values.
"""

from __future__ import annotations

import json
import lzma
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "workloads"
ADAPTED = ROOT / "benchmarks" / "workloads" / "suite"
BASE_NS = 1_700_000_000_000_000_000
DATA_FILES = {
    "data": "data.json.xz",
    "match": "match.json.xz",
    "apache": "apache_access_logs.xz",
}


@dataclass(frozen=True)
class Workload:
    """One workload: its name, the input data set, and why an adapted copy is used (or "")."""

    name: str
    data: str = "data"
    adapted: str = ""

    @property
    def trickle(self) -> Path:
        """The program compiled: the shared ``main.trickle``, or the adapted copy."""
        if self.adapted:
            return ADAPTED / f"{self.name}.trickle"
        return SHARED / self.name / "main.trickle"

    @property
    def module(self) -> str:
        """The hand-written job's module name under ``benchmarks/handwritten``."""
        return self.name.replace("-", "_")


_COMMAS = "`,` between statements of a case body (today's grammar: `;`)"
_GROUPER = "`define grouper::bucket operator x` (today: `define operator x from grouper::bucket`)"
_WINDOW = "`define tumbling window w` (today: `define window w from tumbling`)"
WORKLOADS = [
    Workload("real-workflow-throughput-json", adapted=f"{_COMMAS}; {_GROUPER}"),
    Workload("patch"),
    Workload("merge"),
    Workload("let"),
    Workload("group_by"),
    Workload("group_by_each"),
    Workload("group-by-count", adapted=_WINDOW),
    Workload("window_two_by_two", adapted=_WINDOW),
    Workload(
        "batch",
        adapted="`define generic::batch operator x` "
        "(today: `define operator x from generic::batch`)",
    ),
    Workload(
        "match",
        data="match",
        adapted=f"{_COMMAS}; `default =>` (today: `case _ =>`); {_GROUPER}; "
        "`pipeline` is a keyword today, quoted as a field name",
    ),
    Workload("recurse"),
    Workload(
        "ls-apache",
        data="apache",
        adapted="grok `[%{HTTPDATE:timestamp}]`: `\\[` is rejected by the extractor lexer and "
        "an unescaped `[` opens a regex character class that the expanded pattern breaks; "
        "written `.%{HTTPDATE:timestamp}.` (the pattern's `·` separators never occur in the "
        "logs, so no event matches either way)",
    ),
]
BY_NAME = {w.name: w for w in WORKLOADS}


def source_lines(data: str) -> list[str]:
    """The data set's events as JSON text lines (the Apache log lines as JSON strings: Tremor's
    benchmark reads them with the `string` codec)."""
    raw = lzma.open(SHARED / "data" / DATA_FILES[data], "rt").read().splitlines()
    if data == "apache":
        return [json.dumps(line) for line in raw if line]
    return [line for line in raw if line.strip()]


def write_events(data: str, events: int, folder: Path) -> Path:
    """The data set repeated to ``events`` lines, one JSON-lines file in ``folder``."""
    lines = source_lines(data)
    path = folder / f"{data}-{events}.json"
    with path.open("w") as out:
        for i in range(events):
            out.write(lines[i % len(lines)] + "\n")
    return path


def input_frame(spark, path: Path):
    """The cached input DataFrame ``seq, value, ingest_ns`` (materialised before timing)."""
    from pyspark.sql import functions as F

    frame = (
        spark.read.text(str(path))
        .withColumn("seq", F.monotonically_increasing_id())
        .withColumn("ingest_ns", F.lit(BASE_NS) + F.col("seq") * 1000)
        .cache()
    )
    frame.count()
    return frame


def read_output(folder: str) -> Counter:
    """The JSON lines written under ``folder`` as a multiset of canonical JSON texts."""
    values: Counter = Counter()
    for part in sorted(Path(folder).glob("part-*")):
        for line in part.read_text().splitlines():
            if line:
                values[json.dumps(json.loads(line), sort_keys=True)] += 1
    return values


def compare(generated: str, handwritten: str) -> str:
    """ "" when both output folders hold the same multiset of JSON values, else a short account
    (counts and one example of each side's surplus)."""
    left, right = read_output(generated), read_output(handwritten)
    if left == right:
        return ""
    only_left, only_right = left - right, right - left
    example = next(iter(only_left or only_right))[:200]
    return (
        f"generated {sum(left.values())} lines, hand-written {sum(right.values())}; "
        f"{sum(only_left.values())} only generated, {sum(only_right.values())} only "
        f"hand-written; e.g. {example}"
    )
