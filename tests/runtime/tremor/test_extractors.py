"""Extractors against the conformance scripts' expectations and Tremor's documented behaviour."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from runtime_support.tremor.extractors import (
    KINDS,
    NO_MATCH,
    ExtractorError,
    compile_extractor,
    extractor_class,
)

CTX = SimpleNamespace(ingest_ns=42)

CASES = [
    # conformance/scripts/glob
    ("glob", "INFO*", "INFO stuff", True),
    ("glob", "*INFO*", "an ERROR", NO_MATCH),
    ("glob", "a?c[!x]", "abcd", True),
    # conformance/scripts/simple_match, regex
    ("re", "bad(?P<snot>.*)", "badger", {"snot": "ger"}),
    ("re", "^http://.*/$", "http://example.com/", {}),
    ("re", "^http://.*/$", "http://example.com/\n", NO_MATCH),
    ("re", r"(?P<a>x)|(?P<b>y)", "y", {"b": "y"}),
    ("rerg", r"(?P<n>\d)", "a1b2", {"n": ["1", "2"]}),
    # conformance/scripts/kv
    ("kv", "", "foo:bar snot:badger", {"foo": "bar", "snot": "badger"}),
    ("kv", "%{key}=%{val}&", "a=1&b=2", {"a": "1", "b": "2"}),
    # conformance/scripts/cidr_multi
    (
        "cidr",
        "10.22.0.0/24, 10.22.1.0/24",
        "10.22.0.254",
        {"prefix": [10, 22, 0, 254], "mask": [255, 255, 255, 255]},
    ),
    ("cidr", "10.41.0.0/24, 11.41.0.0/24", "10.22.0.254", NO_MATCH),
    ("cidr", "", "192.168.1.0/24", {"prefix": [192, 168, 1, 0], "mask": [255, 255, 255, 0]}),
    ("cidr", "", "not an ip", NO_MATCH),
    # conformance/scripts/influx
    (
        "influx",
        "",
        "wea\\ ther,location=us-midwest temperature=82.0 1465839830100400200",
        {
            "measurement": "wea ther",
            "tags": {"location": "us-midwest"},
            "fields": {"temperature": 82.0},
            "timestamp": 1465839830100400200,
        },
    ),
    (
        "influx",
        "",
        'm f=1i,s="a b",b=t',
        {
            "measurement": "m",
            "tags": {},
            "fields": {"f": 1, "s": "a b", "b": True},
            "timestamp": 42,
        },
    ),
    # conformance/scripts/tilde_extractor*, fn_extractors
    ("json", "", '{"a": [1, 2.0]}', {"a": [1, 2.0]}),
    ("json", "", "{nope", NO_MATCH),
    ("base64", "", "c25vdA==", "snot"),
    ("base64", "", "!!", NO_MATCH),
    ("dissect", "%{a} %{b}-%{c:int}", "snot badger-3", {"a": "snot", "b": "badger", "c": 3}),
    ("dissect", "%{?k}=%{&k}", "x=1", {"x": "1"}),
    ("dissect", "%{a} %{b}", "onlyone", NO_MATCH),
    ("grok", "%{IP:ip} %{WORD:w}", "10.0.0.1 hello", {"ip": "10.0.0.1", "w": "hello"}),
    ("datetime", "%Y-%m-%d %H:%M:%S", "2019-06-04 13:43:02", 1_559_655_782_000_000_000),
    ("datetime", "%Y-%m-%d %H:%M:%S%z", "1970-01-01 01:00:00+0100", 0),
    ("datetime", "%Y-%m-%d", "2019-06-04", NO_MATCH),
]


@pytest.mark.parametrize("kind,rule,text,expected", CASES)
def test_extract(kind: str, rule: str, text: str, expected: object) -> None:
    assert compile_extractor(kind, rule).extract(text, CTX) == expected


@pytest.mark.parametrize("kind", ["re", "glob", "json", "kv", "cidr", "base64"])
def test_non_string_never_matches(kind: str) -> None:
    ex = compile_extractor(kind, "")
    assert ex.extract(1, CTX) is NO_MATCH and not ex.is_match(None)


def test_invalid_regex_message_matches_tremor() -> None:
    # conformance/script_errors/invalid_extractor
    with pytest.raises(ExtractorError) as e:
        compile_extractor("re", "(")
    assert str(e.value) == (
        "Invalid tilde predicate pattern: regex parse error:\n    (\n    ^\nerror: unclosed group"
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_names_its_class(kind: str) -> None:
    """The table of kinds (imported by name, on first use) agrees with each class's own name."""
    cls = extractor_class(kind)
    assert cls is not None and cls.name == kind


def test_unknown_extractor_message() -> None:
    # conformance/script_errors/unknown_extractor
    with pytest.raises(
        ValueError, match="^Invalid tilde predicate pattern: Unsupported extractor snot$"
    ):
        compile_extractor("snot", "")


def test_cidr_rejects_ipv6_ranges() -> None:
    with pytest.raises(ExtractorError):
        compile_extractor("cidr", "::1/128")
