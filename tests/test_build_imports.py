"""What a build loads: a workload's build imports neither black (the job is laid out without it,
tests/test_black_free.py) nor the std library's implementations (the code generator reads the
runtime modules' ``__all__`` from their source, compiler/codegen/pybase.py); a program that
parses is parsed without parsimonious or ``regex`` (the grammars' cached copies,
compiler/parse/peg.py), and one with a syntax error still gets parsimonious' slow path."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.codegen.pybase import RUNTIME_MODULES, exports
from tests.support.paths import CONFORMANCE, ROOT


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_exports_read_from_source_are_the_modules_all(module: str) -> None:
    assert exports.__wrapped__(module) == frozenset(importlib.import_module(module).__all__)


def test_a_workload_build_loads_neither_black_nor_the_std_library() -> None:
    program = ROOT / "benchmarks" / "workloads" / "suite" / "match.trickle"
    code = (
        "import sys; from pathlib import Path; from compiler.pipeline import compile_path; "
        f"compile_path(Path({str(program)!r})); "
        "print(sorted({'black', 'runtime_support.tremor.stdlib.registry'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


PARSED = [
    ROOT / "benchmarks" / "workloads" / "suite" / "match.trickle",
    ROOT / "benchmarks" / "workloads" / "suite" / "group-by-count.trickle",
]


def run_python(code: str, prefix: Path) -> str:
    """``code`` run by a fresh Python with its bytecode and grammar caches under ``prefix``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(prefix)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_build_that_parses_loads_neither_parsimonious_nor_regex(tmp_path: Path) -> None:
    """Programs of plain ASCII text (a text beyond it needs ``regex``'s terminals)."""
    script = CONFORMANCE / "scripts" / "array_paths" / "script.tremor"
    programs = [*PARSED, ROOT / "examples" / "file_flow" / "flow.troy", script]
    assert {p.suffix for p in programs} == {".trickle", ".troy", ".tremor"}
    warm = (
        "from compiler.grammar import load_peg; "
        "[load_peg(*n) for n in (('script',), ('query', 'script'), "
        "('deploy', 'query', 'script'))]"
    )
    run_python(warm, tmp_path)  # the grammar caches, as a build with bytecode leaves them
    code = (
        "import sys; from pathlib import Path; from compiler.pipeline import compile_path; "
        f"[compile_path(Path(p)) for p in {[str(p) for p in programs]!r}]; "
        "print(sorted({'parsimonious', 'regex'} & set(sys.modules)))"
    )
    assert run_python(code, tmp_path) == "[]"


def test_a_syntax_error_is_worded_by_the_slow_path(tmp_path: Path) -> None:
    program = tmp_path / "bad.trickle"
    program.write_text("select event.a + from in into out;\n")
    code = (
        "import sys; from pathlib import Path; from compiler.pipeline import compile_path\n"
        "from compiler.diagnostics import CompileError\n"
        f"try:\n    compile_path(Path({str(program)!r}))\n"
        "except CompileError as err:\n    print(err.message)\n"
        "print('parsimonious' in sys.modules)"
    )
    message, slow = run_python(code, tmp_path).splitlines()
    assert message.startswith("Found the token `from` but expected one of ")
    assert slow == "True"
