"""A batch job's output ports (``runtime_support.spark.port_frames``): each port's DataFrame is
built when it is first read, from its stages' rows, and is the same however it is read."""

from __future__ import annotations

import pytest

from runtime_support.spark.port_frames import port_frames
from runtime_support.spark.stages import ROW_SCHEMA

ROWS = [
    (0, [0], -1, "out", None, None, '{"a":1}'),
    (1, [0], -1, "err", None, None, '{"e":2}'),
    (2, [0], 0, "next", None, None, '{"a":3}'),
]


@pytest.mark.spark
def test_a_port_is_built_when_first_read(spark) -> None:
    """Reading `out` never plans `err`: its stage here is a DataFrame without a stage row's
    columns, whose port frame Spark refuses to plan (the error shows when `err` is read)."""
    from pyspark.errors import AnalysisException

    stage = spark.createDataFrame(ROWS, ROW_SCHEMA)
    broken = spark.createDataFrame([(1,)], "n long")
    outputs = port_frames(spark, {"out": [stage], "err": [broken], "none": []})
    assert list(outputs) == ["out", "err", "none"] and len(outputs) == 3
    assert [(r.value, r.seq, list(r.sub)) for r in outputs["out"].collect()] == [
        ('{"a":1}', 0, [0])
    ]
    assert outputs["none"].count() == 0
    with pytest.raises(AnalysisException):
        outputs["err"]
    with pytest.raises(KeyError):
        outputs["missing"]


@pytest.mark.spark
def test_ports_read_together_or_one_by_one_agree(spark) -> None:
    stage = spark.createDataFrame(ROWS, ROW_SCHEMA)
    outputs = port_frames(spark, {"out": [stage], "err": [stage]})
    together = {(r.port, r.value) for r in outputs.together().collect()}
    apart = {(port, r.value) for port, frame in outputs.items() for r in frame.collect()}
    assert together == apart == {("out", '{"a":1}'), ("err", '{"e":2}')}
    outputs.keep_shared()  # the shared stage's rows kept once, each port reading its own
    assert {(port, r.value) for port, frame in outputs.items() for r in frame.collect()} == apart


@pytest.mark.spark
def test_empty_frames_have_the_declared_schema(spark) -> None:
    from runtime_support.spark.plan import EVENT_SCHEMA, event_columns, python_splits
    from runtime_support.spark.port_frames import EMPTY_PORT, empty_frame, is_empty_frame

    for schema in (EMPTY_PORT, EVENT_SCHEMA):
        frame = empty_frame(spark, schema)
        assert frame.schema == spark.createDataFrame([], schema).schema
        assert frame.count() == 0 and is_empty_frame(frame)
    empty = event_columns(spark, None)
    assert is_empty_frame(empty) and python_splits(empty) is empty
    assert not is_empty_frame(spark.createDataFrame([], EVENT_SCHEMA))
