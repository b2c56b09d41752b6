"""Tremor's ordered lookup of long literal ``case`` runs (TREMOR.md §1.7 quirk).

With at least 16 guard-free literal cases in a row, a float target finds the integer case it
truncates to (``1.5`` finds ``case 1``); shorter runs compare with ``==``.
"""

from __future__ import annotations

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.context import EventContext


def _script(cases: int) -> str:
    arms = "".join(f'  case {i} => "c{i}"\n' for i in range(cases))
    return f'match event of\n{arms}  case "x" => "ex"\n  case _ => "other"\nend\n'


def _run(program: str, event: object) -> object:
    module = load_job(compile_source(Source("t.tremor", program), "script").job, "t")
    _port, value, _meta, _state = module.script_run(event, {}, None, EventContext())
    return value


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (1.5, "c1"),
        (1, "c1"),
        (2.0, "c2"),
        (-0.5, "c0"),
        ("x", "ex"),
        (99, "other"),
        (True, "other"),
    ],
)
def test_long_runs_use_the_ordered_lookup(event: object, expected: str) -> None:
    assert _run(_script(15), event) == expected  # 15 int cases + "x" = a run of 16


@pytest.mark.parametrize(("event", "expected"), [(1.5, "other"), (1, "c1"), (2.0, "c2")])
def test_short_runs_compare_with_equality(event: object, expected: str) -> None:
    assert _run(_script(14), event) == expected  # 14 + "x" = 15: below the threshold
