"""Fuzz the whole compiler: mutated corpus programs of all three languages either compile to a job
or fail with a user-facing CompileError — never another exception, never an internal error."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from tests.support.paths import CONFORMANCE

PROGRAMS = [
    *((p, "script") for p in sorted(CONFORMANCE.glob("scripts/*/script.tremor"))),
    *((p, "query") for p in sorted(CONFORMANCE.glob("queries/*/query.trickle"))),
    *((p, "deploy") for p in sorted(CONFORMANCE.glob("flows/*/flow.troy"))),
]
TEXTS = [(p.read_text(), kind, str(p)) for p, kind in PROGRAMS]
PIECES = st.sampled_from(
    list('ae01_ \n"#{}()[]<>|$.,;:=!~%+-*/&^')
    + ["let ", "match ", "end", "case ", "=>", "event", "state", "null", "1.5", "select ", "from "]
    + ["into ", "where ", "group by ", "window ", "args", "emit ", "drop", "patch ", "for "]
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(TEXTS),
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=0, max_value=6),
    st.lists(PIECES, max_size=4).map("".join),
)
def test_mutated_programs_compile_or_fail_cleanly(
    program: tuple[str, str, str], at: int, cut: int, insert: str
) -> None:
    text, kind, name = program
    pos = at % (len(text) + 1)
    source = Source(str(Path(name)), text[:pos] + insert + text[pos + cut :])
    try:
        compile_source(source, kind)
    except CompileError as err:
        assert not err.message.startswith("Internal compiler error"), err.message
        err.render()
