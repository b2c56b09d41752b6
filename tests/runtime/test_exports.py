"""``runtime_support`` exports exactly what generated jobs import, and they import it in one
statement: ``__all__`` is the set of runtime names the code generator may emit, each name loads
from the module :data:`runtime_support.EXPORTS` files it under, and every golden job and every
job built from the workloads and examples imports its runtime names from the package alone."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys

import pytest

import runtime_support
from compiler.codegen.pybase import RUNTIME_MODULES, module_of
from compiler.pipeline import compile_path
from tests.support.paths import ROOT

#: Names the lowering adds to a rendered job (compiler/lowering: attach.py, typed_graph.py).
LOWERING_NAMES = {
    "with_native_prefilter": "runtime_support.spark.prefilter",
    "with_typed_plan": "runtime_support.spark.typed_plan",
}


def emitted() -> dict[str, str]:
    """Name → module of every runtime name the compiler's code generator may write: the
    ``"module:name"`` items in its source, what its script generator takes from
    :data:`RUNTIME_MODULES` and what the lowering adds."""
    found = dict(LOWERING_NAMES)
    for path in (ROOT / "compiler").rglob("*.py"):
        found.update(
            (name, module)
            for module, name in re.findall(r'"(runtime_support\.[\w.]+):(\w+)"', path.read_text())
        )
    for module in RUNTIME_MODULES:
        found.update((name, module_of(name)) for name in importlib.import_module(module).__all__)
    return found


def runtime_imports(job: str) -> list[ast.ImportFrom | ast.Import]:
    """The statements of ``job`` that import from ``runtime_support`` (any module of it)."""
    return [
        node
        for node in ast.parse(job).body
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("runtime_support")
        or isinstance(node, ast.Import)
        and any(a.name.startswith("runtime_support") for a in node.names)
    ]


def built_jobs() -> dict[str, str]:
    """The golden jobs, and the jobs built from the benchmark workloads (Tremor's, adapted to
    today's grammar) and the examples."""
    jobs = {
        str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "golden").rglob("job.py"))
    }
    programs = [
        *sorted((ROOT / "benchmarks" / "workloads").glob("*.trickle")),
        *sorted((ROOT / "examples").glob("*/*.troy")),
    ]
    for path in programs:
        jobs[str(path)] = compile_path(path).job
    return jobs


def test_all_is_sorted_and_every_name_loads_from_its_module() -> None:
    assert runtime_support.__all__ == sorted(runtime_support.__all__)
    for module, names in runtime_support.EXPORTS.items():
        loaded = importlib.import_module(module)
        for name in names:
            assert getattr(runtime_support, name) is getattr(loaded, name), name


def test_all_is_what_the_code_generator_may_emit() -> None:
    exports = {n: m for m, names in runtime_support.EXPORTS.items() for n in names}
    assert exports == emitted()


def test_jobs_import_the_runtime_in_one_statement() -> None:
    used: set[str] = set()
    jobs = built_jobs()
    assert len(jobs) > 20
    for name, job in jobs.items():
        statements = runtime_imports(job)
        assert len(statements) == 1, name
        (statement,) = statements
        assert isinstance(statement, ast.ImportFrom) and statement.module == "runtime_support", name
        used.update(alias.name for alias in statement.names)
    assert used <= set(runtime_support.__all__)


def test_the_package_imports_no_layer_until_a_name_is_used() -> None:
    code = (
        "import sys, runtime_support, runtime_support.tremor.highlight\n"
        "print(sorted(m for m in sys.modules if m.startswith(('runtime_support', 'pyspark'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(
        ["runtime_support", "runtime_support.tremor", "runtime_support.tremor.highlight"]
    )


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        runtime_support.no_such_name  # noqa: B018
