"""Resolve ``use`` statements: find, parse and collect every module a script needs.

A module path ``a::b::c`` is the file ``a/b/c.tremor`` (then ``.trickle``, ``.troy``) under each
mount of the module path, first match wins, then tremorc's bundled sources
(:data:`BUNDLED`). Mounts are the directory of the root file (as given,
so messages show the path the user typed) followed by each ``TREMOR_PATH`` entry. As in Tremor's
harness the same mounts serve nested ``use``s inside modules. Std modules (``std::…``,
``tremor::…``, …) are built in and never read from disk.

Every module file is parsed with Tremor's one module grammar (``ModuleFile``: ``use``, ``const``,
``fn``, ``intrinsic`` and every ``define``), whatever its extension: what a module's content means
is decided by the language that uses it, which reads its view (:attr:`Module.script`,
:attr:`Module.query`, or ``tree.items`` for troy).

Errors are Tremor's: ``Module `x` not found or not readable error in module path: …`` and
`` Cyclic dependency detected: a -> b`` (leading space included, as Tremor prints it).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .ast import script as ast
from .ast.common import Node
from .diagnostics import CompileError
from .parse.errors import outer_span
from .passes.stdlib_names import MODULES
from .source import Source

BUNDLED = Path(__file__).parent / "lib"
"""tremorc's own sources of Tremor's bundled modules written in Tremor (``tremor::connectors``,
``tremor::pipelines``, ``axiom``, ``cncf::otel::…``): searched after every mount, never listed."""
BUILTIN_ROOTS = ("std", "tremor", "aggr", "cncf", "google", "http", "axiom")
EXTENSIONS = (".tremor", ".trickle", ".troy")
_LIST_INDENT = "\n                         - "

Parser = Callable[[Source], Node]


@functools.cache
def bundled(path: tuple[str, ...]) -> str | None:
    """The bundled source file of module ``path``, or None (the bundled library is part of the
    installed package: asked once per process)."""
    found = BUNDLED.joinpath(*path).with_suffix(".tremor") if path else None
    return str(found) if found is not None and found.is_file() else None


def is_builtin(path: tuple[str, ...]) -> bool:
    """True for std-library modules (the generated table of the std registry)."""
    return tuple(path) in MODULES or (len(path) == 1 and path[0] in BUILTIN_ROOTS)


_SCRIPT_ITEMS = (ast.Use, ast.Const, ast.FnDef, ast.Intrinsic)


@dataclass(frozen=True, slots=True)
class Module:
    """One loaded module file: its module path, source text and parsed tree (a module-file tree
    with ``items``, or whatever a caller-supplied parser returns)."""

    path: tuple[str, ...]
    source: Source
    tree: Node

    @property
    def script(self) -> ast.Script:
        """The module as tremor-script sees it: its ``use``, ``const``, ``fn`` and
        ``intrinsic`` items (definitions of other languages are not part of a script)."""
        if isinstance(self.tree, ast.Script):
            return self.tree
        items = tuple(i for i in getattr(self.tree, "items", ()) if isinstance(i, _SCRIPT_ITEMS))
        return ast.Script(items=items, span=self.tree.span)

    @property
    def query(self) -> Node:
        """The module as trickle sees it: a query whose statements are the module's items."""
        from .ast import query as q

        if isinstance(self.tree, q.Query):
            return self.tree
        return q.Query(stmts=tuple(getattr(self.tree, "items", ())), span=self.tree.span)


@dataclass
class ModuleLoader:
    """Loads modules depth-first; ``stack`` holds the files being loaded (cycle detection)."""

    mounts: list[str]
    parsers: dict[str, Parser]
    modules: dict[tuple[str, ...], Module] = field(default_factory=dict)
    stack: list[tuple[str, Source]] = field(default_factory=list)

    def find(self, path: tuple[str, ...]) -> str | None:
        """The first existing file for ``path`` under the mounts, as a mount-relative path."""
        for mount in self.mounts:
            base = os.path.join(mount, *path)
            for ext in EXTENSIONS:
                if os.path.isfile(base + ext):
                    return base + ext
        return bundled(path)

    def not_found(self, use: ast.Use, source: Source) -> CompileError:
        span = use.path_span or use.span
        listing = "".join(_LIST_INDENT + m for m in self.mounts)
        name = "::".join(use.path)
        return CompileError(
            f"Module `{name}` not found or not readable error in module path: {listing}",
            span,
            outer=outer_span(source.text, span),
            source=source,
        )

    def cyclic(self, use: ast.Use, source: Source) -> CompileError:
        # (quirk) Tremor renders the offending `use` against the including file's text.
        shown = self.stack[-2][1] if len(self.stack) >= 2 else self.root_source
        if use.span.end > len(shown.text):
            shown = source
        chain = " -> ".join(name for name, _ in self.stack)
        return CompileError(f" Cyclic dependency detected: {chain}", use.span, source=shown)

    root_source: Source = field(default=None)  # type: ignore[assignment]

    def load_uses(self, tree: Node, source: Source) -> None:
        """Load every module ``tree`` uses (recursively)."""
        for use in _uses(tree):
            self.load(use, source)

    def load(self, use: ast.Use, source: Source) -> None:
        path = use.path
        if path in self.modules or (is_builtin(path) and bundled(path) is None):
            return
        filename = self.find(path)
        if filename is None:
            raise self.not_found(use, source)
        if any(os.path.samefile(filename, name) for name, _ in self.stack):
            raise self.cyclic(use, source)
        module_source = _read(filename, use, source)
        parser = self.parsers.get(os.path.splitext(filename)[1], self.parsers.get("*"))
        if parser is None:
            return
        self.stack.append((filename, module_source))
        tree = parser(module_source)
        self.load_uses(tree, module_source)
        self.stack.pop()
        self.modules[path] = Module(path=path, source=module_source, tree=tree)


def _read(filename: str, use: ast.Use, source: Source) -> Source:
    try:
        read = Source.from_path(Path(filename))
    except OSError as err:
        raise CompileError(
            f"Module `{'::'.join(use.path)}` not readable: {err}", use.span, source=source
        ) from None
    return Source(read.name, read.text, read.path, root=source.root or source)


def _uses(tree: Node) -> Iterator[ast.Use]:
    """The ``use`` items of a script (or of any tree), in pre-order.

    A ``use`` is an item of a script, query, pipeline, flow, deploy or module body, never part
    of an expression (the grammars have ``use_stmt`` only among such items), so the search does
    not go below an expression."""
    stack: list[Node] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Use):
            yield node
        elif not isinstance(node, ast.Expr):
            below = node.children()
            below.reverse()
            stack.extend(below)


def module_path_mounts(source: Source, extra: list[str] | None = None) -> list[str]:
    """Mounts for ``source``: its program's directory (with a trailing separator; a module file
    has the mounts of the program that loaded it, as in Tremor) then ``TREMOR_PATH``."""
    source = source.root or source
    base = os.path.dirname(str(source.path)) if source.path is not None else ""
    mounts = [os.path.join(base, "") if base else "./"]
    env = os.environ.get("TREMOR_PATH", "")
    mounts += [m for m in env.split(":") if m]
    return mounts + list(extra or [])


def _parse_module_file(source: Source) -> Node:
    """A module file by Tremor's module-file grammar (its parser is imported at the first
    ``use``: a program without one never loads the deploy grammar's visitor)."""
    from .parse.deploy import parse_module

    return parse_module(source)


def load_modules(
    tree: Node,
    source: Source,
    *,
    mounts: list[str] | None = None,
    parsers: dict[str, Parser] | None = None,
) -> dict[tuple[str, ...], Module]:
    """Every module (transitively) used by ``tree``, keyed by module path, dependencies first.

    Args:
        tree: the parsed root file (a Script, or a trickle/troy tree containing ``ast.Use``).
        source: the root's source (its ``path`` decides the first mount).
        mounts: module path; defaults to :func:`module_path_mounts`.
        parsers: file extension (or ``"*"`` for any) → parser; defaults to Tremor's module-file
            grammar for every extension (see the module docstring).

    Raises:
        CompileError: missing module, cyclic ``use``, or an error inside a module file.
    """
    if parsers is None:
        parsers = {"*": _parse_module_file}
    loader = ModuleLoader(mounts=mounts or module_path_mounts(source), parsers=parsers)
    loader.root_source = source
    loader.load_uses(tree, source)
    return loader.modules
