"""No import cycles anywhere in the product (``compiler/``, ``runtime_support/``, ``benchmarks/``,
``tools/``): the module graph (module-level and function-level imports, relative ones resolved,
a script folder's bare ``import sibling`` resolved to the sibling) is acyclic.

``runtime_support`` is layered, and its imports only go down the layers:

- ``tremor/``: Tremor's semantics in plain Python; imports nothing else of ``runtime_support``
  and never pyspark (not even inside a function);
- ``spark/``: execution on Spark; imports ``tremor/``;
- ``io/``: connectors, codecs, processors; imports ``tremor/`` and ``spark/``;
- ``flows/``: troy flows wired from the three; imports all of them.

``compiler/`` imports only the runtime modules in :data:`COMPILER_USES` (constants, checks and
text rendering it shares with the jobs it builds).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

PRODUCT = ("compiler", "runtime_support", "benchmarks", "tools")
#: Folders of scripts run by path: their bare ``import x`` names the sibling ``x.py``.
SCRIPT_FOLDERS = ("benchmarks", "tools")

LAYERS = ("tremor", "spark", "io", "flows")
#: The layers each layer may import (itself included).
ALLOWED = {
    "tremor": {"tremor"},
    "spark": {"tremor", "spark"},
    "io": {"tremor", "spark", "io"},
    "flows": {"tremor", "spark", "io", "flows"},
}

#: The runtime modules the compiler imports: what a job's text and the runtime must agree on.
COMPILER_USES = {
    # the checks of a connector's, codec's or processor's config, run as the job would
    "runtime_support.io.codecs",  # framing_from: a file sink's framing
    "runtime_support.io.codecs.common",  # CodecError
    "runtime_support.io.codecs.confluent",  # check_url: the schema registry's URL
    "runtime_support.io.connectors.crononome",  # parse_entries: the cron entries
    "runtime_support.io.connectors.dns_lookup",  # parse_nameserver
    "runtime_support.io.connectors.jdbc_types",  # the JDBC column types
    "runtime_support.io.connectors.kafka_options",  # librdkafka → Spark option names
    "runtime_support.io.connectors.net.datasource",  # parse_url
    "runtime_support.io.connectors.net.http",  # auth_header (elastic)
    "runtime_support.io.connectors.net.ws",  # ws_url
    "runtime_support.io.connectors.otel.server",  # otel_target
    "runtime_support.io.processors",  # the processor configs
    # constant folding and checks compute what the job would
    "runtime_support.tremor.errors",
    "runtime_support.tremor.extractors",
    "runtime_support.tremor.jsonio",
    "runtime_support.tremor.paths",
    "runtime_support.tremor.stdlib.registry",
    "runtime_support.tremor.value_ops",
    "runtime_support.tremor.highlight",  # errors rendered as the job renders them
    "runtime_support.tremor.script_rt",  # LITERAL_RUN of generated patterns
    "runtime_support.spark.ports",  # METRICS_PORT, the port the plan reserves
    "runtime_support.spark.std_native",  # which std functions lower natively
    # `tremorc bundle`, `tremorc jar` and `tremorc test` (which runs the jobs it builds)
    "runtime_support.spark.artifacts",
    "runtime_support.spark.jvm_json",
    "runtime_support.spark.session",
    "runtime_support.spark.plan",
    "runtime_support.flows.batch",
    "runtime_support.io.connectors.base",
}


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


def imports_of(path: Path, known: set[str], root: Path = ROOT, script: bool = False) -> set[str]:
    """Every product module ``path`` imports anywhere in its body. ``from x import y`` imports
    ``x.y`` when that is a module, else ``x``; ``script``: a bare ``import y`` / ``from y import
    z`` also names the sibling module ``y`` of ``path``'s folder."""
    module = module_name(path, root)
    folder = module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            if script:
                found.update(f"{folder}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node)
            if script and not node.level:
                base = base if base in known else f"{folder}.{base}"
            names = [f"{base}.{alias.name}" for alias in node.names]
            found.update(name for name in names if name in known)
            if not all(name in known for name in names):
                found.add(base)
    return {name for name in found if name in known and name != module}


def import_graph(packages: tuple[str, ...] = PRODUCT) -> dict[str, set[str]]:
    """Module name → the product modules it imports."""
    paths = sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))
    known = {module_name(p) for p in paths}
    return {
        module_name(p): imports_of(p, known, script=module_name(p).startswith(SCRIPT_FOLDERS))
        for p in paths
    }


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


def layer_of(module: str) -> str:
    """``spark`` for ``runtime_support.spark.stages``; ``""`` outside the four layers."""
    parts = module.split(".")
    return parts[1] if parts[0] == "runtime_support" and len(parts) > 1 else ""


def test_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_and_relative_imports_count(tmp_path: Path) -> None:
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    (package / "a.py").write_text("def f():\n    from .b import g\n    from .. import top\n")
    known = {"pkg.sub.b", "pkg.top", "pkg"}
    assert imports_of(package / "a.py", known, tmp_path) == {"pkg.sub.b", "pkg.top"}


def test_script_folders_import_their_siblings(tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "a.py").write_text("def f():\n    from b import g\n    import c\n")
    known = {"bench.a", "bench.b", "bench.c"}
    assert imports_of(folder / "a.py", known, tmp_path, script=True) == {"bench.b", "bench.c"}
    assert imports_of(folder / "a.py", known, tmp_path) == set()


def test_graph_sees_the_driver_importing_the_passes() -> None:
    graph = import_graph()
    assert "compiler.passes.query_instantiate" in graph["compiler.pipeline"]
    assert "compiler.ir.graph" in graph["compiler.passes.query_instantiate"]
    assert "runtime_support.tremor.jsonio" in graph["runtime_support.spark.stages"]


def test_no_import_cycles_in_the_product() -> None:
    assert cycles(import_graph()) == []


def test_runtime_layers_import_only_downwards() -> None:
    graph = import_graph(("runtime_support",))
    wrong = [
        f"{module} -> {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if layer_of(module) in ALLOWED and layer_of(target) not in ALLOWED[layer_of(module)]
    ]
    assert wrong == []
    top = {module_name(p) for p in (ROOT / "runtime_support").glob("*.py")}
    assert top == {"runtime_support"}, "every runtime module lives in one of the layers"


def test_compiler_imports_only_the_shared_runtime_modules() -> None:
    graph = import_graph(("compiler", "runtime_support"))
    used = {t for m, ts in graph.items() if m.startswith("compiler") for t in ts}
    assert {t for t in used if t.startswith("runtime_support")} == COMPILER_USES


def test_tremor_layer_never_imports_pyspark() -> None:
    paths = sorted((ROOT / "runtime_support" / "tremor").rglob("*.py"))
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names.append(getattr(node, "module", None) or "")
                assert not any(n.split(".")[0] in ("pyspark", "py4j") for n in names), path
    modules = [module_name(p) for p in paths]
    code = "import importlib, sys\n" + "".join(f"importlib.import_module({m!r})\n" for m in modules)
    code += "print(sorted({m.split('.')[0] for m in sys.modules} & {'pyspark', 'py4j'}))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
