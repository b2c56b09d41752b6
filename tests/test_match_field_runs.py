"""A run of ``%{key == "string"}`` cases is one dict lookup in the generated script (see
compiler/codegen/pypatterns.field_runs); it must pick the case the ``if``/``elif`` chain
would: the first equal string, only for a string field of a record, else the next cases."""

from __future__ import annotations

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.graph import run_events

CASES = "\n".join(f'    case %{{kind == "k{i}"}} => "case {i}"' for i in range(20))
PROGRAM = f"""\
define script classify
script
  match event of
    case %{{first == true}} => "before the run"
{CASES}
    case %{{kind == "k3"}} => "a later duplicate"
    case %{{kind == 3}} => "the number 3"
    case _ => "no case"
  end
end;
create script classify;
select event from in into classify;
select event from classify into out;
"""


def run(*events):
    job = compile_source(Source("m.trickle", PROGRAM), "query").job
    graph = load_job(job, "m").GRAPH
    rows = [("in", i, event, i, None) for i, event in enumerate(events)]
    return [value for _, _, _, value in run_events(graph, rows)]


def test_the_run_is_one_lookup_in_the_job() -> None:
    job = compile_source(Source("m.trickle", PROGRAM), "query").job
    code = "\n".join(line for line in job.splitlines() if not line.startswith("SOURCE = "))
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
