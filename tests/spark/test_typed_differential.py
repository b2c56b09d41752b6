"""The typed native path changes no output byte: jobs built with ``--schema`` against the plain
Python job, on hand-written programs covering each construct and on the conformance corpus.

Probes mix events that fit the schema (handled natively) with ones that must not (key order,
whitespace, extra/duplicate keys, ``null``, floats, escapes, big ints, invalid JSON), and fitting
events that hit a missing key or an overflow (the Python path reports Tremor's error).
"""

from __future__ import annotations

import pytest

from compiler.lowering.schema import parse_schema
from compiler.pipeline import compile_source, kind_of, read_source
from compiler.source import Source
from compiler.testing.loader import load_job
from tests.support.typed_programs import PROGRAMS, SCHEMA, frame_outputs

FITTING = [
    '{"m":"info","a":1}',
    '{"m":"warn","a":5}',
    '{"a":2}',
    '{"m":"x"}',
    '{"m":"w","a":4000000000000000000}',
    '{"m":"a","a":1,"o":{"x":3},"t":["p","q"],"f":true}',
    '{"m":"a","a":7,"o":{}}',
    '{"m":"\u00e9\u2603 \\"q\\" \\\\","a":-1,"f":false}',
    "{}",
    '{"m":"tab\\there","a":3}',
    '{"m":"a","t":["p",null]}',
    '{"m":"z","a":0}',
    '{"a":-9223372036854775808}',
]
NOT_FITTING = [
    '{"m":"info", "a":1}',
    '{"a":1,"m":"info"}',
    '{"m":"info","a":1.0}',
    '{"m":null,"a":1}',
    '{"m":"info","zz":1}',
    '{"m":"in\\u0066o","a":1}',
    "nope",
    "[1]",
    '{"m":"info","m":"x"}',
    '{"a":18446744073709551615}',
    '{"m":"info","a":1} ',
]
#: Control characters escaped as Tremor writes them (lower-case hex) and as it does not: the
#: first fits where ``tremor_json`` writes the text, neither where ``to_json`` does.
ESCAPED = ['{"m":"ctl\\u001fx\\u000b","a":2}', '{"m":"ctl\\u001Fx","a":2}']


def raw_outputs(spark, job: str, lines: list[str]) -> list[tuple]:
    """``(port, value text, seq, sub)`` of every output in emission order: the exact text."""
    rows = [(i, line, i) for i, line in enumerate(lines)]
    df = spark.createDataFrame(rows, "seq long, value string, ingest_ns long")
    return frame_outputs(spark, job, df)


def both_jobs(source: Source, kind: str, schema: str) -> tuple[str, str]:
    plain = compile_source(source, kind).job
    return plain, compile_source(source, kind, schema=parse_schema(schema)).job


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_typed_equals_python(name: str, spark, json_writer) -> None:
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    plain, typed = both_jobs(source, "script", SCHEMA)
    assert "with_typed_plan(" in typed, "the program should lower over the schema"
    lines = FITTING + NOT_FITTING + ESCAPED
    assert raw_outputs(spark, typed, lines) == raw_outputs(spark, plain, lines)


@pytest.mark.spark
@pytest.mark.parametrize("writer", (False, True))
def test_fit_check_is_exact_and_not_vacuous(spark, writer: bool) -> None:
    """Which probes run natively under the `arith` program (hand-listed): exactly the fitting
    ones that Tremor accepts with this meaning (and, where ``tremor_json`` writes the text, the
    line whose escapes are Tremor's)."""
    from pyspark.sql import functions as F

    from compiler.lowering.schema import root_ddl
    from compiler.lowering.typed import typed_plan
    from compiler.pipeline import check_source
    from runtime_support.spark.typed_plan import typed_columns

    schema = parse_schema(SCHEMA)
    script = check_source(Source(name="t", text=PROGRAMS["arith"]), "script")
    tree = typed_plan(script, schema, {"out": "out"})
    lines = FITTING + NOT_FITTING + ESCAPED
    df = spark.createDataFrame([(line,) for line in lines], "value string")
    parsed = df.select("value", F.from_json("value", root_ddl(schema)).alias("e"))
    to_python, _port, _out = typed_columns(tree, F.col("e"), F.col("value"), writer)
    native = [r.value for r in parsed.filter(~to_python).collect()]
    assert (
        native
        == [
            '{"m":"info","a":1}',
            '{"m":"warn","a":5}',
            '{"a":2}',
            '{"m":"a","a":1,"o":{"x":3},"t":["p","q"],"f":true}',
            '{"m":"a","a":7,"o":{}}',
            '{"m":"\u00e9\u2603 \\"q\\" \\\\","a":-1,"f":false}',
            '{"m":"tab\\there","a":3}',
            '{"m":"z","a":0}',
        ]
        + ESCAPED[:1] * writer
    )


def test_schema_errors_name_what_is_supported() -> None:
    from compiler.lowering.schema import SchemaError

    for bad, words in [("a DOUBLE", "DOUBLE"), ("a INT", "INT"), ("a STRING,", "")]:
        if words:
            with pytest.raises(SchemaError, match=words):
                parse_schema(bad)
    assert parse_schema("`doc-type` STRING, s STRUCT<x: ARRAY<BIGINT>>") == (
        "struct",
        (("doc-type", "string"), ("s", ("struct", (("x", ("array", "bigint")),)))),
    )


def test_report_says_why_not(tmp_path) -> None:
    from click.testing import CliRunner

    from compiler.cli import cli

    program = tmp_path / "p.tremor"
    program.write_text('{"x": event.a / 2}')
    result = CliRunner().invoke(cli, ["dbg", "lowering", "--schema", SCHEMA, str(program)])
    assert "typed plan: no, the program runs in Python: operator `/` on bigint and bigint" in (
        result.output
    )
    program.write_text("event")
    result = CliRunner().invoke(cli, ["dbg", "lowering", "--schema", SCHEMA, str(program)])
    assert "typed plan: yes" in result.output


#: The match workload's shape: `$class` set per case (or not: the bucket fails those events),
#: the port a computed string, two buckets that only route (out and overflow both to `out`).
ROUTED = """
define script classify
script
  use tremor::system;
  let p = "type2";
  match event of
    case %{m == "warn"} => emit event => "out"
    case _ => null
  end;
  match event of
    case %{m == "info"} => let $class = "a"; let $rate = 1; let p = "out"
    case %{m ~= glob|w*|} => let $class = 7; let $rate = 2
    case _ => let $class = "b"; let $rate = 2
  end;
  let event.at = system::ingest_ns();
  emit event => "#{p}"
end;
create script classify;
define operator b1 from grouper::bucket;
define operator b2 from grouper::bucket;
create operator b1;
create operator b2;
select event from in into classify;
select event from classify into b1;
select event from classify/type2 into b2;
select event from b1 into out;
select event from b1/overflow into out;
select event from b2 into out;
select event from b2/overflow into out;
select event from b1/err into err;
select event from b2/err into err;
select event from classify/err into err;
"""


@pytest.mark.spark
def test_routing_buckets_typed_equals_python(spark) -> None:
    """Ports through routing-only buckets lower: rows with a string `$class` run natively,
    the others (no `$class`, an int one) reach `err` through the Python path, as in the plain
    job."""
    source = Source(name="routed.trickle", text=ROUTED)
    plain, typed = both_jobs(source, "query", SCHEMA)
    assert "with_typed_plan(" in typed
    lines = FITTING + NOT_FITTING
    got = raw_outputs(spark, typed, lines)
    assert got == raw_outputs(spark, plain, lines)
    assert {port for port, *_ in got} == {"out", "err"}


def infer_ddl(lines: list[str]) -> str | None:
    """A schema every line of a case's input fits, or None (floats, nulls, mixed types, not
    records): written here from JSON, independently of the compiler."""
    import json

    merged: dict = {}
    try:
        for line in lines:
            value = json.loads(line)
            if not isinstance(value, dict) or not value:
                return None
            _merge(merged, value)
    except (ValueError, TypeError):
        return None
    return _ddl_fields(merged)


def _merge(into: dict, record: dict) -> None:
    for key, value in record.items():
        typ = _type_of(value)
        if key in into and into[key] != typ:
            if not (isinstance(typ, dict) and isinstance(into[key], dict)):
                raise TypeError(key)
            _merge(into[key], value)
        into.setdefault(key, typ)


def _type_of(value):
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int) and -(2**63) <= value < 2**63:
        return "BIGINT"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, dict) and value:
        inner: dict = {}
        _merge(inner, value)
        return inner
    if isinstance(value, list) and value:
        kinds = {_type_of(item) for item in value if not isinstance(item, dict)}
        if len(kinds) == 1 and not any(isinstance(item, dict) for item in value):
            return f"ARRAY<{kinds.pop()}>"
    raise TypeError(repr(value))


def _ddl_fields(fields: dict) -> str:
    parts = []
    for key, typ in fields.items():
        text = f"STRUCT<{_ddl_fields(typ)}>" if isinstance(typ, dict) else typ
        parts.append(f"`{key}` {text}")
    return ", ".join(parts)


@pytest.mark.spark
def test_conformance_cases_typed_equals_python(spark) -> None:
    """Every scripts/queries corpus case whose input fits an inferred schema and whose program
    lowers: both jobs run on the case's input and write the same bytes on the same ports."""
    from compiler.diagnostics import CompileError
    from compiler.lowering.schema import SchemaError
    from compiler.testing.cases import discover, input_lines
    from tests.support.paths import CONFORMANCE

    ran, differences = [], []
    for category in ("scripts", "queries"):
        for case in discover(CONFORMANCE / category):
            if case.kind != "data":
                continue
            lines = input_lines(case)
            ddl = infer_ddl(lines)
            if ddl is None:
                continue
            try:
                plain, typed = both_jobs(read_source(case.program), kind_of(case.program), ddl)
            except (CompileError, SchemaError, ValueError):
                continue
            if "with_typed_plan(" not in typed:
                continue
            ran.append(case.name)
            if raw_outputs(spark, typed, lines) != raw_outputs(spark, plain, lines):
                differences.append(f"{category}/{case.name}")
    assert not differences, differences
    assert len(ran) >= 2, ran  # queries/drop_event, scripts/patch (others: see the report)
    print(f"typed corpus cases run both ways: {len(ran)}: {ran}")


def test_build_schema_option(tmp_path) -> None:
    """``--schema``: a bad DDL is a usage error naming the problem; a good one adds the plan."""
    from click.testing import CliRunner

    from compiler.cli import cli

    program = tmp_path / "p.tremor"
    program.write_text('let event.k = "v";\nevent')
    bad = CliRunner().invoke(cli, ["build", "--schema", "a DOUBLE", str(program)])
    assert bad.exit_code == 2 and "type DOUBLE is not supported" in bad.output
    good = CliRunner().invoke(cli, ["build", "--schema", "a BIGINT", str(program)])
    assert good.exit_code == 0 and "with_typed_plan(" in good.output
    plain = CliRunner().invoke(cli, ["build", str(program)])
    assert "typed" not in plain.output


@pytest.mark.spark
def test_one_plan_parses_each_line_once(spark) -> None:
    """Fitting and not fitting lines: one plan reads the input and parses it once (no split,
    no cache of the parsed rows), and the outputs are the plain job's."""
    source = Source(name="let.tremor", text=PROGRAMS["let"])
    plain, typed = both_jobs(source, "script", SCHEMA)
    lines = FITTING + NOT_FITTING
    assert raw_outputs(spark, typed, lines) == raw_outputs(spark, plain, lines)
    module = load_job(typed, "typed_plan")
    df = spark.createDataFrame(
        [(i, line) for i, line in enumerate(lines)], "seq long, value string"
    )
    out = module.run_pipeline(spark, {"in": df}, flush_at_end=False)["out"]
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert plan.count("Scan ExistingRDD") == 1 and plan.count("from_json(") == 1, plan
    assert "ArrowEvalPython" in plan, plan
