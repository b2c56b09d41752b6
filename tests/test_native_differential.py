"""Native lowering changes no output: every case run with native off and on gives the same.

The conformance scripts and queries: where the program has no native pre-filter plan, native mode
returns the fallback job unchanged (``build._with_native``; checked on a sample below), so the
outputs are identical without running; where it has one, both jobs run on the case's input and
must emit the same (port, value) sequence. Synthetic programs cover
every IR form against inputs chosen to probe exactness (missing keys, type mismatches, JSON
Spark reads but orjson rejects, duplicate keys, escapes, nested objects).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source, kind_of, read_source
from compiler.source import Source
from compiler.testing.cases import discover, input_lines
from compiler.testing.runner import run_job_on_lines

from .conftest import CONFORMANCE

PROBES = [
    '{"m":"info","a":1}',
    '{"m":"INFO"}',
    '{"m":"warn","a":"1"}',
    '{"a":1}',
    '{"m":5,"a":1.0}',
    '{"m":null,"a":true}',
    '{"m":"info"} x',
    '{"m":"info"}}',
    '{"m":"info","n":1e400}',
    '{"m":"info","o":{"x":1}}',
    '{"m":"info","m":"warn"}',
    '{"m":"in\\u0066o","a":[1,2]}',
    '{"m":"info","a":18446744073709551616}',
    '{"m":"Infinity","a":-0}',
    ' {"m":"info"} ',
    "[1]",
    "nope",
    '{"m":["info"],"b":{"c":"x"}}',
]

PROGRAMS = {
    "literal": 'match event.m of case "info" => drop case "INFO" => drop case _ => event end',
    "default_drop": 'match event.m of case "warn" => event case _ => drop end',
    "record": 'match event of case %{m == "info", present a} => drop case _ => event end',
    "absent": "match event of case %{absent a} => drop case %{a != 1} => drop "
    "case _ => event end",
    "guard": "match event of case %{present m} when event.m == null or event.a == true => drop "
    'case %{m == "warn"} when not (event.a == "1") => drop case _ => event end',
    "int_bool": "match event.a of case 1 => drop case true => drop case _ => event end",
    "nested": 'match event of case %{present b} when event.b.c == "x" => drop case _ => event end',
    "index": "match event.a[0] of case 1 => drop case _ => event end",
    "bare": "drop",
}


def _job(source: Source, kind: str, native: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TREMORC_NATIVE", "1" if native else "0")
    return compile_source(source, kind).job


def _both(source: Source, kind: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    return _job(source, kind, False, monkeypatch), _job(source, kind, True, monkeypatch)


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_synthetic_programs(name: str, spark: object, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    off, on = _both(source, "script", monkeypatch)
    assert "with_native_prefilter" in on, "the program should get a pre-filter"
    assert run_job_on_lines(on, name, PROBES) == run_job_on_lines(off, name, PROBES)


def _cases():
    for category in ("scripts", "queries"):
        for case in discover(CONFORMANCE / category):
            if case.kind == "data":
                yield pytest.param(case, id=f"{category}/{case.name}")


@pytest.mark.spark
def test_conformance_cases_native_equals_fallback(
    spark: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every scripts/queries case, native off and on: either the two jobs are the same text
    (no pre-filter applies, so the outputs are identical by construction) or both run and emit
    the same (port, value) sequence."""
    ran, identical, differences = 0, 0, []
    for param in _cases():
        case = param.values[0]
        kind = kind_of(case.program)
        try:
            off, on = _both(read_source(case.program), kind, monkeypatch)
        except CompileError:
            continue
        if off == on:
            identical += 1
            continue
        ran += 1
        lines = input_lines(case)
        if run_job_on_lines(on, case.name, lines) != run_job_on_lines(off, case.name, lines):
            differences.append(param.id)
    assert not differences, differences
    assert ran >= 1  # queries/drop_event gets a pre-filter
    assert ran + identical == 155  # 105 scripts + 50 queries: none skipped


@pytest.mark.spark
@pytest.mark.parametrize("workload", ["filter", "keep_app1"])
def test_benchmark_workloads(workload: str, spark: object, monkeypatch: pytest.MonkeyPatch):
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "workloads" / f"{workload}.trickle"
    off, on = _both(read_source(path), "query", monkeypatch)
    lines = [p.replace('"m"', '"short_message"').replace('"a"', '"application"') for p in PROBES]
    lines += ['{"application":"app1"}', '{"application":"app2","short_message":"info"}']
    assert "with_native_prefilter" in on
    assert run_job_on_lines(on, workload, lines) == run_job_on_lines(off, workload, lines)


@pytest.mark.spark
def test_prefilter_removes_rows(spark) -> None:
    """The pre-filter is not vacuous: on eligible rows it drops exactly the provable ones."""
    from compiler.lowering.prefilter import script_drop_predicate
    from compiler.pipeline import check_source
    from runtime_support.native import drop_column

    ir = script_drop_predicate(check_source(Source(name="t", text=PROGRAMS["literal"]), "script"))
    df = spark.createDataFrame([(p,) for p in PROBES], "value string")
    dropped = [r.value for r in df.filter(drop_column(ir, df.value)).collect()]
    assert dropped == [
        '{"m":"info","a":1}',
        '{"m":"INFO"}',
        '{"m":"in\\u0066o","a":[1,2]}',
        ' {"m":"info"} ',
    ]


@pytest.mark.parametrize("case", ["scripts/patch", "queries/patch", "scripts/merge"])
def test_no_plan_means_identical_job(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = CONFORMANCE / case
    program = next(p for p in folder.iterdir() if p.suffix in (".tremor", ".trickle"))
    off, on = _both(read_source(program), kind_of(program), monkeypatch)
    assert off == on
