"""Required-literal prefilter of regex searches (runtime_support/tremor/extractors/literals.py): a
text that matches contains every required literal, so skipping the search on a text lacking one
never changes a result."""

from __future__ import annotations

import lzma
import re

import pytest

from runtime_support.tremor.extractors.base import NO_MATCH
from runtime_support.tremor.extractors.grok import Grok, expand, load_patterns, to_python_regex
from runtime_support.tremor.extractors.literals import required_literals
from tests.support.paths import ROOT

APACHE = ROOT.parent / "shared" / "workloads" / "data" / "apache_access_logs.xz"


def _texts() -> list[str]:
    lines = lzma.open(APACHE, "rt").read().splitlines()[:400] if APACHE.exists() else []
    more = [
        "",
        "a",
        "HTTP/1.1",
        "Nov 24 10:00:01 host sshd[12]: ok",
        "10.0.0.1 - - x",
        "GET /index.html HTTP/1.0",
    ]
    return [line for line in lines if line] + more


def _library() -> list[tuple[str, re.Pattern[str]]]:
    compiled = []
    for name in sorted(load_patterns()):
        regex, _ = expand("%{" + name + "}", load_patterns())
        compiled.append((name, re.compile(to_python_regex(regex), re.MULTILINE)))
    return compiled


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"abc", ("abc",)),
        (r"a(bc)d", ("bc", "a", "d")),
        (r"a|b", ()),
        (r"x?y*z{0,3}", ()),
        (r"(?:ab){2,}c", ("ab", "c")),
        (r"[ab]c.d", ("c", "d")),
        (r"(?=ab)c", ("c",)),
        (r"(?i)ab", ()),
        (r"a(?i:bc)d", ("a", "d")),
        (r"\d+ HTTP/", (" HTTP/",)),
    ],
)
def test_required_literals_of_small_patterns(pattern: str, expected: tuple[str, ...]) -> None:
    assert required_literals(re.compile(pattern)) == expected


def test_every_match_of_the_grok_library_contains_its_literals() -> None:
    texts = _texts()
    matched = 0
    for name, rx in _library():
        required = required_literals(rx)
        for text in texts:
            found = rx.search(text)
            if found is not None:
                matched += 1
                missing = [lit for lit in required if lit not in text]
                assert not missing, (name, text, missing)
    assert matched > 1000  # the check saw real matches, not only misses


def test_grok_extracts_the_same_with_the_prefilter() -> None:
    rule = (
        '%{IPORHOST:clientip} %{USER:ident} %{USER:auth} \\[%{HTTPDATE:timestamp}\\] "%{WORD:verb}'
        ' %{DATA:request} HTTP/%{NUMBER:httpversion}" %{NUMBER:response} (?:-|%{NUMBER:bytes})'
    )
    grok = Grok(rule)
    assert grok.required  # the prefilter is in use
    hits = 0
    for text in _texts():
        direct = grok.rx.search(text)
        got = grok.run(text, None)
        assert (got is NO_MATCH) == (direct is None)
        hits += direct is not None
    assert hits > 100
