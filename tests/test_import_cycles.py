"""No import cycles under compiler/: the module graph (module-level and function-level imports,
relative ones resolved) is acyclic, so every phase depends only on earlier ones."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "compiler"


def module_name(path: Path, root: Path = ROOT) -> str:
    """``compiler.passes.resolve`` for compiler/passes/resolve.py (``__init__`` is the package)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(path: Path, known: set[str], root: Path = ROOT) -> set[str]:
    """Every compiler module ``path`` imports anywhere in its body (``from x import y`` counts
    as importing ``x`` and, when ``x.y`` is a module, ``x.y``)."""
    module = module_name(path, root)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in known and name != module}


def import_graph() -> dict[str, set[str]]:
    """Module name → the compiler modules it imports."""
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, known) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_and_relative_imports_count(tmp_path: Path) -> None:
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    (package / "a.py").write_text("def f():\n    from .b import g\n    from .. import top\n")
    known = {"pkg.sub.b", "pkg.top", "pkg"}
    assert imports_of(package / "a.py", known, tmp_path) == {"pkg.sub.b", "pkg", "pkg.top"}


def test_graph_sees_the_driver_importing_the_passes() -> None:
    graph = import_graph()
    assert "compiler.passes.query_instantiate" in graph["compiler.pipeline"]
    assert "compiler.ir" in graph["compiler.passes.query_instantiate"]


def test_no_import_cycles_under_compiler() -> None:
    assert cycles(import_graph()) == []
