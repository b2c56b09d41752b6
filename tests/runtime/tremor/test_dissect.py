"""The ``dissect`` extractor (runtime_support/tremor/extractors/dissect.py) against Tremor's: the
expected values come from the ``dissect`` crate (0.7, its unit tests and docs) and Tremor's
``extractor_dissect`` case."""

from __future__ import annotations

from typing import Any

import pytest

from runtime_support.tremor.extractors import NO_MATCH, ExtractorError, compile_extractor

DISSECT = [
    # (rule, input, expected) — from the dissect crate's tests and Tremor's extractor_dissect case
    ("%{protocol}://%{host}.%{.tld}", "http://example.com/", {
        "protocol": "http", "host": "example", ".tld": "com/"}),
    ("%{date}|%{_(-)} %{?priority} %{&priority} %{+snot} %{+snot}",
     "2019-04-20|------------------- high 3 foo bar",
     {"date": "2019-04-20", "high": "3", "snot": "foo-bar"}),  # append joins with the last pad
    ("this is a %{arr} %{+arr}", "this is a test case", {"arr": "test case"}),
    ("this is a %{+arr} case named %{+arr}", "this is a test case named cake",
     {"arr": "test cake"}),
    ("%{name}, %{_}%{age}", "John Doe,                22", {"name": "John Doe", "age": "22"}),
    ("%{name}, %{_(-)}%{age}", "John Doe, -----------------------22",
     {"name": "John Doe", "age": "22"}),
    ("this is a %{what}%{_}case named %{name}", "this is a test  case named John",
     {"what": "test", "name": "John"}),
    ("%{name}%{_}%{_(|)}%{age}", "John 22", {"name": "John", "age": "22"}),
    ("%{name}%{_}%{_(|)}%{age}", "John22", NO_MATCH),
    ("%{a}%{_}%{b}", "this    works", {"a": "this", "b": "works"}),
    ("%{a}%{_}", "this   ", {"a": "this"}),
    ("%{a}%{_}", "this", {"a": "this"}),
    ("%{name}%{_}|%{age}", "John|22", {"name": "John", "age": "22"}),
    ("%{syslog_timestamp} %{wf_host} %{syslog_program}: %{syslog_message}%{_}",
     "2019-04-26 tremor-host tremor: dissect is working fine", NO_MATCH),
    ("%{name}}%{age}", "John}22", {"name": "John", "age": "22"}),
    ("%{name}%%{age}", "John}22", NO_MATCH),
    # logstash's `->` padding and `/n` append order are not Tremor syntax: part of the name
    ("%{a->} %{b}", "x    y", {"a->": "x", "b": "   y"}),
    ("%{+ts/2} %{+ts/1}", "x y", {"ts/2": "x", "ts/1": "y"}),
    # types: Rust's i64/f64 parse (no spaces), `string` allowed, `&` lookup typed and consumed
    ("%{a:int} %{b:float} %{c:string}", "+5 1e3 x", {"a": 5, "b": 1000.0, "c": "x"}),
    ("%{a:int}", " 5", NO_MATCH),
    ("%{?k}=%{&k:int}", "x=12", {"x": 12}),
    ("%{?k}=%{&k}", "=12", NO_MATCH),  # an empty looked-up name does not match
    ("%{a}\\t%{b}", "x\ty", {"a": "x", "b": "y"}),  # delimiter escapes
    ("%{a:int} %{+a} %{b}", "1 2 3", {"b": "3"}),  # append onto a non-string drops the field
]  # fmt: skip


@pytest.mark.parametrize(("rule", "text", "expected"), DISSECT)
def test_dissect_matches_tremor(rule: str, text: str, expected: Any) -> None:
    assert compile_extractor("dissect", rule).extract(text) == expected


def test_dissect_append_reorders_keys_as_tremor_records_do() -> None:
    # Tremor removes the key (swap_remove: the last key fills the hole) and re-inserts it.
    got = compile_extractor("dissect", "%{a} %{b} %{c} %{+a}").extract("1 2 3 4")
    assert list(got.items()) == [("c", "3"), ("b", "2"), ("a", "1 4")]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("%{test %{case}", "Unterminated patter at 0"),
        ("this is %{test case", "Unterminated patter at 8"),
        ("%{test}%{pattern}", "A dilimiter needs to be provided between the two patterns at 7"),
        ("%{_x}", "Invalid padding at 0"),
        ("ab%{a:bool}", "Invalid type '2' at bool"),
        ("%{_} x", "The padding at 0 can't be followed up by a dilimiter that begins with it"),
        ("a\\q%{a}", "Invalid escape sequence \\'q' is not valid."),
    ],
)
def test_dissect_rule_errors_use_tremors_words(rule: str, message: str) -> None:
    with pytest.raises(ExtractorError) as err:
        compile_extractor("dissect", rule)
    assert str(err.value) == f"Invalid tilde predicate pattern: {message}"
