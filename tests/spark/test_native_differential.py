"""The native pre-filter changes no output: with it and without it, every case gives the same.

Four jobs per program (``tests/support/prefilter_jobs.py``): without a pre-filter, as tremorc
builds it
(the default path: today the same job, no lowering measured faster), and with its drop plan
attached on the narrow lowering (where it applies) and on the variant one. The conformance
scripts and queries: where a job is the same text as the one without a pre-filter the outputs
are identical by construction; otherwise both run on the case's input and must emit the same
(port, value) sequence. Synthetic programs cover every IR form against inputs chosen to probe
exactness (missing keys, type mismatches, JSON Spark reads but orjson rejects, duplicate keys,
escapes, nested objects, surrogates, deep nesting).
"""

from __future__ import annotations

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import kind_of, read_source
from compiler.source import Source
from compiler.testing.cases import discover, input_lines
from compiler.testing.runner import run_job_on_lines
from tests.support.paths import CONFORMANCE, ROOT
from tests.support.prefilter_jobs import prefilter_jobs

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
    "{nope}",
    '{"m":"info","x":"\\ud800"}',
    '{"m":"info","x":"\\ud83d\\ude00"}',
    "{'m':'info'}",
    '{"m":"info","a":NaN}',
    '{"m":"info","a":' + "[" * 254 + "]" * 254 + "}",  # 255 levels: an error in Python
    '{"m":"info","a":' + "[" * 253 + "]" * 253 + "}",
    '{"m":"true","a":true}',
    '{"m":"warn","M":"info"}',
    '{"a":"info"}',
]

PROGRAMS = {
    "literal": 'match event.m of case "info" => drop case "INFO" => drop case _ => event end',
    "default_drop": 'match event.m of case "warn" => event case _ => drop end',
    "record": 'match event of case %{m == "info", present a} => drop case _ => event end',
    "absent": "match event of case %{absent a} => drop case %{a != 1} => drop case _ => event end",
    "guard": "match event of case %{present m} when event.m == null or event.a == true => drop "
    'case %{m == "warn"} when not (event.a == "1") => drop case _ => event end',
    "int_bool": "match event.a of case 1 => drop case true => drop case _ => event end",
    "nested": 'match event of case %{present b} when event.b.c == "x" => drop case _ => event end',
    "index": "match event.a[0] of case 1 => drop case _ => event end",
    "bare": "drop",
}


# The programs whose drop plan has the narrow lowering.
NARROW = {"literal", "default_drop", "record"}


def _same_output(jobs: tuple[str | None, ...], name: str, lines: list[str]) -> bool:
    """Every job that differs from the one without a pre-filter emits what that one emits."""
    off, *others = jobs
    expected = run_job_on_lines(off, name, lines)
    return all(
        run_job_on_lines(job, name, lines) == expected for job in others if job not in (None, off)
    )


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_synthetic_programs(name: str, spark: object, monkeypatch: pytest.MonkeyPatch) -> None:
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    jobs = off, built, narrow, variant = prefilter_jobs(source, "script", monkeypatch)
    assert variant is not None, "the program should have a drop plan"
    assert (narrow is not None) == (name in NARROW) and built == off
    assert _same_output(jobs, name, PROBES)


def _cases():
    for category in ("scripts", "queries"):
        for case in discover(CONFORMANCE / category):
            if case.kind == "data":
                yield pytest.param(case, id=f"{category}/{case.name}")


@pytest.mark.spark
def test_conformance_cases_native_equals_fallback(
    spark: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every scripts/queries case, with and without the pre-filter (built and variant): either
    the jobs are the same text (no pre-filter applies, so the outputs are identical by
    construction) or they run and emit the same (port, value) sequence."""
    ran, identical, differences = 0, 0, []
    for param in _cases():
        case = param.values[0]
        try:
            jobs = prefilter_jobs(read_source(case.program), kind_of(case.program), monkeypatch)
        except CompileError:
            continue
        if all(job in (None, jobs[0]) for job in jobs[1:]):
            identical += 1
            continue
        ran += 1
        if not _same_output(jobs, case.name, input_lines(case)):
            differences.append(param.id)
    assert not differences, differences
    assert ran >= 2  # queries/drop_event and queries/script_error have a drop plan
    assert ran + identical == 155  # 105 scripts + 50 queries: none skipped


@pytest.mark.spark
@pytest.mark.parametrize("workload", ["filter", "keep_app1"])
def test_benchmark_workloads(workload: str, spark: object, monkeypatch: pytest.MonkeyPatch):
    path = ROOT / "benchmarks" / "workloads" / f"{workload}.trickle"
    jobs = prefilter_jobs(read_source(path), "query", monkeypatch)
    lines = [p.replace('"m"', '"short_message"').replace('"a"', '"application"') for p in PROBES]
    lines += ['{"application":"app1"}', '{"application":"app2","short_message":"info"}']
    assert jobs[2] is not None and jobs[3] is not None, "both lowerings apply"
    assert _same_output(jobs, workload, lines)


@pytest.mark.spark
def test_prefilter_removes_rows(spark) -> None:
    """The pre-filter is not vacuous: on eligible rows it drops exactly the provable ones."""
    from compiler.lowering.prefilter import script_drop_predicate
    from compiler.pipeline import check_source
    from runtime_support.spark.prefilter import drop_column

    ir = script_drop_predicate(check_source(Source(name="t", text=PROGRAMS["literal"]), "script"))
    df = spark.createDataFrame([(p,) for p in PROBES], "value string")
    expected = [
        '{"m":"info","a":1}',
        '{"m":"INFO"}',
        '{"m":"in\\u0066o","a":[1,2]}',
        ' {"m":"info"} ',
        '{"m":"info","x":"\\ud83d\\ude00"}',  # the variant lowering sees a surrogate pair
        '{"m":"info","a":' + "[" * 253 + "]" * 253 + "}",
    ]
    for variant in (False, True):
        dropped = [r.value for r in df.filter(drop_column(ir, df.value, variant)).collect()]
        assert dropped == expected[: 5 if variant else 4] + expected[5:], variant


@pytest.mark.parametrize("case", ["scripts/patch", "queries/patch", "scripts/merge"])
def test_no_plan_means_identical_job(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = CONFORMANCE / case
    program = next(p for p in folder.iterdir() if p.suffix in (".tremor", ".trickle"))
    off, built, narrow, variant = prefilter_jobs(
        read_source(program), kind_of(program), monkeypatch
    )
    assert off == built and narrow is None and variant is None
