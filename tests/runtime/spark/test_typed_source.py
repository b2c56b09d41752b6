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
from tests.support.typed_programs import PROGRAMS, SCHEMA
from tests.support.typed_programs import frame_outputs as outputs

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


def typed_frame(spark, schema: str = SCHEMA):
    rows = [(seq, *row) for seq, row in enumerate(ROWS)]
    return spark.createDataFrame(rows, f"seq BIGINT, {schema}")


def text_frame(spark):
    rows = [(seq, reference_json(row)) for seq, row in enumerate(ROWS)]
    return spark.createDataFrame(rows, "seq long, value string")


#: One program per kind of leaf and check the typed source changes
#: (tests/spark/test_typed_differential.py runs every construct on JSON input): the extended
#: input (let, patch, merge, a nested key), new records, drops and ports, overflow and absent-key
#: checks, `array::contains`.
SOURCE_PROGRAMS = ("let", "patch", "merge", "nested", "match", "match_value", "arith", "contains")
SOURCE_PROGRAMS += ("ingest", "glob", "bounds", "record_pattern")


@pytest.mark.spark
def test_any_job_reads_a_typed_input_as_its_json(spark) -> None:
    source = Source(name="ops.tremor", text=PROGRAMS["ops"])
    plain = compile_source(source, "script").job
    assert outputs(spark, plain, typed_frame(spark)) == outputs(spark, plain, text_frame(spark))


@pytest.mark.spark
@pytest.mark.parametrize("name", SOURCE_PROGRAMS)
def test_typed_source_equals_python_on_its_json(name: str, spark, json_writer) -> None:
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    plain = compile_source(source, "script").job
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    assert "with_typed_plan(" in typed
    expected = outputs(spark, plain, text_frame(spark))
    assert outputs(spark, typed, typed_frame(spark)) == expected  # the typed plan, no JSON
    assert len(expected) >= len(ROWS) - 4


@pytest.mark.spark
@pytest.mark.parametrize("name", ("arith", "ingest"))
def test_a_typed_source_without_seq_or_ingest_time(name: str, spark) -> None:
    """A table as Parquet gives it: no `seq`, no `ingest_ns`. The rows are numbered once, before
    the plan splits them between its native and Python branches (`arith` overflows on two rows:
    both branches hold rows), so each event keeps one `seq`, in input order, as in the plain job
    on the same rows' JSON; the ingest time is NULL on both paths."""
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    plain = compile_source(source, "script").job
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    expected = outputs(spark, plain, text_frame(spark).drop("seq"))
    got = outputs(spark, typed, typed_frame(spark).drop("seq"))
    assert got == expected
    seqs = [seq for _port, _value, seq, _sub in got]
    assert len(set(seqs)) == len(seqs) >= len(ROWS) - 4


@pytest.mark.spark
def test_every_row_of_let_runs_natively(spark) -> None:
    """Not vacuous: under `let` the plan sends no row to Python, control characters
    included (their escapes are rewritten in Tremor's spelling)."""
    from runtime_support.spark.typed_plan import apply_native

    source = Source(name="let.tremor", text=PROGRAMS["let"])
    module = load_job(compile_source(source, "script", schema=parse_schema(SCHEMA)).job, "let")
    python, native = apply_native(module.GRAPH, None, None, {"in": typed_frame(spark)})
    assert python.count() == 0 and native.count() == len(ROWS)


@pytest.mark.spark
def test_jackson_escapes_become_tremors(spark) -> None:
    """Every character from U+0000 to U+007F and a few above, and backslashes before text
    that looks like an escape: Spark's JSON after the rewrite is orjson's (Tremor's)."""
    from pyspark.sql import functions as F

    from runtime_support.spark.typed_plan import jackson_escapes_as_tremor
    from runtime_support.tremor.jsonio import encode_json

    texts = [chr(i) for i in range(0x80)] + ["\u2028", "\U0001f600", "\u00e9"]
    texts += ["\\u001F", "\\\x1f", "\\\\u000B\x0b", "a\x1fb\x1f", "\\\\\x1e"]
    frame = spark.createDataFrame([(t,) for t in texts], "s string")
    json = jackson_escapes_as_tremor(F.to_json(F.struct("s")))
    got = [r.j for r in frame.select(json.alias("j")).collect()]
    assert got == [encode_json({"s": t}) for t in texts]


@pytest.mark.spark
def test_a_typed_input_of_another_schema_runs_on_its_json(spark) -> None:
    """A DECIMAL(20, 0) `a` is not the declared BIGINT: the typed plan is not used, and the
    output is the same (the Python path reads the row's JSON, where `a` is an integer)."""
    from pyspark.sql import functions as F

    from runtime_support.spark.typed_plan import typed_source

    source = Source(name="arith.tremor", text=PROGRAMS["arith"])
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    module = load_job(typed, "typed_other")
    frame = typed_frame(spark).withColumn("a", F.col("a").cast("decimal(20,0)"))
    assert not typed_source(module.GRAPH, frame)
    assert typed_source(module.GRAPH, typed_frame(spark))
    assert outputs(spark, typed, frame) == outputs(
        spark, compile_source(source, "script").job, text_frame(spark)
    )


@pytest.mark.spark
def test_real_workflow_on_a_typed_source_equals_python(spark) -> None:
    """The benchmark's classifier (dead `$` stores, an always-out bucket, `array::contains`)
    as a typed plan over the data set's rows, some with the fields it reads NULL (absent):
    the same outputs as the plain job on the rows' JSON; its typed plan is in use."""
    import lzma

    from tests.support.paths import ROOT, WORKLOADS

    ddl = (
        "about STRING, guid STRING, abool BOOLEAN, aint BIGINT, short_message STRING, "
        "tags ARRAY<STRING>, array ARRAY<BIGINT>, index_type STRING, logger_name STRING, "
        "syslog_hostname STRING, application STRING, type STRING, `doc-type` STRING"
    )
    names = [part.split(" ")[0].strip("`") for part in ddl.split(", ")]
    path = ROOT / "benchmarks" / "workloads" / "suite" / "real-workflow-throughput-json.trickle"
    program = path.read_text(encoding="utf-8") + "select event from runtime/err into err;\n"
    source = Source(name=path.name, text=program)
    typed = compile_source(source, "query", schema=parse_schema(ddl)).job
    assert "with_typed_plan(" in typed
    with lzma.open(WORKLOADS / "data" / "data.json.xz", "rt", encoding="utf-8") as f:
        events = [json.loads(line) for line in f.read().splitlines() if line.strip()]
    for i, missing in enumerate(("application", "index_type", "tags", "logger_name")):
        events.append({k: v for k, v in events[i].items() if k != missing})
    for index_type in ("applog_app6", "syslog_app1", "syslog_app3", "syslog_app5"):
        event = {**events[0], "index_type": index_type, "application": "none"}
        events.append({k: v for k, v in event.items() if "_name" not in k and "host" not in k})
    events.append({**events[1], "tags": ["x", None, "tag1"], "application": "none"})
    rows = [(seq, *[e.get(n) for n in names]) for seq, e in enumerate(events)]
    frame = spark.createDataFrame(rows, f"seq BIGINT, {ddl}")
    texts = [(seq, json.dumps(e, separators=(",", ":"))) for seq, e in enumerate(events)]
    expected = outputs(
        spark,
        compile_source(source, "query").job,
        spark.createDataFrame(texts, "seq long, value string"),
    )
    assert outputs(spark, typed, frame) == expected
    assert sum(port == "err" for port, *_ in expected) >= 5  # the fields it reads, absent


MATCH_DDL = (
    "about STRING, guid STRING, abool BOOLEAN, aint BIGINT, short_message STRING, "
    "tags STRUCT<pipeline: STRING>, array ARRAY<BIGINT>, index_type STRING, logger_name STRING, "
    "syslog_hostname STRING, application STRING, type STRING, `doc-type` STRING, "
    "measurement STRING"
)


@pytest.mark.spark
def test_match_workload_on_a_typed_source_equals_python(spark) -> None:
    """The benchmark's 285-case `match` (`$class` per case, routing buckets, the port a local,
    globs, `system::ingest_ns()`) as a typed plan over rows of its data set, some without
    `measurement` or `tags` and one whose ingest time plus an hour leaves the i64 range (the
    Python path decides: Tremor's u64 range): the same outputs as the plain job on the rows'
    JSON, with the same ingest times."""
    import lzma

    from tests.support.paths import ROOT, WORKLOADS

    names = [part.split(" ")[0].strip("`") for part in MATCH_DDL.split(", ")]
    names = [n for n in names if not n.startswith("pipeline")]
    path = ROOT / "benchmarks" / "workloads" / "suite" / "match.trickle"
    errors = "select event from runtime/err into err;\nselect event from bucket/err into err;\n"
    source = Source(name=path.name, text=path.read_text(encoding="utf-8") + errors)
    typed = compile_source(source, "query", schema=parse_schema(MATCH_DDL)).job
    assert "with_typed_plan(" in typed
    with lzma.open(WORKLOADS / "data" / "match.json.xz", "rt", encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    events = [json.loads(line) for line in lines[::97]]  # every measurement kind, globs too
    events += [{k: v for k, v in events[0].items() if k != key} for key in ("measurement", "tags")]
    events += [{**events[1], "measurement": m} for m in ("text011x", "text0355", "nothing")]
    ingest = [1_000 * seq for seq in range(len(events))]
    ingest[-1] = 2**63 - 1  # plus an hour is past i64
    rows = [(seq, ingest[seq], *[e.get(n) for n in names]) for seq, e in enumerate(events)]
    frame = spark.createDataFrame(rows, f"seq BIGINT, ingest_ns BIGINT, {MATCH_DDL}")
    texts = [
        (seq, json.dumps(e, separators=(",", ":")), ingest[seq]) for seq, e in enumerate(events)
    ]
    text_frame = spark.createDataFrame(texts, "seq long, value string, ingest_ns long")
    expected = outputs(spark, compile_source(source, "query").job, text_frame)
    assert outputs(spark, typed, frame) == expected
    assert [port for port, *_ in expected].count("err") == 1  # the one without `measurement`


@pytest.mark.spark
def test_a_literal_step_overflow_check_prunes_by_statistics(spark) -> None:
    """`ingest_ns + c` overflows exactly past a bound: the Python branch's filter is that
    range test on the source's column, which Spark's in-memory statistics can prune."""
    from runtime_support.spark.typed_plan import apply_native

    program = "use tremor::system;\nlet event.t = system::ingest_ns() + 3600;\nevent"
    source = Source(name="ingest.tremor", text=program)
    typed = compile_source(source, "script", schema=parse_schema("m STRING")).job
    module = load_job(typed, "typed_ingest")
    frame = spark.createDataFrame(
        [(i, i, "x") for i in range(50)], "seq long, ingest_ns long, m string"
    )
    python, _native = apply_native(module.GRAPH, None, None, {"in": frame.cache()})
    plan = python._jdf.queryExecution().executedPlan().toString()
    scan = next(line for line in plan.splitlines() if "InMemoryTableScan" in line)
    assert "(ingest_ns#" in scan and f"> {2**63 - 3601})" in scan, plan  # the scan's predicate
    assert python.count() == 0
    frame.unpersist()


@pytest.mark.spark
def test_not_null_columns_leave_no_python_branch(spark) -> None:
    """A program that only reads `event.a`: with `a BIGINT NOT NULL` no row can miss it, so the
    plan has no Python branch (the Python stages get an empty frame; no second scan of the
    source), and the outputs are still those of the plain job."""
    from runtime_support.spark.port_frames import is_empty_frame
    from runtime_support.spark.typed_plan import apply_native

    rows = [(seq, *row) for seq, row in enumerate(ROWS) if row[1] is not None]
    schema = SCHEMA.replace("a BIGINT", "a BIGINT NOT NULL")
    frame = spark.createDataFrame(rows, f"seq BIGINT, {schema}")
    program = 'match event.a == 7 of case true => {"seven": event.a} case _ => event end'
    source = Source(name="reads_a.tremor", text=program)
    typed = compile_source(source, "script", schema=parse_schema(SCHEMA)).job
    module = load_job(typed, "typed_required")
    python, _native = apply_native(module.GRAPH, None, None, {"in": frame})
    assert is_empty_frame(python) and python.count() == 0
    # ... and the job's plan has no Python stage at all (no union with an empty one), and
    # reads the source once
    out = module.run_pipeline(spark, {"in": frame})["out"]
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert "MapInArrow" not in plan and plan.count("Scan ExistingRDD") == 1, plan
    texts = [(seq, reference_json(row)) for seq, *row in rows]
    plain = compile_source(source, "script").job
    expected = outputs(spark, plain, spark.createDataFrame(texts, "seq long, value string"))
    assert outputs(spark, typed, frame) == expected
