"""Golden files, through syrupy: each ``golden/<lang>/<case>/input.*`` has its AST dump
(``ast.txt``), its ``tremorc dbg ir`` dump (``ir.txt``) and its generated job (``job.py``) as
plain files beside it (the single-file extension ``tests/support/golden_files.py``).

Regenerate deliberately with ``python3 -m pytest tests/compiler/test_golden.py
--snapshot-update`` and review the diff: every changed line of a ``job.py`` is a change in what
users run. A missing file fails (CI runs without ``--snapshot-update``).
"""

from __future__ import annotations

import py_compile
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.ast.common import dump
from compiler.cli import cli
from compiler.pipeline import compile_source, kind_of, parse, read_source
from tests.support.golden_files import GoldenFiles
from tests.support.paths import ROOT

CASES = sorted(p for p in (ROOT / "golden").glob("*/*/input.*"))


@pytest.fixture
def golden(snapshot):
    """The ``snapshot`` fixture reading and writing ``golden/<lang>/<case>/<name>``."""
    return snapshot.use_extension(GoldenFiles)


def _dbg_ir(program: Path) -> str:
    """What ``tremorc dbg ir`` prints for ``program`` (run in-process through the CLI)."""
    result = CliRunner().invoke(cli, ["dbg", "ir", str(program)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("program", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_golden(program: Path, golden, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(program.parent)
    source = read_source(Path(program.name))
    kind = kind_of(program)
    assert dump(parse(source, kind)) + "\n" == golden(name="ast.txt")
    assert _dbg_ir(Path(program.name)) == golden(name="ir.txt")
    job = compile_source(source, kind).job
    assert job == golden(name="job.py")
    py_compile.compile(str(program.parent / "job.py"), doraise=True)


def test_generation_is_deterministic() -> None:
    for program in CASES:
        source = read_source(program)
        kind = kind_of(program)
        assert compile_source(source, kind).job == compile_source(source, kind).job


GOLDEN_TEST = """
from pathlib import Path

import pytest

from tests.support.golden_files import GoldenFiles

CASE = Path(__file__).parent / "golden" / "lang" / "case" / "input.txt"


@pytest.mark.parametrize("program", [CASE], ids=["lang/case"])
def test_case(program, snapshot):
    assert "hello\\n" == snapshot.use_extension(GoldenFiles)(name="job.py")
"""


def test_golden_files_extension(tmp_path: Path) -> None:
    """The extension's contract, run as CI would: missing fails, ``--snapshot-update`` writes the
    plain file, drift fails with a diff, and nothing but snapshot files is ever touched."""
    case = tmp_path / "golden" / "lang" / "case"
    case.mkdir(parents=True)
    (case / "input.txt").write_text("the program\n")
    (case / "notes.md").write_text("kept\n")
    (tmp_path / "test_case.py").write_text(GOLDEN_TEST)

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
        env = {"PYTHONPATH": str(ROOT), "PATH": ""}
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    assert pytest_run().returncode == 1  # missing snapshot
    assert not (case / "job.py").exists()
    assert pytest_run("--snapshot-update").returncode == 0
    assert (case / "job.py").read_text() == "hello\n"
    assert pytest_run().returncode == 0
    (case / "job.py").write_text("drifted\n")
    drift = pytest_run()
    assert drift.returncode == 1 and "drifted" in drift.stdout
    assert pytest_run("--snapshot-update").returncode == 0
    assert (case / "job.py").read_text() == "hello\n"
    assert (case / "input.txt").read_text() == "the program\n"
    assert (case / "notes.md").read_text() == "kept\n"
