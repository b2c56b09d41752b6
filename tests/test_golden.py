"""Golden files: the AST dump and the generated job of each ``golden/<lang>/<case>/input.*``.

Regenerate deliberately with ``python3 -m pytest tests/test_golden.py --update-golden`` and
review the diff: every changed line of a ``job.py`` is a change in what users run.
"""

from __future__ import annotations

import difflib
import py_compile
from pathlib import Path

import pytest

from compiler.ast.common import dump
from compiler.pipeline import compile_source, kind_of, parse, read_source

from .conftest import ROOT

CASES = sorted(p for p in (ROOT / "golden").glob("*/*/input.*"))


def _check(path: Path, text: str, update: bool) -> None:
    if update or not path.exists():
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if expected != text:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), str(path), "generated"
            )
        )
        pytest.fail(f"golden drift in {path}; rerun with --update-golden if intended:\n{diff}")


@pytest.mark.parametrize("program", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_golden(program: Path, update_golden: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(program.parent)
    source = read_source(Path(program.name))
    kind = kind_of(program)
    _check(program.parent / "ast.txt", dump(parse(source, kind)) + "\n", update_golden)
    job = compile_source(source, kind).job
    _check(program.parent / "job.py", job, update_golden)
    py_compile.compile(str(program.parent / "job.py"), doraise=True)


def test_generation_is_deterministic() -> None:
    for program in CASES:
        source = read_source(program)
        kind = kind_of(program)
        assert compile_source(source, kind).job == compile_source(source, kind).job
