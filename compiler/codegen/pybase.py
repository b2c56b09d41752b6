"""Shared state of the tremor-script → Python generator: output lines, imports, sites, scopes.

Invariants: generated text is produced only through :class:`Base.line`; user identifiers only
through :class:`~compiler.codegen.names.Names`; user strings only through ``repr``.
"""

from __future__ import annotations

import ast as pyast
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from runtime_support.tremor.highlight import expand_lines

from ..ast import script as ast
from ..source import Source, Span
from .names import Names

INDENT = "    "

# Runtime modules generated scripts may import from, in priority order: a name exported by
# several of them comes from the first. What each exports is its ``__all__`` (the contract).
RUNTIME_MODULES = (
    "runtime_support.tremor.value_ops",
    "runtime_support.tremor.paths",
    "runtime_support.tremor.jsonio",
    "runtime_support.tremor.errors",
    "runtime_support.tremor.script_rt",
    "runtime_support.tremor.patching",
    "runtime_support.tremor.stdlib.registry",
    "runtime_support.tremor.extractors",
)


@cache
def module_of(name: str) -> str:
    """The first of :data:`RUNTIME_MODULES` exporting ``name`` (KeyError if none)."""
    for module in RUNTIME_MODULES:
        if name in exports(module):
            return module
    raise KeyError(name)


@cache
def exports(module: str) -> frozenset[str]:
    """``module.__all__``, read from its source when the module is not imported yet, so that a
    build does not load the std library's implementations. ``__all__`` is a literal list or
    tuple in every one of :data:`RUNTIME_MODULES`."""
    loaded = sys.modules.get(module)
    if loaded is not None:
        return frozenset(loaded.__all__)
    spec = importlib.util.find_spec(module)
    tree = pyast.parse(Path(spec.origin).read_text())  # type: ignore[arg-type, union-attr]
    for node in tree.body:
        if isinstance(node, pyast.Assign) and [t.id for t in node.targets] == ["__all__"]:
            return frozenset(pyast.literal_eval(node.value))
    raise KeyError(f"{module} has no literal __all__")


@dataclass
class FnState:
    """Per generated Python function: scopes of Tremor locals and definite assignment."""

    is_entry: bool
    params: tuple[str, ...] = ()
    param_idents: tuple[str, ...] = ()
    scopes: list[dict[str, str]] = field(default_factory=lambda: [{}])
    assigned: set[str] = field(default_factory=set)
    plain_locals: set[str] = field(default_factory=set)
    uses_depth: bool = False
    read_ok: set[tuple[str, ...]] = field(default_factory=set)
    """Field paths of ``event`` read without error on every way here, ``event`` unchanged
    since: a read of one of them cannot fail (see :meth:`Base.branch`, ``StmtGen.let``)."""
    event_stores: int = 0
    """How many stores into ``event`` were compiled so far (a branch that adds one forgets
    :attr:`read_ok` after it)."""


class Base:
    """Output buffer, import and site tables, name allocation."""

    def __init__(self, source: Source, prefix: str) -> None:
        self.source = source
        self.prefix = prefix
        reserved = ("event", "meta", "state", "ctx", "site", "args", f"{prefix}_run")
        self.names = Names(reserved=reserved, scope=prefix)
        self.imports: set[str] = set()
        self.sites: list[tuple[int, int, int, int]] = []
        self._site_ids: dict[tuple[int, int, int, int], int] = {}
        self.module_lines: list[str] = []
        self.out: list[str] = []
        self.depth = 0
        self.fn = FnState(is_entry=True)
        #: nothing reads the ``$`` the script leaves with (``ScriptNode.meta_unread``)
        self.meta_unread = False
        #: some compiled ``let`` writes ``state`` (or a path below it)
        self.assigns_state = False
        self.in_module = False
        self._std: dict[str, str] = {}
        self._ext: dict[tuple[str, str], str] = {}
        self.literal_lookups: dict[str, str] = {}  # lookup variable -> LiteralTable binding
        # lookup variable -> (key, table, whether the table holds prefixes too)
        self.field_lookups: dict[str, tuple[str, str, bool]] = {}

    # -- output -----------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.out.append(INDENT * self.depth + text)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        """Collect the lines written inside the block instead of emitting them."""
        saved = self.out
        self.out = []
        try:
            yield self.out
        finally:
            captured = self.out
            self.out = saved
            self._captured = captured

    def rt(self, name: str) -> str:
        """A runtime-support name, recorded as an import."""
        self.imports.add(f"{module_of(name)}:{name}")
        return name

    def temp(self) -> str:
        return self.names.temp()

    # -- sites ------------------------------------------------------------------------------

    def site(self, inner: Span, outer: Span | None = None, expand: int = 0) -> int:
        """The id of a (inner, outer) span pair; ``expand`` widens outer by whole lines."""
        if self.in_module or inner.end <= inner.start and inner.start == 0:
            return -1
        out = outer or inner
        o = (min(out.start, inner.start), max(out.end, inner.end))
        if expand:
            o = expand_lines(self.source.text, o, expand, expand)
        key = (inner.start, inner.end, o[0], o[1])
        found = self._site_ids.get(key)
        if found is None:
            found = self._site_ids[key] = len(self.sites)
            self.sites.append(key)
        return found

    def field_span(self, seg: ast.Segment) -> Span:
        """A field segment's span without its leading dot."""
        span = seg.span
        text = self.source.text
        start = span.start
        while start < span.end and text[start] in ". \t\n":
            start += 1
        return Span(start, span.end)

    # -- scopes -----------------------------------------------------------------------------

    def local(self, name: str) -> str:
        """The Python identifier a Tremor local currently maps to."""
        for scope in reversed(self.fn.scopes):
            if name in scope:
                return scope[name]
        ident = self.names.get("local", (name,))
        self.fn.plain_locals.add(ident)
        return ident

    @contextmanager
    def shadowing(self, names: dict[str, str]) -> Iterator[None]:
        """Clause-scoped bindings: ``names`` maps Tremor names to fresh identifiers."""
        self.fn.scopes.append(names)
        saved = set(self.fn.assigned)
        self.fn.assigned |= set(names.values())
        try:
            yield
        finally:
            self.fn.scopes.pop()
            self.fn.assigned = saved

    @contextmanager
    def branch(self) -> Iterator[None]:
        """Code that may not run: assignments and reads inside do not count as definite
        afterwards; a store into ``event`` inside forgets every known read."""
        saved, reads, stores = set(self.fn.assigned), set(self.fn.read_ok), self.fn.event_stores
        try:
            yield
        finally:
            self.fn.assigned = saved
            self.fn.read_ok = reads if self.fn.event_stores == stores else set()

    @contextmanager
    def loop_body(self) -> Iterator[None]:
        """Code that may run again after itself: no read is known inside (a later store into
        ``event`` in the body would make it stale on the next round)."""
        with self.branch():
            self.fn.read_ok = set()
            yield

    # -- module-level bindings --------------------------------------------------------------

    def std_fn(self, path: str) -> str:
        """Module-level binding of a std-lib function looked up once."""
        found = self._std.get(path)
        if found is None:
            found = self._std[path] = self.names.get("std", tuple(path.split("::")[1:]))
            self.module_lines.append(f"{found} = {self.rt('lookup')}({path!r})")
        return found

    def std_const(self, path: str) -> str:
        found = self._std.get("#" + path)
        if found is None:
            found = self._std["#" + path] = self.names.get("stdconst", tuple(path.split("::")))
            self.module_lines.append(f"{found} = {self.rt('constant')}({path!r})")
        return found

    def extractor(self, ext: ast.Extractor) -> str:
        key = (ext.name.lower(), ext.rule)
        found = self._ext.get(key)
        if found is None:
            found = self._ext[key] = self.names.fresh("extractor", (key[0],))
            call = f"{self.rt('compile_extractor')}({key[0]!r}, {ext.rule!r})"
            self.module_lines.append(f"{found} = {call}")
        return found
