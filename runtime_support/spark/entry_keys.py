"""A keyed stage fed straight by an input stream, its shuffle key read in the JVM (batch runs).

When an input stream's every event goes to one windowed ``select`` grouped by one top-level
field (``group by event.f`` or ``group by set(event.f)``), the job need not run a Python pass
before the shuffle only to compute each event's key: Spark's JSON reader (``from_json``) reads
the field, the input rows go straight to the shuffle, and the keyed stage decodes each line once
and runs it (:meth:`runtime_support.spark.stages._Runner.feed_entry`). The stage's rows are the ones
the two-stage plan gives. The job's ``batch_plan`` shuffles :func:`entry_rows` by ``part``,
sorts each partition by ``seq`` and runs the stage's ``stage_mapper`` with the partition count.

Invariant: all events of one group run in one partition, in ``seq`` order. The partition is a
function of the group: ``pid = crc32(utf8(f(v))) mod P`` (``P`` the shuffle's partitions, pid
``j`` goes to partition ``j``, see :func:`partition_values`), where ``v`` is the field's value and
``f(v)`` is ``v`` for a string that does not start with a character some other JSON value's text
starts with, else ``""`` (a number, bool, null, array or record: they share one partition).
Where Spark's reader reads a line, it reads the value the job's decoder reads where both read the
line (the last of duplicate names, escapes decoded; tests/runtime/spark/test_entry_keys.py), and the
stage checks ``pid`` against the value it decoded: a difference stops the task with
:class:`EntryKeyMismatch`, never a split group. A line the reader cannot read (not JSON, or past
its limits: a number over 1,000 digits, a string over 20,000,000 characters, which the job's
decoder reads) goes to every partition (``P`` copies); the stage runs the copy whose ``pid`` it
computes from the decoded event, or copy 0 for an event without one group (one that fails to
decode, fails in ``where`` or ``group by``, or is filtered out).
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = [
    "EntryKeyMismatch",
    "entry_rows",
    "partition_values",
    "pid_of",
    "spark_hash_int",
]

NOT_A_STRING = frozenset("-0123456789[{tfn")
"""First characters of the text Spark's reader gives for a JSON value that is not a string."""
HOME = 0
"""The pid of an event without one group: the copy of an unreadable line that runs it."""


class EntryKeyMismatch(RuntimeError):
    """The JVM's partition of an event differs from the one its decoded group gives."""


def pid_of(value: Any, parts: int) -> int:
    """The partition of a group whose one component is ``value`` (see the module)."""
    if type(value) is not str or (value and value[0] in NOT_A_STRING):
        value = ""
    return zlib.crc32(value.encode("utf-8")) % parts


def spark_hash_int(value: int, seed: int = 42) -> int:
    """Spark's ``hash()`` of one int column (Murmur3 x86 32-bit of the 4-byte value, seed 42),
    which its hash partitioning takes modulo the partition count."""
    mask = 0xFFFFFFFF
    k1 = (value & mask) * 0xCC9E2D51 & mask
    k1 = ((k1 << 15) | (k1 >> 17)) & mask
    k1 = k1 * 0x1B873593 & mask
    h1 = seed ^ k1
    h1 = ((h1 << 13) | (h1 >> 19)) & mask
    h1 = (h1 * 5 + 0xE6546B64) & mask
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & mask
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & mask
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def partition_values(parts: int) -> list[int]:
    """Per pid ``j`` the smallest int that Spark's hash partitioning sends to partition ``j`` of
    ``parts``: the shuffle column, so each pid has a partition of its own (only the balance
    depends on it, never which events meet)."""
    found: dict[int, int] = {}
    candidate = 0
    while len(found) < parts:
        found.setdefault(spark_hash_int(candidate) % parts, candidate)
        candidate += 1
    return [found[pid] for pid in range(parts)]


def entry_rows(events: Any, field: str, parts: int) -> Any:
    """``events`` with ``readable`` (Spark's reader read the line), ``pid`` (one row per pid for
    an unreadable line) and ``part`` (the shuffle column sending pid ``j`` to partition ``j``)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    corrupt = "_tremorc_unread" if field != "_tremorc_unread" else "_tremorc_unread_"
    schema = StructType([StructField(field, StringType()), StructField(corrupt, StringType())])
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": corrupt}
    columns = events.columns
    # One parse per line: each step reads the columns of the one before (Spark keeps a
    # projection of an expensive expression read several times apart).
    read = events.select(*columns, F.from_json(F.col("value"), schema, options).alias("_read"))
    read = read.select(
        *columns,
        (F.col("_read").isNotNull() & F.col("_read").getField(corrupt).isNull()).alias("readable"),
        F.col("_read").getField(field).alias("_text"),
    )
    text = F.col("_text")
    key = F.when(text.isNull() | F.substring(text, 1, 1).isin(*sorted(NOT_A_STRING)), F.lit(""))
    pid = F.pmod(F.crc32(key.otherwise(text).cast("binary")), F.lit(parts))
    every = F.sequence(F.lit(0), F.lit(parts - 1)).cast("array<long>")
    pids = F.when(F.col("readable"), F.array(pid)).otherwise(every)
    rows = read.select(*columns, "readable", F.explode(pids).alias("pid"))
    targets = F.array(*(F.lit(v) for v in partition_values(parts)))
    return rows.withColumn("part", F.element_at(targets, F.col("pid").cast("int") + 1))
