"""The runtime contract: generated jobs import only names ``runtime_support`` modules export.

Every ``from runtime_support.m import a, b`` in a generated job must name entries of ``m.__all__``
(the Jinja "exported" discipline), and ``runtime_support`` must never import ``compiler``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of, read_source
from tests.support.paths import CONFORMANCE, ROOT

PROGRAMS = sorted(
    [*CONFORMANCE.glob("scripts/*/script.tremor"), *CONFORMANCE.glob("queries/*/query.trickle")]
    + [p for p in CONFORMANCE.glob("flows/*/flow.troy") if not (p.parent / "config.json").exists()]
    + [*(ROOT / "golden").glob("*/*/input.*")]
)


def runtime_imports(job: str) -> list[tuple[str, str]]:
    """``(module, name)`` for every runtime_support import of a job's source."""
    found = []
    for node in ast.walk(ast.parse(job)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("runtime_support"):
            found.extend((node.module, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize(
    "program", PROGRAMS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_jobs_import_only_exported_names(program: Path) -> None:
    job = compile_source(read_source(program), kind_of(program)).job
    imports = runtime_imports(job)
    assert imports, "a job always imports its runtime"
    for module, name in imports:
        exported = getattr(importlib.import_module(module), "__all__", None)
        assert exported is not None, f"{module} has no __all__"
        assert name in exported, f"{module}.{name} is not exported"


def test_all_lists_are_sorted_and_real() -> None:
    for path in sorted((ROOT / "runtime_support").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        exported = getattr(importlib.import_module(module), "__all__", None)
        if exported is None:
            continue
        assert list(exported) == sorted(exported), f"{module}.__all__ is not sorted"
        for name in exported:
            assert hasattr(importlib.import_module(module), name), f"{module}.{name} missing"


def test_runtime_never_imports_the_compiler() -> None:
    for path in sorted((ROOT / "runtime_support").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "compiler" for n in names), path
