"""What a build loads: a workload's build does not import the std library's implementations (the
code generator reads the runtime modules' ``__all__`` from their source,
compiler/codegen/pybase.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from compiler.codegen.pybase import RUNTIME_MODULES, exports
from tests.support.paths import ROOT


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_exports_read_from_source_are_the_modules_all(module: str) -> None:
    assert exports.__wrapped__(module) == frozenset(importlib.import_module(module).__all__)


def test_a_workload_build_does_not_load_the_std_library() -> None:
    program = ROOT / "benchmarks" / "workloads" / "suite" / "match.trickle"
    code = (
        "import sys; from pathlib import Path; from compiler.pipeline import compile_path; "
        f"compile_path(Path({str(program)!r})); "
        "print('runtime_support.tremor.stdlib.registry' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
