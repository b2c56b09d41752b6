"""Fuzz the frontend: random text and mutated corpus programs must either parse or raise
CompileError; no other exception may escape ``parse_script``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.diagnostics import CompileError
from compiler.parse.script import parse_script
from compiler.source import Source
from tests.support.paths import CONFORMANCE

CONF = CONFORMANCE
CORPUS = sorted((CONF / "scripts").glob("*/script.tremor"))[:60]
TEXTS = [p.read_text(errors="surrogateescape") for p in CORPUS]
ALPHABET = st.sampled_from(
    list('abez019_ \n\t"#{}()[]<>|`\\$.,;:=!~%+-*/&^')
    + ["let ", "match ", "end", "case ", "=>", '"""\n', "#{", "for ", "of ", "\udcff", "é"]
)
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


def check(text: str) -> None:
    try:
        parse_script(Source("fuzz.tremor", text))
    except CompileError as err:
        err.render()  # rendering must not fail either


@SETTINGS
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_token_soup(text: str) -> None:
    check(text)


@SETTINGS
@given(st.text(max_size=80))
def test_random_unicode(text: str) -> None:
    check(text)


@SETTINGS
@given(
    st.sampled_from(TEXTS),
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=0, max_value=5),
    st.lists(ALPHABET, max_size=4).map("".join),
)
def test_mutated_corpus(text: str, at: int, cut: int, insert: str) -> None:
    pos = at % (len(text) + 1)
    check(text[:pos] + insert + text[pos + cut :])
