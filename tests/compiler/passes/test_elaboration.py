"""Elaboration, once per program: each language's one step from AST to IR runs every embedded
script through the script front end exactly once, and the warnings it collects ride along in the
checked result (no second parse)."""

from __future__ import annotations

from collections import Counter

from compiler.ast import script as S
from compiler.parse.deploy import parse_deploy
from compiler.parse.query import parse_query
from compiler.passes.deploy_instantiate import instantiate_deploy
from compiler.passes.elaboration import Elaboration
from compiler.passes.query_checks import check_query
from compiler.passes.query_instantiate import instantiate_query
from compiler.pipeline import PASSES, check_program, compile_source, new_elaboration
from compiler.source import Source

QUERY = """use std::array;
define window w from tumbling with size = 2 end;
define pipeline sub
args p = 1
pipeline
  define script foo
  args x
  script
    {"x": args.x, "e": event}
  end;
  create script foo with x = args.p + 1 end;
  select event from in into foo;
  select event from foo into out;
end;
create pipeline a from sub;
create pipeline b from sub with p = 2 end;
create stream windowed;
select event from in into a;
select event from a into b;
select {"n": aggr::stats::count(), "g": group[0]} from b[w] where event.x > 1
  group by event.k into windowed;
select array::push([], event) from windowed into out;
"""

FLOW = """define flow main
flow
  define connector src from metronome with config = {"interval": 1} end;
  define connector dst from stdio with codec = "json" end;
  define pipeline p
  args k = 1
  pipeline
    select {"k": args.k, "e": event} from in where event != null into out;
  end;
  create connector src;
  create connector dst;
  create pipeline p1 from p;
  create pipeline p2 from p with k = 2 end;
  connect /connector/src to /pipeline/p1;
  connect /connector/src to /pipeline/p2;
  connect /pipeline/p1 to /connector/dst;
  connect /pipeline/p2 to /connector/dst;
end;
deploy flow main;
"""


def observed() -> tuple[Elaboration, list[S.Script]]:
    """A real elaboration whose front-end inputs are recorded."""
    elab = new_elaboration()
    seen: list[S.Script] = []
    front = elab.front

    def recording(script: S.Script, source: Source) -> S.Script:
        seen.append(script)
        return front(script, source)

    elab.front = recording
    return elab, seen


def _runs_per_item(seen: list[S.Script]) -> Counter[int]:
    """How many front-end runs each non-``use`` item object went through."""
    return Counter(id(i) for s in seen for i in s.items if not isinstance(i, S.Use))


def test_trickle_scripts_pass_the_front_end_once() -> None:
    source = Source("t.trickle", QUERY)
    elab, seen = observed()
    instantiate_query(check_query(parse_query(source), source, elab), source, elab)
    runs = _runs_per_item(seen)
    assert max(runs.values()) == 1
    assert elab.runs == len(seen)
    # check + instantiate: the script body; the sub-pipeline's 2 select targets; the top 4
    # selects (3 targets, and the windowed one's target, aggregate args, where and group by);
    # the window's size; the 4 args values (a's and b's p, foo's x in each).
    assert len(seen) == 1 + 2 + (3 + 4) + 1 + 4


def test_troy_pipeline_created_twice_is_checked_once() -> None:
    source = Source("t.troy", FLOW)
    elab, seen = observed()
    deployment = instantiate_deploy(parse_deploy(source), source, elab)
    assert [p.alias for p in deployment.flows[0].pipelines] == ["p1", "p2"]
    assert max(_runs_per_item(seen).values()) == 1
    assert len(seen) == 2  # the select's target and its where, once for both instances


def test_passes_are_one_ordered_tuple() -> None:
    assert [name for name, _ in PASSES] == ["warnings", "literal_checks", "resolve", "const_fold"]


def test_warnings_are_carried_in_the_checked_result() -> None:
    checked = check_program(Source("t.trickle", QUERY), "query")
    assert [(w.kind, w.message[:20]) for w in checked.warnings] == [
        ("performance", "`array::push(the_arr")
    ]
    job = compile_source(Source("t.trickle", QUERY), "query")
    assert job.warnings == checked.warnings


def test_warnings_of_a_pipeline_created_twice_appear_once() -> None:
    text = FLOW.replace('{"k": args.k, "e": event}', "array::push([], event)").replace(
        "pipeline\n    select", "pipeline\n    use std::array;\n    select"
    )
    checked = check_program(Source("t.troy", text), "deploy")
    assert [w.kind for w in checked.warnings] == ["performance"]
    assert checked.warnings[0].render().startswith("Warning(performance):")
