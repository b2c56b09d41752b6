"""Resolve ``use`` statements: find, parse and collect every module a script needs.

A module path ``a::b::c`` is the file ``a/b/c.tremor`` (then ``.trickle``, ``.troy``) under each
mount of the module path, first match wins. Mounts are the directory of the root file (as given,
so messages show the path the user typed) followed by each ``TREMOR_PATH`` entry. As in Tremor's
harness the same mounts serve nested ``use``s inside modules. Std modules (``std::…``,
``tremor::…``, …) are built in and never read from disk.

Errors are Tremor's: ``Module `x` not found or not readable error in module path: …`` and
`` Cyclic dependency detected: a -> b`` (leading space included, as Tremor prints it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .ast import script as ast
from .ast.common import Node
from .diagnostics import CompileError
from .parse.errors import outer_span
from .source import Source

BUILTIN_ROOTS = ("std", "tremor", "aggr", "cncf", "google", "http", "axiom")
EXTENSIONS = (".tremor", ".trickle", ".troy")
_LIST_INDENT = "\n                         - "

Parser = Callable[[Source], Node]


def is_builtin(path: tuple[str, ...]) -> bool:
    """True for std-library modules (answered by the std registry when it is importable)."""
    try:
        from runtime_support.stdlib.registry import module_exists
    except Exception:  # noqa: BLE001 - the registry is optional while it is being written
        return bool(path) and path[0] in BUILTIN_ROOTS
    try:
        return module_exists(path) or (len(path) == 1 and path[0] in BUILTIN_ROOTS)
    except Exception:  # noqa: BLE001
        return bool(path) and path[0] in BUILTIN_ROOTS


@dataclass(frozen=True)
class Module:
    """One loaded module file: its module path, source text and parsed tree."""

    path: tuple[str, ...]
    source: Source
    tree: Node


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
        return None

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
        if is_builtin(path) or path in self.modules:
            return
        filename = self.find(path)
        if filename is None:
            raise self.not_found(use, source)
        if any(os.path.samefile(filename, name) for name, _ in self.stack):
            raise self.cyclic(use, source)
        module_source = _read(filename, use, source)
        parser = self.parsers.get(os.path.splitext(filename)[1])
        if parser is None:
            return
        self.stack.append((filename, module_source))
        tree = parser(module_source)
        self.load_uses(tree, module_source)
        self.stack.pop()
        self.modules[path] = Module(path=path, source=module_source, tree=tree)


def _read(filename: str, use: ast.Use, source: Source) -> Source:
    try:
        return Source.from_path(Path(filename))
    except OSError as err:
        raise CompileError(
            f"Module `{'::'.join(use.path)}` not readable: {err}", use.span, source=source
        ) from None


def _uses(tree: Node) -> Iterator[ast.Use]:
    """The top-level ``use`` items of a script (or of any tree, searched in order)."""
    for node in tree.walk():
        if isinstance(node, ast.Use):
            yield node


def module_path_mounts(source: Source, extra: list[str] | None = None) -> list[str]:
    """Mounts for ``source``: its directory (with a trailing separator) then ``TREMOR_PATH``."""
    base = os.path.dirname(str(source.path)) if source.path is not None else ""
    mounts = [os.path.join(base, "") if base else "./"]
    env = os.environ.get("TREMOR_PATH", "")
    mounts += [m for m in env.split(":") if m]
    return mounts + list(extra or [])


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
        parsers: file extension → parser; defaults to ``{".tremor": parse_script}`` (other kinds
            are found but not parsed unless a parser is given).

    Raises:
        CompileError: missing module, cyclic ``use``, or an error inside a module file.
    """
    if parsers is None:
        from .parse.script import parse_script

        parsers = {".tremor": parse_script}
    loader = ModuleLoader(mounts=mounts or module_path_mounts(source), parsers=parsers)
    loader.root_source = source
    loader.load_uses(tree, source)
    return loader.modules
