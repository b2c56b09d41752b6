"""Std-lib calls in a dropping match lower into the native pre-filter, and change no output.

Lowering (no Spark): ``string::contains(event.msg, "x")`` as a guard, ``type::is_string`` in a
comparison, nested calls; calls without a lowering keep the program out of the pre-filter.
Differential (Spark): each synthetic program gives the same output with the variant pre-filter
and without one, over inputs chosen to hit the guards (wrong types, missing keys, unicode,
floats, big integers).
"""

from __future__ import annotations

import pytest

from compiler.lowering.predicate import NotNative
from compiler.lowering.prefilter import script_drop_predicate
from compiler.lowering.report import NATIVE, classify, expressions
from compiler.pipeline import check_source
from compiler.source import Source
from compiler.testing.runner import run_job_on_lines
from tests.support.prefilter_jobs import prefilter_jobs

PROGRAMS = {
    "contains": "use std::string;\nmatch event of case %{present m} when string::contains(event.m, "
    '"nf") => drop case _ => event end',
    "type": "use std::type;\nmatch event of case %{present a} when type::is_string(event.a) "
    "=> drop case _ => event end",
    "len_eq": "use std::string;\nmatch event of case %{present m} when string::len(event.m) == 4 "
    "=> drop case _ => event end",
    "lower": "use std::string;\nmatch event of case %{present m} when "
    'string::lowercase(string::trim(event.m)) == "info" => drop case _ => event end',
    "math": "use std::math;\nmatch event of case %{present a} when math::round(event.a) == 2 "
    "=> drop case _ => event end",
    "array": "use std::array;\nmatch event of case %{present a} when array::contains(event.a, 1)"
    " => drop case _ => event end",
    "record": "use std::record;\nuse std::type;\nmatch event of case _ when "
    'record::contains(event, "m") and type::as_string(event.a) == "float" => drop '
    "case _ => event end",
}

PROBES = [
    '{"m":"info","a":1}',
    '{"m":" INFO\\u00a0","a":"x"}',
    '{"m":"İnfo","a":2.5}',
    '{"m":"Info","a":1.5}',
    '{"m":5,"a":[1,2]}',
    '{"m":null,"a":[1.0]}',
    '{"a":2.49}',
    '{"m":"confinfo","a":1.0}',
    '{"m":"info","a":18446744073709551615}',
    '{"m":"info","a":1e2}',
    '{"m":"info"} x',
    '{"m":"😀nf","a":true}',
    "[1]",
]


def _tree(text: str):
    return check_source(Source(name="t.tremor", text=text), "script")


def test_guard_call_lowers_to_truth() -> None:
    ir = script_drop_predicate(_tree(PROGRAMS["contains"]))
    text = repr(ir)
    assert "('truth', ('call', 'std::string::contains', (('path', ('m',)), ('lit', 'nf'))))" in text


def test_comparison_with_nested_calls_lowers_to_eqv() -> None:
    ir = repr(script_drop_predicate(_tree(PROGRAMS["lower"])))
    assert "('eqv', ('call', 'std::string::lowercase', (('call', 'std::string::trim'" in ir


def test_call_without_lowering_is_not_native() -> None:
    text = 'use std::json;\nmatch event of case _ when json::encode(event) == "{}" => drop end'
    with pytest.raises(NotNative, match="without native lowering"):
        script_drop_predicate(_tree(text))


def test_report_counts_lowered_calls() -> None:
    verdicts = [classify(e) for e in expressions(_tree(PROGRAMS["math"]))]
    assert NATIVE in verdicts
    calls = [classify(e) for e in expressions(_tree("use std::json;\njson::encode(event)"))]
    assert "std-lib call without an exact native lowering" in calls


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_native_equals_fallback(name: str, spark: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls have only the variant lowering: tremorc builds no pre-filter, the variant one (forced)
    changes no output."""
    source = Source(name=f"{name}.tremor", text=PROGRAMS[name])
    off, built, narrow, variant = prefilter_jobs(source, "script", monkeypatch)
    assert built == off and narrow is None and variant is not None
    assert run_job_on_lines(variant, name, PROBES) == run_job_on_lines(off, name, PROBES)


@pytest.mark.spark
def test_prefilter_with_calls_removes_rows(spark) -> None:
    """Not vacuous: the contains/len/round programs drop some eligible rows natively."""
    from runtime_support.spark.prefilter import drop_column

    df = spark.createDataFrame([(p,) for p in PROBES], "value string")
    dropped = {}
    for name in ("contains", "len_eq", "math", "lower"):
        ir = script_drop_predicate(_tree(PROGRAMS[name]))
        dropped[name] = [r.value for r in df.filter(drop_column(ir, df.value)).collect()]
    assert '{"m":"info","a":1}' in dropped["contains"]
    assert '{"m":"Info","a":1.5}' in dropped["len_eq"]
    assert '{"m":"info","a":1e2}' not in dropped["math"] and '{"a":2.49}' in dropped["math"]
    assert '{"m":" INFO\\u00a0","a":"x"}' in dropped["lower"]
    assert '{"m":"İnfo","a":2.5}' not in dropped["lower"]
