"""Golden files, through syrupy: each ``golden/<lang>/<case>/input.*`` has its AST dump
(``ast.txt``), its ``tremorc dbg ir`` dump (``ir.txt``) and its generated job (``job.py``) as
plain files beside it (the single-file extension ``tests/golden_files.py``).

Regenerate deliberately with ``python3 -m pytest tests/test_golden.py --snapshot-update`` and
review the diff: every changed line of a ``job.py`` is a change in what users run. A missing
file fails (CI runs without ``--snapshot-update``).
"""

from __future__ import annotations

import py_compile
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.ast.common import dump
from compiler.cli import cli
from compiler.pipeline import compile_source, kind_of, parse, read_source

from .conftest import ROOT
from .golden_files import GoldenFiles

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
