"""A run of ``%{key == "string"}`` cases, possibly mixed with ``%{key ~= glob|prefix*|}``
cases, is one lookup in the generated script (see compiler/codegen/pypatterns.field_runs); it
must pick the case the ``if``/``elif`` chain would: the first case met, only for a string field
of a record, else the next cases."""

from __future__ import annotations

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events


def program(patterns: list[str], before: str = "", after: str = "") -> str:
    """A script whose match has ``before``, then ``case <pattern> => "case <i>"`` for each
    pattern, then ``after`` and ``case _ => "no case"``."""
    cases = "\n".join(f'    case {pattern} => "case {i}"' for i, pattern in enumerate(patterns))
    return f"""\
define script classify
script
  match event of
{before}{cases}
{after}    case _ => "no case"
  end
end;
create script classify;
select event from in into classify;
select event from classify into out;
"""


def job_of(text: str) -> str:
    """The generated job of ``text`` without its embedded source."""
    job = compile_source(Source("m.trickle", text), "query").job
    return "\n".join(line for line in job.splitlines() if not line.startswith("SOURCE = "))


def run_program(text: str, *events):
    graph = load_job(compile_source(Source("m.trickle", text), "query").job, "m").GRAPH
    rows = [("in", i, event, i, None) for i, event in enumerate(events)]
    return [value for _, _, _, value in run_events(graph, rows)]


PROGRAM = program(
    [f'%{{kind == "k{i}"}}' for i in range(20)],
    before='    case %{first == true} => "before the run"\n',
    after='    case %{kind == "k3"} => "a later duplicate"\n'
    '    case %{kind == 3} => "the number 3"\n',
)


def run(*events):
    return run_program(PROGRAM, *events)


def test_the_run_is_one_lookup_in_the_job() -> None:
    code = job_of(PROGRAM)
    assert '"k19": 19,' in code  # the run's table
    assert '"k7")' not in code and '"k7",' not in code  # no test per case


def test_a_field_run_picks_the_cases_the_chain_would() -> None:
    assert run(
        {"kind": "k0"},
        {"kind": "k19"},
        {"kind": "k3"},
        {"first": True, "kind": "k5"},
        {"kind": 3},
        {"kind": "k20"},
        {"kind": ["k1"]},
        {"other": "k1"},
        "k1",
    ) == [
        "case 0",
        "case 19",
        "case 3",
        "before the run",
        "the number 3",
        "no case",
        "no case",
        "no case",
        "no case",
    ]


# Equality and prefix-glob cases on one key, interleaved as in Tremor's `match` benchmark: one
# run. Case numbers in the comments; "ab" (case 2) comes after the prefix "a" (case 1), so an
# event "ab" meets case 1 first.
MIXED = [
    '%{kind == "x"}',  # 0
    "%{kind ~= glob|a*|}",  # 1
    '%{kind == "ab"}',  # 2 (shadowed by 1)
    "%{kind ~= glob|bcd*|}",  # 3
    "%{kind ~= glob|b*|}",  # 4 (after the longer prefix 3)
    '%{kind == "bcde"}',  # 5 (shadowed by 3)
    '%{kind == "b"}',  # 6 (shadowed by 4)
    "%{kind ~= glob|a*|}",  # 7 (a duplicate of 1)
    '%{kind == "x"}',  # 8 (a duplicate of 0)
    "%{kind ~= glob|c\\\\d*|}",  # 9: the prefix `c\d` (a backslash is a plain character)
    '%{kind == "z"}',  # 10
    "%{kind ~= glob|zz*|}",  # 11
    '%{kind == "zzz"}',  # 12 (shadowed by 11)
    '%{kind == ""}',  # 13
    "%{kind ~= glob|q*|}",  # 14
    "%{kind ~= glob|*|}",  # 15: every string
]
MIXED_PROGRAM = program(MIXED, after='    case %{kind == 5} => "the number 5"\n')


def test_a_run_with_prefix_globs_is_one_lookup_in_the_job() -> None:
    code = job_of(MIXED_PROGRAM)
    assert "field_run_case(" in code
    assert ".extract(" not in code and '"zzz")' not in code  # no test per case


def test_a_run_with_prefix_globs_picks_the_cases_the_chain_would() -> None:
    assert run_program(
        MIXED_PROGRAM,
        {"kind": "x"},
        {"kind": "ab"},
        {"kind": "a"},
        {"kind": "bcdef"},
        {"kind": "bcde"},
        {"kind": "bc"},
        {"kind": "b"},
        {"kind": "c\\de"},
        {"kind": "cde"},
        {"kind": "z"},
        {"kind": "zzz"},
        {"kind": ""},
        {"kind": "q"},
        {"kind": "w"},
        {"kind": 5},
        {"kind": ["a"]},
        {"other": "a"},
        "a",
    ) == [
        "case 0",
        "case 1",
        "case 1",
        "case 3",
        "case 3",
        "case 4",
        "case 4",
        "case 9",
        "case 15",
        "case 10",
        "case 11",
        "case 13",
        "case 14",
        "case 15",
        "the number 5",
        "no case",
        "no case",
        "no case",
    ]


def test_a_glob_with_other_wildcards_ends_the_run() -> None:
    """``glob|a?*|`` is not a prefix test: the cases before it are one run of 16, it and the
    cases after it are tested one by one."""
    text = program([f'%{{kind == "k{i}"}}' for i in range(16)] + ["%{kind ~= glob|a?*|}"])
    code = job_of(text)
    assert "field_run_case(" not in code and ".extract(" in code
    events = [{"kind": "k15"}, {"kind": "ab"}, {"kind": "a"}, {"kind": "abc"}]
    assert run_program(text, *events) == ["case 15", "case 16", "no case", "case 16"]
