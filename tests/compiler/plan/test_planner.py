"""The stage planner (compiler/plan): expected plans of small programs' job graphs, the fusion
rule on small hand-built graphs, purity and determinism of the phases, and totality over the
corpus.

Fixture format (tests/fixtures/plan/*.txt): lines before the first case are a comment; each case
is ``=== <title>.<tremor|trickle|troy>``, the program, ``--- plan`` and the expected
``tremorc dbg plan`` text, checked by hand against the rules in compiler/plan/phases.py and
compiler/plan/job_phases.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from compiler.codegen.build import job_input
from compiler.codegen.graph import NodeCode, output_node
from compiler.codegen.stages import job_graph
from compiler.ir.scope import Global, Keyed, Stateless
from compiler.pipeline import check_program, kind_of
from compiler.plan import PHASES, plan_of, render, run_phases, validate
from compiler.plan.model import Edge, Forward, Hash, Plan, PlanNode, Single, Source
from compiler.source import Source as Text
from tests.support.paths import CONFORMANCE, ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "plan"


@dataclass(frozen=True)
class Case:
    title: str
    program: str
    expected: str


def read_cases(path: Path) -> list[Case]:
    """The cases of one fixture file (see the module docstring)."""
    cases: list[Case] = []
    title, program, expected, in_plan = "", [], [], False
    for line in [*path.read_text(encoding="utf-8").splitlines(), "=== "]:
        if line.startswith("=== "):
            if title:
                cases.append(Case(title, "\n".join(program) + "\n", "\n".join(expected).strip()))
            title, program, expected, in_plan = line[4:].strip(), [], [], False
        elif not title:
            continue
        elif line == "--- plan":
            in_plan = True
        else:
            (expected if in_plan else program).append(line)
    return cases


CASES = [
    pytest.param(case, id=f"{path.stem}: {case.title}")
    for path in sorted(FIXTURES.glob("*.txt"))
    for case in read_cases(path)
]


def _graph(text: str, name: str) -> Plan:
    """The planner's input for a program: its job graph."""
    return job_input(check_program(Text(name=name, text=text), kind_of(Path(name))))


@pytest.mark.parametrize("case", CASES)
def test_fixture(case: Case) -> None:
    plan = plan_of(_graph(case.program, case.title))
    assert validate(plan) == []
    assert render(plan) == case.expected


def test_fixture_files_cover_the_brief() -> None:
    stems = {p.stem for p in FIXTURES.glob("*.txt")}
    assert {"stateless", "keyed", "script_state", "mixed", "flow"} <= stems
    assert len(CASES) >= 9


def _plan(*nodes: tuple[str, object], edges: tuple[tuple[str, str], ...]) -> Plan:
    """A hand-built plan: ``(name, scope)`` nodes, ``a -> b`` edges from ``out`` to ``in``."""
    return Plan(
        nodes=tuple(PlanNode(name=n, label=n, scope=s) for n, s in nodes),
        edges=tuple(Edge(source=(a, "out"), target=(b, "in")) for a, b in edges),
    )


def _staged(plan: Plan) -> Plan:
    return run_phases(plan)[-1][1]


def _stages(plan: Plan) -> list[tuple[tuple[str, ...], object]]:
    return [(s.members, s.partitioning) for s in _staged(plan).stages]


def test_keyed_after_keyed_is_a_new_stage_even_on_the_same_key() -> None:
    """Flink: every keyed edge is a boundary (a shuffle), fusion is for stateless nodes only."""
    plan = _plan(
        ("src", Stateless()),
        ("a", Keyed(key="k")),
        ("b", Keyed(key="k")),
        ("c", Stateless()),
        edges=(("src", "a"), ("a", "b"), ("b", "c")),
    )
    assert _stages(plan) == [(("src",), Source()), (("a",), Hash("k")), (("b", "c"), Hash("k"))]


def test_global_roots_and_diamonds() -> None:
    """A diamond whose branches stay in one stage fuses; a global node is always a root."""
    plan = _plan(
        ("src", Stateless()),
        ("l", Stateless()),
        ("r", Stateless()),
        ("join", Stateless()),
        ("count", Global(reason="counter")),
        edges=(("src", "l"), ("src", "r"), ("l", "join"), ("r", "join"), ("join", "count")),
    )
    assert _stages(plan) == [(("src", "l", "r", "join"), Source()), (("count",), Single())]


def test_sources_share_one_stage() -> None:
    """Every node without input joins the one source stage (the job reads its input once)."""
    plan = _plan(
        ("a", Stateless()),
        ("b", Stateless()),
        ("m", Stateless()),
        edges=(("a", "m"), ("b", "m")),
    )
    assert _stages(plan) == [(("a", "b", "m"), Source())]


def test_fan_in_from_two_stages_runs_forward() -> None:
    plan = _plan(
        ("a", Stateless()),
        ("k", Keyed(key="event.k")),
        ("m", Stateless()),
        edges=(("a", "k"), ("a", "m"), ("k", "m")),
    )
    assert _stages(plan) == [
        (("a",), Source()),
        (("k",), Hash("event.k")),
        (("m",), Forward()),
    ]


def test_a_cycle_is_planned_totally() -> None:
    """No node is lost when links form a cycle: its first node in IR order roots a stage
    (its input is not placed yet) and the stateless rest of the cycle joins it."""
    plan = _plan(
        ("a", Stateless()),
        ("b", Stateless()),
        edges=(("a", "b"), ("b", "a")),
    )
    staged = _staged(plan)
    assert validate(staged) == []
    assert [(s.members, s.partitioning) for s in staged.stages] == [(("a", "b"), Forward())]


def test_phases_are_pure_and_fusion_is_idempotent() -> None:
    program = read_cases(FIXTURES / "mixed.txt")[0].program
    start = _graph(program, "mixed.trickle")
    first = run_phases(start)
    assert _graph(program, "mixed.trickle") == start  # untouched (frozen, rebuilt equal)
    assert run_phases(start) == first
    for name in ("fuse_stages", "merge_keyed_siblings", "absorb_forwarders", "name_stages"):
        done = dict(first)[name]
        assert dict(PHASES)[name](done) == done, name
    assert [name for name, _ in first] == [name for name, _ in PHASES]


def _corpus_programs() -> list[Path]:
    """The corpus queries/flows programs and every golden program (the windowed ones too)."""
    programs = []
    for category in ("queries", "flows"):
        for case in sorted((CONFORMANCE / category).iterdir()):
            programs += sorted(case.glob("*.trickle")) + sorted(case.glob("*.troy"))
    return programs + sorted((ROOT / "golden").glob("*/*/input.*"))


def _check_sound(plan: Plan, where: object) -> None:
    """A stage holds at most one stateful node (or several keyed ones sharing one shuffle) and
    is partitioned as its scope says (a source of forwarding nodes may precede it); edges
    between stages go forward in stage order (the programs are acyclic)."""
    assert validate(plan) == [], where
    expected = {Keyed: Hash, Global: Single}
    for stage in plan.stages:
        stateful = [m for m in stage.members if not isinstance(plan.node(m).scope, Stateless)]
        assert len(stateful) <= 1 or all(isinstance(plan.node(m).scope, Keyed) for m in stateful), (
            where,
            stage.name,
        )
        root = plan.node(stateful[0] if stateful else stage.members[0])
        if type(root.scope) in expected:
            assert type(stage.partitioning) is expected[type(root.scope)], (where, stage.name)
            before = stage.members[: stage.members.index(root.name)]
            assert all(plan.node(m).forwards for m in before), (where, stage.name)
        assert stage.why.startswith(root.label + ": "), (where, stage.name)
        assert stage.name.isidentifier(), (where, stage.name)
    index = plan.stage_index()
    for edge in plan.edges:
        assert index[edge.source[0]] <= index[edge.target[0]], (where, edge)


def test_every_corpus_program_plans_totally() -> None:
    """Every queries/flows program and golden program plans, soundly, keyed ones included."""
    programs = _corpus_programs()
    assert len(programs) >= 60
    kinds: set[type] = set()
    for path in programs:
        plan = plan_of(job_input(check_program(Text.from_path(path), kind_of(path))))
        _check_sound(plan, path)
        kinds |= {type(s.partitioning) for s in plan.stages}
    assert kinds >= {Source, Hash, Single}


def test_dbg_plan_is_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    """``tremorc dbg plan`` prints the same bytes in processes with different hash seeds."""
    path = tmp_path / "mixed.trickle"
    path.write_text(read_cases(FIXTURES / "mixed.txt")[0].program, encoding="utf-8")
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        run = subprocess.run(
            [sys.executable, "-m", "compiler", "dbg", "plan", str(path), "--after", "all"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
    text = outputs.pop()
    assert [line for line in text.splitlines() if line.startswith("== ")] == [
        f"== after {name}" for name, _ in PHASES
    ]


def test_dbg_plan_after_a_phase_and_errors(tmp_path: Path) -> None:
    """``--after PHASE`` prints that phase's plan; an unknown phase or a bad program is a
    rendered error with exit code 1, never a traceback."""
    path = tmp_path / "keyed.trickle"
    path.write_text(read_cases(FIXTURES / "keyed.txt")[0].program, encoding="utf-8")
    result = CliRunner().invoke(cli, ["dbg", "plan", str(path), "--after", "partition_edges"])
    assert result.exit_code == 0, result.output
    assert "link in/out -> #select1/in | hash(event.host)\n" in result.output
    assert "link #select1/out -> out/in | forward\n" in result.output
    result = CliRunner().invoke(cli, ["dbg", "plan", str(path), "--after", "lift"])
    assert result.exit_code == 1
    assert "Unknown phase `lift`" in result.output and "Traceback" not in result.output
    path.write_text("select from in into out;\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["dbg", "plan", str(path)])
    assert result.exit_code == 1 and "Error" in result.output and "Traceback" not in result.output


def test_script_ports_named_like_the_graph_nodes() -> None:
    """Emit ports ``in`` and ``script`` are job outputs, no nodes: the one stage holds the
    stream and the script, and its rows hold every port."""
    node = NodeCode(name="script", factory="f", stateful=False, label="script")
    ports = ("out", "err", "in", "script")
    links = ((("in", "out"), ("script", "in")),) + tuple(
        (("script", port), (output_node(port), "in")) for port in ports
    )
    plan = plan_of(job_graph(streams=("in",), output_ports=ports, nodes=(node,), links=links))
    assert validate(plan) == []
    assert [(s.name, s.members, s.ports) for s in plan.stages] == [
        ("source_in", ("in", "script"), ("err", "in", "out", "script"))
    ]


def test_stage_names_avoid_the_plan_functions_names() -> None:
    """A stage named like a name the job's plan functions use (``stream_outputs``) or like a
    Python keyword takes a suffix; a name made of no letter or digit falls back to ``stage``."""
    from compiler.plan.job_phases import name_stages
    from compiler.plan.model import Stage

    nodes = (
        PlanNode(name="outputs", label="stream outputs", scope=Stateless()),
        PlanNode(name="if", label="if", scope=Stateless()),
        PlanNode(name="$", label="$", scope=Stateless()),
    )
    stages = tuple(Stage(members=(n.name,), partitioning=Forward()) for n in nodes)
    named = name_stages(Plan(nodes=nodes, edges=(), stages=stages))
    assert [s.name for s in named.stages] == ["stream_outputs_2", "if_2", "stage"]
