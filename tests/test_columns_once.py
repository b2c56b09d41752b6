"""A job's fixed Columns are built once per JVM (``runtime_support.columns_once``): a key's
builder runs once, the one Column serves every plan it joins, and building a job a second time
costs the driver far fewer round trips to the JVM than the first."""

from __future__ import annotations

import json
import threading

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job

PROGRAM = """select {"n": event.n, "twice": event.n * 2} from in where event.n % 3 != 0 into out;
"""


@pytest.mark.spark
def test_a_key_is_built_once(spark) -> None:
    from pyspark.sql import functions as F

    from runtime_support.columns_once import column_once

    built: list[str] = []

    def build(name: str):
        built.append(name)
        return F.col(name) + 1

    first = column_once(spark, ("test_columns_once", "a"), lambda: build("a"))
    again = column_once(spark, ("test_columns_once", "a"), lambda: build("a"))
    other = column_once(spark, ("test_columns_once", "b"), lambda: build("b"))
    assert first is again and other is not first
    assert built == ["a", "b"]


@pytest.mark.spark
def test_one_column_serves_every_plan(spark) -> None:
    """The cached input columns (``seq`` from the frame's own order among them) read each
    frame's own rows."""
    from runtime_support.spark.plan import event_columns

    small = spark.range(0, 5).selectExpr("cast(id as string) AS value")
    large = spark.range(100, 130, numPartitions=3).selectExpr("cast(id as string) AS value")
    rows_small = event_columns(spark, small).collect()
    rows_large = event_columns(spark, large).collect()
    assert sorted(row.value for row in rows_small) == [str(n) for n in range(5)]
    assert sorted(int(row.value) for row in rows_large) == list(range(100, 130))
    assert len({row.seq for row in rows_large}) == 30
    assert all(row.meta is None and row.origin is None for row in rows_large)


@pytest.mark.spark
def test_empty_frames_have_the_declared_schema(spark) -> None:
    from runtime_support.spark.plan import EVENT_SCHEMA
    from runtime_support.spark.port_frames import EMPTY_PORT, empty_frame

    for schema in (EMPTY_PORT, EVENT_SCHEMA):
        frame = empty_frame(spark, schema)
        assert frame.schema == spark.createDataFrame([], schema).schema
        assert frame.count() == 0


@pytest.mark.spark
def test_a_job_built_again_makes_few_round_trips(spark) -> None:
    """Building a job's plan again (a second run in the same driver) costs the round trips of
    its DataFrames, not of its fixed Columns, column lists and UDFs: 212 for this job before
    any cache, 24 with them."""
    import py4j.clientserver
    import py4j.protocol

    job = load_job(compile_source(Source("q.trickle", PROGRAM), "query").job, "columns_once")
    frame = spark.createDataFrame([(json.dumps({"n": n}),) for n in range(9)], "value string")
    first = job.run_pipeline(spark, {"in": frame})["out"]
    assert sorted(json.loads(row.value)["n"] for row in first.collect()) == [1, 2, 4, 5, 7, 8]

    calls = [0]
    send = py4j.clientserver.ClientServerConnection.send_command

    builder = threading.get_ident()

    def counted(self, command):
        # py4j's finalizer thread frees the JVM objects of earlier tests ("m" commands) at its
        # own pace, concurrently: those are not this build's round trips.
        if threading.get_ident() == builder and not command.startswith(
            py4j.protocol.MEMORY_COMMAND_NAME
        ):
            calls[0] += 1
        return send(self, command)

    py4j.clientserver.ClientServerConnection.send_command = counted
    try:
        again = job.run_pipeline(spark, {"in": frame})["out"]
    finally:
        py4j.clientserver.ClientServerConnection.send_command = send
    assert calls[0] <= 40, f"{calls[0]} round trips to build the job again"
    assert sorted(row.value for row in again.collect()) == sorted(r.value for r in first.collect())


@pytest.mark.spark
def test_an_unhashable_key_builds_each_time(spark) -> None:
    from pyspark.sql import functions as F

    from runtime_support.columns_once import column_once

    built: list[int] = []
    for _ in range(2):
        column_once(spark, ("test_columns_once", ["a list"]), lambda: built.append(1) or F.lit(1))
    assert built == [1, 1]


@pytest.mark.spark
def test_a_cached_select_reads_each_frames_own_rows(spark) -> None:
    from pyspark.sql import functions as F

    from runtime_support.columns_once import select_once

    def build():
        return (F.col("id") * 2).alias("twice"), "id"

    small = select_once(spark.range(3), ("test_select_once", "twice"), build)
    large = select_once(spark.range(10, 13), ("test_select_once", "twice"), build)
    assert [tuple(r) for r in small.collect()] == [(0, 0), (2, 1), (4, 2)]
    assert [tuple(r) for r in large.collect()] == [(20, 10), (22, 11), (24, 12)]
    assert small.columns == ["twice", "id"]


@pytest.mark.spark
def test_a_stage_udf_is_built_once_and_the_cache_stays_bounded(spark, monkeypatch) -> None:
    """The same stage mapper (same graph object, stage, flush) reuses its UDF; each other
    graph gets its own, and no more than UDFS_KEPT are kept."""
    from runtime_support import columns_once

    monkeypatch.setattr(columns_once, "UDFS_KEPT", 3)

    job = load_job(compile_source(Source("q.trickle", PROGRAM), "query").job, "udf_once")
    frame = spark.createDataFrame([(json.dumps({"n": n}),) for n in range(9)], "value string")
    job.run_pipeline(spark, {"in": frame})["out"].collect()
    mine = [key for key in columns_once._UDFS if key[0][0].obj is job.GRAPH]
    assert len(mine) == 1
    kept = columns_once._UDFS[mine[0]]
    again = job.run_pipeline(spark, {"in": frame})["out"]
    assert columns_once._UDFS[mine[0]] is kept
    assert sorted(json.loads(r.value)["n"] for r in again.collect()) == [1, 2, 4, 5, 7, 8]
    for i in range(columns_once.UDFS_KEPT + 3):
        other = load_job(compile_source(Source("q.trickle", PROGRAM), "query").job, f"u{i}")
        rows = other.run_pipeline(spark, {"in": frame})["out"].collect()
        assert len(rows) == 6
        assert len(columns_once._UDFS) <= columns_once.UDFS_KEPT
    assert all(key[0][0].obj is not job.GRAPH for key in columns_once._UDFS)


@pytest.mark.spark
def test_a_stage_over_the_empty_frame_is_built_once(spark) -> None:
    """A job whose input stream is absent (or a typed plan's Python stages, given no event)
    runs its source stage over the session's empty frame: the stage's DataFrame is built once
    and runs to no output; over a frame with rows each run builds its own."""
    from runtime_support.spark.plan import EVENT_SCHEMA, event_columns, python_splits
    from runtime_support.spark.port_frames import empty_frame

    job = load_job(compile_source(Source("q.trickle", PROGRAM), "query").job, "empty_once")
    empty = event_columns(spark, None)
    assert empty is empty_frame(spark, EVENT_SCHEMA) and python_splits(empty) is empty
    assert job.run_pipeline(spark, {})["out"].count() == 0
    stages = _stage_frames(job, spark, {})
    assert stages[0] is stages[1] and stages[0].count() == 0
    frame = spark.createDataFrame([(json.dumps({"n": 1}),)], "value string")
    built = _stage_frames(job, spark, {"in": frame})
    assert built[0] is not built[1]


def _stage_frames(job, spark, inputs) -> list:
    """The source stage's frame of two runs of ``job`` (read from its one port's sources)."""
    return [job.run_pipeline(spark, inputs).sources["out"][0] for _ in range(2)]


def test_same_is_identity() -> None:
    from runtime_support.columns_once import Same

    a, b = {"x": 1}, {"x": 1}
    assert Same(a) == Same(a) and Same(a) != Same(b) and hash(Same(a)) == id(a)
    assert len({Same(a), Same(a), Same(b)}) == 2
