"""A source stage runs in at most as many Python tasks as the job's other stages
(``spark_exec.python_splits``: ``spark.sql.shuffle.partitions`` or the cores, the larger): the
reader's splits are merged without a shuffle, never split further, and every event keeps the
``seq`` its own split gave it. The session runs local[2] with 2 shuffle partitions."""

from __future__ import annotations

import json

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job

PROGRAM = """select {"n": event.n, "twice": event.n * 2} from in where event.n % 3 != 0 into out;
"""


@pytest.mark.spark
@pytest.mark.parametrize("splits", [1, 2, 8])
def test_splits_are_merged_to_the_job_s_parallelism(spark, splits: int) -> None:
    from runtime_support.spark.plan import event_columns, python_splits

    cores = spark.sparkContext.defaultParallelism
    assert spark.conf.get("spark.sql.shuffle.partitions") == str(cores) == "2"
    frame = spark.range(0, 40, numPartitions=splits).selectExpr("cast(id as string) AS value")
    merged = python_splits(event_columns(spark, frame))
    assert merged.rdd.getNumPartitions() == min(splits, cores)
    seqs = [row.seq for row in merged.collect()]
    assert len(set(seqs)) == 40  # monotonically_increasing_id ran on the reader's splits


@pytest.mark.spark
def test_more_shuffle_partitions_keep_more_splits(spark) -> None:
    """``--partitions 3`` (3 shuffle partitions) on 2 cores: the source stage keeps 3 tasks."""
    from runtime_support.spark.plan import event_columns, python_splits

    frame = spark.range(0, 40, numPartitions=8).selectExpr("cast(id as string) AS value")
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        assert python_splits(event_columns(spark, frame)).rdd.getNumPartitions() == 3
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "2")


@pytest.mark.spark
def test_a_source_stage_runs_in_one_task_per_core(spark) -> None:
    job = load_job(compile_source(Source("q.trickle", PROGRAM), "query").job, "splits")
    lines = [json.dumps({"n": n}) for n in range(200)]
    frame = spark.createDataFrame([(line,) for line in lines], "value string").repartition(8)
    out = job.run_pipeline(spark, {"in": frame})["out"]
    assert out.rdd.getNumPartitions() == spark.sparkContext.defaultParallelism
    got = sorted(json.loads(row.value)["n"] for row in out.collect())
    assert got == [n for n in range(200) if n % 3 != 0]
