"""Name resolution for tremor-script: modules, constants and functions.

Needs: a parsed :class:`~compiler.ast.script.Script` (``use`` items still present).
Establishes: every ``Call`` names its target absolutely (``module`` is ``()`` for a function of
the main script, the user module's path for a module function, or the std module path for a
native function); every reference to a constant is a ``Path(root="const")`` whose ``module`` is
the absolute module path of its definition (``()`` for the main script, a std module path for
std constants); ``Recur`` only occurs in tail position of a function. User modules reached
through ``use`` are resolved the same way and returned in dependency order.

Errors are the semantic ``script_errors`` of Tremor: undefined function, undefined constant,
function or constant defined twice, ``recur`` outside a tail position.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime_support.tremor.highlight import expand_lines

from ..ast import script as ast
from ..ast.common import Node, transform
from ..diagnostics import CompileError
from ..source import Source, Span
from .stdlib_names import CONSTANTS, FUNCTIONS, MODULES

ModPath = tuple[str, ...]
Loader = Callable[[ModPath, Span], "tuple[ast.Script, Source] | None"]
"""Finds a user module file: ``(path, span of the use) -> (script, source)`` or None."""


@dataclass(frozen=True, slots=True)
class Module:
    """A resolved user module: its absolute path, rewritten script and source."""

    path: ModPath
    script: ast.Script
    source: Source


@dataclass(frozen=True, slots=True)
class Resolved:
    """The main script after resolution plus the user modules it needs (dependencies first)."""

    script: ast.Script
    modules: tuple[Module, ...] = ()

    def flat(self) -> ast.Script:
        """One script: every module's functions and constants (their ``module`` set), then the
        main script's items."""
        items: list[ast.TopLevel] = []
        for module in self.modules:
            items.extend(i for i in module.script.items if isinstance(i, (ast.FnDef, ast.Const)))
        items.extend(self.script.items)
        return dataclasses.replace(self.script, items=tuple(items))


@dataclass
class _Scope:
    """What one script or module file has defined so far, in source order."""

    path: ModPath
    source: Source
    aliases: dict[str, ModPath] = field(default_factory=dict)
    fns: dict[str, ast.FnDef] = field(default_factory=dict)
    intrinsics: dict[str, ModPath] = field(default_factory=dict)
    consts: set[str] = field(default_factory=set)


class _Resolver:
    """Resolves one program: the main script and, recursively, the modules it uses."""

    def __init__(self, loader: Loader | None) -> None:
        self.loader = loader
        self.scopes: dict[ModPath, _Scope] = {}
        self.done: list[Module] = []

    # -- modules ----------------------------------------------------------------------------

    def module_scope(self, path: ModPath, span: Span, source: Source) -> _Scope | None:
        """The scope of user module ``path`` (resolved on first use), None for std modules.

        A module with a Tremor source (user or bundled) is a user module even where the std
        registry also knows its path (``cncf::otel::trace`` has both)."""
        if path in self.scopes:
            return self.scopes[path]
        loaded = self.loader(path, span) if self.loader else None
        if loaded is None and path in MODULES:
            return None
        if loaded is None:
            raise CompileError(f"Module `{'::'.join(path)}` not found", span, source=source)
        script, msource = loaded
        scope = _Scope(path, msource)
        self.scopes[path] = scope
        rewritten = self.resolve_items(script, scope)
        self.done.append(Module(path, rewritten, msource))
        return scope

    def absolute(self, scope: _Scope, written: ModPath, span: Span) -> ModPath | None:
        """The absolute module path of ``written`` (an alias path) or None if unknown."""
        if not written or written[0] not in scope.aliases:
            return None
        path = scope.aliases[written[0]]
        for part in written[1:]:
            sub = self.scopes.get(path)
            if sub is None:  # std module: nested paths are plain sub-modules
                path = path + (part,)
            elif part in sub.aliases:
                path = sub.aliases[part]
            else:
                return None
        return path

    # -- items ------------------------------------------------------------------------------

    def resolve_items(self, script: ast.Script, scope: _Scope) -> ast.Script:
        items = []
        for item in script.items:
            items.append(self.resolve_item(item, scope))
        return dataclasses.replace(script, items=tuple(items))

    def resolve_item(self, item: ast.TopLevel, scope: _Scope) -> ast.TopLevel:
        if isinstance(item, ast.Use):
            self.module_scope(item.path, item.span, scope.source)
            scope.aliases[item.alias] = item.path
            return item
        if isinstance(item, ast.FnDef):
            return self.resolve_fn(item, scope)
        if isinstance(item, ast.Intrinsic):
            scope.intrinsics[item.name] = item.target
            return item
        if isinstance(item, ast.Const):
            value = self.resolve_expr(item.value, scope)
            if item.name in scope.consts:
                raise CompileError(
                    f"Can't define the const `{item.name}` twice", item.span, source=scope.source
                )
            scope.consts.add(item.name)
            return dataclasses.replace(item, value=value, module=scope.path)
        if scope.source.mentions("recur"):  # else no ``recur`` anywhere in it: nothing to check
            _check_no_recur(item, scope.source)
        return self.resolve_expr(item, scope)

    def resolve_fn(self, fn: ast.FnDef, scope: _Scope) -> ast.FnDef:
        if fn.name in scope.fns:
            end = fn.span.end
            inner = Span(max(fn.span.start, end - 3), end)
            raise CompileError(
                f"Can't define the function `{fn.name}` twice",
                inner,
                outer=fn.span,
                source=scope.source,
            )
        _check_fn_recur(fn, scope.source)
        # Register first: the body may reach its own name only through ``recur``.
        body = tuple(self.resolve_expr(e, scope) for e in fn.body)
        cases = tuple(self.resolve_node(c, scope) for c in fn.cases)
        resolved = dataclasses.replace(fn, body=body, cases=cases, module=scope.path)
        scope.fns[fn.name] = resolved
        return resolved

    # -- expressions ------------------------------------------------------------------------

    def resolve_expr(self, expr: ast.Expr, scope: _Scope) -> ast.Expr:
        return self.resolve_node(expr, scope)  # type: ignore[return-value]

    def resolve_node(self, node: Node, scope: _Scope) -> Node:
        def visit(n: Node) -> Node:
            if isinstance(n, ast.Call):
                return self.resolve_call(n, scope)
            if isinstance(n, ast.Path):
                return self.resolve_path(n, scope)
            return n

        return transform(node, visit)

    def resolve_call(self, call: ast.Call, scope: _Scope) -> ast.Call:
        if not call.module:
            if call.name in scope.fns:
                return dataclasses.replace(call, module=scope.path)
            if call.name in scope.intrinsics:
                target = scope.intrinsics[call.name]
                return dataclasses.replace(call, module=target[:-1], name=target[-1])
            raise _undefined_fn(call, scope.source)
        path = self.absolute(scope, call.module, call.span)
        if path is not None:
            sub = self.scopes.get(path)
            if sub is None and "::".join(path + (call.name,)) in FUNCTIONS:
                return dataclasses.replace(call, module=path)
            if sub is not None and call.name in sub.fns:
                return dataclasses.replace(call, module=path)
            if sub is not None and call.name in sub.intrinsics:
                target = sub.intrinsics[call.name]
                return dataclasses.replace(call, module=target[:-1], name=target[-1])
        raise _undefined_fn(call, scope.source)

    def resolve_path(self, path: ast.Path, scope: _Scope) -> ast.Path:
        if path.root == "local" and path.name in scope.consts:
            return dataclasses.replace(path, root="const", module=scope.path)
        if path.root != "const":
            return path
        absolute = self.absolute(scope, path.module, path.span)
        if absolute is not None:
            sub = self.scopes.get(absolute)
            if sub is None and "::".join(absolute + (path.name or "",)) in CONSTANTS:
                return dataclasses.replace(path, module=absolute)
            if sub is not None and path.name in sub.consts:
                return dataclasses.replace(path, module=absolute)
        written = "::".join(path.module + (path.name or "",))
        span = _const_span(path)
        raise CompileError(
            f"The constant {written} (absolute path) is not defined.", span, source=scope.source
        )


def _const_span(path: ast.Path) -> Span:
    """The span of the constant reference without its trailing segments."""
    if path.segments and path.segments[0].span.start > path.span.start:
        return Span(path.span.start, path.segments[0].span.start)
    return path.span


def _undefined_fn(call: ast.Call, source: Source) -> CompileError:
    name = "::".join(call.module + (call.name,))
    return CompileError(f"Call to undefined function {name}", call.span, source=source)


# -- recur placement ------------------------------------------------------------------------


def _bad_recur(node: ast.Recur, source: Source) -> CompileError:
    outer = expand_lines(source.text, node.span.as_tuple(), 2, 2)
    return CompileError(
        "Can not recur from this location", node.span, outer=Span(*outer), source=source
    )


def _check_no_recur(node: Node, source: Source) -> None:
    """Raise for any ``recur`` below ``node``."""
    for n in node.walk():
        if isinstance(n, ast.Recur):
            raise _bad_recur(n, source)


def _check_tail(expr: Node, source: Source) -> None:
    """``expr`` is in tail position: a ``recur`` is fine here or in match arms' last exprs."""
    if isinstance(expr, ast.Recur):
        for arg in expr.args:
            _check_no_recur(arg, source)
        return
    if isinstance(expr, ast.Match):
        _check_no_recur(expr.target, source)
        for case in expr.cases:
            _check_body(case, source)
        return
    _check_no_recur(expr, source)


def _check_body(case: ast.MatchCase, source: Source) -> None:
    _check_no_recur(case.pattern, source)
    if case.guard is not None:
        _check_no_recur(case.guard, source)
    _check_seq(case.body, source)


def _check_seq(body: tuple[ast.Expr, ...], source: Source) -> None:
    for expr in body[:-1]:
        _check_no_recur(expr, source)
    if body:
        _check_tail(body[-1], source)


def _check_fn_recur(fn: ast.FnDef, source: Source) -> None:
    _check_seq(fn.body, source)
    for case in fn.cases:
        _check_body(case, source)


def resolve_script(
    script: ast.Script, source: Source, *, loader: Loader | None = None, path: ModPath = ()
) -> Resolved:
    """Resolve ``script`` (and the user modules it uses through ``loader``).

    Raises:
        CompileError: for the semantic errors listed in the module docstring.
    """
    resolver = _Resolver(loader)
    scope = _Scope(path, source)
    resolver.scopes[path] = scope
    rewritten = resolver.resolve_items(script, scope)
    return Resolved(rewritten, tuple(resolver.done))


def _loader_from(modules: object) -> Loader | None:
    """Adapt what the module loader produced (a mapping path -> module, or a callable)."""
    if modules is None:
        return None
    if callable(modules):
        return modules  # type: ignore[return-value]

    def load(path: ModPath, span: Span) -> tuple[ast.Script, Source] | None:
        found = modules.get(path)  # type: ignore[attr-defined]
        if found is None:
            return None
        if isinstance(found, tuple):
            return found  # type: ignore[return-value]
        return found.script, found.source

    return load


def resolve(script: ast.Script, source: Source, modules: object = None) -> ast.Script:
    """Resolve ``script`` and flatten the user modules it uses into it (see :meth:`Resolved.flat`).

    ``modules`` maps absolute module paths to loaded modules (objects with ``script`` and
    ``source``, or ``(script, source)`` pairs), or is a loader callable.
    """
    return resolve_script(script, source, loader=_loader_from(modules)).flat()
