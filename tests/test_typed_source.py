"""Typed inputs (README "Typed sources"): a DataFrame without ``value`` whose columns are the
event (a Parquet or JDBC table). Its event is the record of its non-NULL fields, in column
order. Every job reads it as that JSON; a job built with ``--schema`` of the same columns runs
its typed plan over the columns themselves, with no JSON in between. Outputs are compared byte
for byte with the plain Python job fed the JSON text this test writes itself."""

from __future__ import annotations

import json

import pytest

from compiler.lowering.schema import parse_schema
from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job

from .test_typed_differential import PROGRAMS, SCHEMA

ROWS = [
    ("info", 1, None, None, None),
    ("warn", 5, (3,), ["p", "q"], True),
    (None, 2, None, None, None),
    ("x", None, None, None, None),
    ("w", 4000000000000000000, None, None, None),
    ("a", 7, (None,), [], False),
    ('\u00e9\u2603 "q" \\', -1, None, None, False),
    ("tab\there\nline", 3, None, ["p", None], None),
    ("ctl\x1fchar\x0b", 4, None, None, None),  # Jackson writes \u001F: the Python path
    (None, None, None, None, None),
    ("z", 0, None, None, None),
    ("m", -9223372036854775808, None, None, None),
    ("big", 9223372036854775807, None, None, None),
    ("", 1, (0,), [""], True),
]
NAMES = ("m", "a", "o", "t", "f")


def reference_json(row: tuple) -> str:
    """The event of a typed row as JSON text, written here: its non-NULL fields in order
    (a struct's NULL fields absent too; an array keeps its NULL elements)."""
    event = {name: value for name, value in zip(NAMES, row, strict=True) if value is not None}
    if "o" in event:
        event["o"] = {k: v for k, v in zip(("x",), event["o"], strict=True) if v is not None}
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def outputs(spark, job: str, frame) -> list[tuple]:
    """``(port, value text, seq, sub)`` of every output, in emission order."""
    from pyspark.sql import functions as F

    module = load_job(job, "typed_source")
    result = module.run_pipeline(spark, {"in": frame}, flush_at_end=False)
    frames = [df.withColumn("port", F.lit(port)) for port, df in result.items()]
    union = frames[0]
    for df in frames[1:]:
        union = union.unionByName(df)
    got = [(r.port, r.value, r.seq, list(r.sub)) for r in union.collect()]
    return sorted(got, key=lambda r: (r[2], r[3], r[0]))


def typed_frame(spark, schema: str = SCHEMA):
    rows = [(seq, *row) for seq, row in enumerate(ROWS)]
    return spark.createDataFrame(rows, f"seq BIGINT, {schema}")


def text_frame(spark):
    rows = [(seq, reference_json(row)) for seq, row in enumerate(ROWS)]
    return spark.createDataFrame(rows, "seq long, value string")


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_typed_source_equals_python_on_its_json(name: str, spark) -> None:
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    plain = compile_source(source, "script").job
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    assert "with_typed_plan(" in typed
    expected = outputs(spark, plain, text_frame(spark))
    assert outputs(spark, plain, typed_frame(spark)) == expected  # any job reads typed input
    assert outputs(spark, typed, typed_frame(spark)) == expected  # the typed plan, no JSON
    assert len(expected) >= len(ROWS) - 4


@pytest.mark.spark
def test_only_outputs_with_an_escape_leave_the_native_path(spark) -> None:
    """Under `let`, every row runs natively but the one whose output Jackson would escape."""
    from pyspark.sql import functions as F

    from compiler.lowering.typed import typed_plan
    from compiler.pipeline import check_source
    from runtime_support.native_typed import typed_columns
    from runtime_support.spark_exec import typed_event

    script = check_source(Source(name="t", text=PROGRAMS["let"]), "script")
    tree = typed_plan(script, parse_schema(SCHEMA), {"out": "out"})
    frame = typed_frame(spark)
    ev = typed_event(frame.drop("seq"))
    text = F.to_json(ev, {"ignoreNullFields": "true"})
    to_python, _port, out = typed_columns(tree, ev, text, from_text=False)
    python = [r.seq for r in frame.filter(to_python).collect()]
    assert python == [8]
    native = [r.o for r in frame.filter(~to_python).select(out.alias("o")).collect()]
    assert native[0] == '{"m":"info","a":1,"merged":"true"}'


@pytest.mark.spark
def test_a_typed_input_of_another_schema_runs_on_its_json(spark) -> None:
    """A DECIMAL(20, 0) `a` is not the declared BIGINT: the typed plan is not used, and the
    output is the same (the Python path reads the row's JSON, where `a` is an integer)."""
    from pyspark.sql import functions as F

    from runtime_support.native_typed import typed_source

    source = Source(name="arith.tremor", text=PROGRAMS["arith"])
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    module = load_job(typed, "typed_other")
    frame = typed_frame(spark).withColumn("a", F.col("a").cast("decimal(20,0)"))
    assert not typed_source(module.GRAPH, frame)
    assert typed_source(module.GRAPH, typed_frame(spark))
    assert outputs(spark, typed, frame) == outputs(
        spark, compile_source(source, "script").job, text_frame(spark)
    )
