"""The job is the plan: ``tremorc dbg plan FILE`` prints exactly the ``STAGES`` of FILE's built
job (names, members, partitioning, carry, entry, repeats) for every corpus program that builds,
every workload, golden input and example; the job's plan functions assign each stage under its
name; and no built job has an unused import or an undefined name (ruff)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from runtime_support.spark.stages import StageSpec
from tests.support.paths import CONFORMANCE, ROOT, WORKLOADS

#: Categories whose every program builds (the others hold programs that must not).
BUILDING = ("queries", "scripts", "flows")
#: Categories whose programs build where they fail only at run time or only warn.
RUNTIME = ("query_runtime_errors", "script_runtime_errors", "script_warnings")


def _programs(folder: Path) -> list[Path]:
    return sorted(p for ext in ("tremor", "trickle", "troy") for p in folder.glob(f"*/*.{ext}"))


def _others() -> list[Path]:
    """The workloads (shared and benchmark), golden inputs and examples."""
    return sorted(
        [
            *WORKLOADS.glob("*/*.trickle"),
            *(ROOT / "benchmarks" / "workloads").rglob("*.trickle"),
            *(ROOT / "golden").glob("*/*/input.*"),
            *(ROOT / "examples").glob("*/*.troy"),
        ]
    )


def _built(path: Path) -> str | None:
    """The job of ``path``, or None when it does not compile."""
    try:
        return compile_source(Source.from_path(path), kind_of(path)).job
    except CompileError:
        return None


def _job_stages(job: str) -> tuple[StageSpec, ...]:
    """The value of the job's ``STAGES``."""
    for statement in ast.parse(job).body:
        if isinstance(statement, ast.Assign) and ast.unparse(statement.targets[0]) == "STAGES":
            return eval(ast.unparse(statement.value), {"StageSpec": StageSpec})  # noqa: S307
    raise AssertionError("no STAGES in the job")


def _printed(path: Path) -> list[dict[str, str]]:
    """The stage lines ``tremorc dbg plan`` prints, as ``{"head": "0 name", "kind": …, fact
    name: value}``."""
    result = CliRunner().invoke(cli, ["dbg", "plan", str(path)])
    assert result.exit_code == 0, result.output
    stages = []
    for line in result.output.splitlines():
        if not line.startswith("stage "):
            continue
        head, part, *facts = line[len("stage ") :].split(" | ")
        found = {"head": head, "kind": part.split("(")[0]}
        for fact in facts:
            if fact.startswith("why: "):
                break
            key, _, value = fact.partition(" ")
            found[key] = value
        stages.append(found)
    return stages


def _compare(path: Path, job: str) -> int:
    """Assert that ``dbg plan`` of ``path`` prints the stages of its ``job``; their count."""
    specs = _job_stages(job)
    printed = _printed(path)
    names = [spec.name for spec in specs]
    assert [p["head"] for p in printed] == [f"{i} {n}" for i, n in enumerate(names)], path
    for spec, shown in zip(specs, printed, strict=True):
        assert shown["kind"] == spec.partitioning, (path, spec.name)
        assert shown["members"].split(", ") == list(spec.members), (path, spec.name)
        carry = names.index(shown["carry"]) if "carry" in shown else None
        assert carry == spec.carry, (path, spec.name)
        entry = f"{spec.entry[0]}.{spec.entry[1]}" if spec.entry else None
        assert shown.get("entry") == entry, (path, spec.name)
        assert ("repeats" in shown) == spec.repeats, (path, spec.name)
        assert spec.name.isidentifier() and f"\n    {spec.name} = " in job, (path, spec.name)
    return len(specs)


@pytest.mark.parametrize("category", BUILDING)
def test_dbg_plan_is_the_jobs_stages_over_the_corpus(category: str) -> None:
    """Every program of ``category`` builds, and ``dbg plan`` prints its job's stages."""
    programs = _programs(CONFORMANCE / category)
    assert programs
    for path in programs:
        job = _built(path)
        assert job is not None, path
        _compare(path, job)


def test_dbg_plan_is_the_jobs_stages_elsewhere() -> None:
    """The same for the runtime-error and warning programs that build, the workloads, the
    golden inputs and the examples (several stages, keyed entries and flows among them)."""
    counts = {}
    for path in [p for c in RUNTIME for p in _programs(CONFORMANCE / c)] + _others():
        job = _built(path)
        if job is not None:
            counts[path] = _compare(path, job)
    assert len([p for p in counts if "examples" in p.parts]) >= 5
    assert max(counts.values()) >= 2


def test_dbg_plan_is_the_jobs_stages_for_the_plan_fixtures(tmp_path: Path) -> None:
    """The same for the programs of tests/fixtures/plan (quoted names, keyed siblings)."""
    from tests.compiler.plan.test_planner import CASES

    for index, param in enumerate(CASES):
        (case,) = param.values
        path = tmp_path / f"{index}{Path(case.title).suffix}"
        path.write_text(case.program, encoding="utf-8")
        job = _built(path)
        assert job is not None, case.title
        _compare(path, job)


def test_built_jobs_pass_ruff(tmp_path: Path) -> None:
    """The jobs of the workloads, golden inputs and examples have no unused import, undefined
    name or other pyflakes/pycodestyle finding (only long lines: embedded source text)."""
    written = 0
    for index, path in enumerate(_others()):
        job = _built(path)
        if job is not None:
            (tmp_path / f"job{index}_{path.stem}.py").write_text(job, encoding="utf-8")
            written += 1
    assert written >= 20
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
        + ["--select", "E,F,W", "--ignore", "E501", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
