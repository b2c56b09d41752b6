"""compiler/passes/stdlib_names.py is generated from the std registry: it must equal it, so the
front end (which reads the table, not the registry) cannot drift from what the jobs run."""

from __future__ import annotations

import runtime_support.spark.std_native  # noqa: F401  (attaches the lowerings)
from compiler.passes import stdlib_names as table
from runtime_support.tremor.stdlib import registry
from tests.support.paths import ROOT, load_tool


def test_table_is_current() -> None:
    committed = (ROOT / "compiler" / "passes" / "stdlib_names.py").read_text()
    assert (
        committed == load_tool("gen_stdlib_names").render()
    ), "compiler/passes/stdlib_names.py is stale: run python tools/gen_stdlib_names.py"


def test_functions_equal_the_registry() -> None:
    fields = ("min_arity", "max_arity", "const", "pure", "aggregate", "needs_ctx", "native")
    expected = {fn.name: tuple(getattr(fn, f) for f in fields) for fn in registry.functions()}
    assert {name: tuple(sig) for name, sig in table.FUNCTIONS.items()} == expected


def test_constants_and_modules_equal_the_registry() -> None:
    assert table.CONSTANTS == frozenset(registry.CONSTANTS)
    for path in table.CONSTANTS:
        assert registry.has_constant(path)
    assert table.MODULES == registry._MODULES
    assert all(registry.module_exists(path) for path in table.MODULES)
    assert ("std", "integer", "signed") in table.MODULES and ("std", "snot") not in table.MODULES
