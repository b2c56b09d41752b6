"""tremor-script → Python source (the fallback backend of the job).

Needs: a script after :func:`compiler.passes.resolve.resolve` (calls and constants absolute,
user-module functions and constants flattened in with their ``module`` set). Produces module-level
definitions only: std-lib bindings, compiled extractors, tremor functions, constants and the entry
function ``<prefix>_run(event, meta, state, ctx) -> (port, value, meta, state)``.

>>> from compiler.ast import script as ast
>>> g = generate_script(ast.Script(items=(ast.Literal(value=1),)), Source("t", "1"))
>>> print(g.code.strip())
def script_run(event, meta, state, ctx):
    # line 1
    return 'out', 1, meta, state
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..ast import script as ast
from ..source import Source
from .pybase import INDENT, FnState
from .pypatterns import PatternGen


@dataclass(frozen=True)
class GeneratedScript:
    """Generated Python for one script (see the module docstring for the contract)."""

    code: str
    imports: tuple[str, ...]
    entry: str
    sites: tuple[tuple[int, int, int, int], ...]


class ScriptGen(PatternGen):
    """Generates the whole module text of one script."""

    def __init__(self, source: Source, prefix: str, script: ast.Script) -> None:
        super().__init__(source, prefix)
        self.user_modules: set[tuple[str, ...]] = {()}
        for item in script.items:
            if isinstance(item, (ast.FnDef, ast.Const)):
                self.user_modules.add(item.module)

    # -- top level --------------------------------------------------------------------------

    def generate(self, script: ast.Script) -> GeneratedScript:
        defs: list[str] = []
        exprs: list[ast.Expr] = []
        last_value: ast.TopLevel | None = None
        for item in script.items:
            if isinstance(item, ast.FnDef):
                defs.extend(self.function(item))
                defs.append("")
            elif isinstance(item, ast.Const):
                defs.append(self.const(item))
                if not item.module:
                    last_value = item
            elif isinstance(item, ast.Expr):
                exprs.append(item)
                last_value = item
        entry = f"{self.prefix}_run"
        body = self.entry(exprs, last_value)
        if self.assigns_state:  # set by every compiled `let` into `state` (StmtGen.let)
            body = self.keep_state_on_error(body)
        lines = self.module_lines + ([""] if self.module_lines else []) + defs
        lines.append(f"def {entry}(event, meta, state, ctx):")
        lines.extend(body)
        code = "\n".join(lines) + "\n"
        return GeneratedScript(code, tuple(sorted(self.imports)), entry, tuple(self.sites))

    def keep_state_on_error(self, body: list[str]) -> list[str]:
        """Wrap the entry body so a runtime error carries the ``state`` reached so far (Tremor
        mutates state in place: assignments made before an error persist)."""
        error = self.rt("TremorError")
        return [
            f"{INDENT}try:",
            *(INDENT + line for line in body),
            f"{INDENT}except {error} as err:",
            f"{INDENT * 2}err.state = state",
            f"{INDENT * 2}raise",
        ]

    def const(self, item: ast.Const) -> str:
        self.in_module = bool(item.module)
        self.fn = FnState(is_entry=False)
        with self.capture() as pre:
            value = self.expr(item.value)
        self.in_module = False
        ident = self.names.get("const", item.module + (item.name,))
        if pre or "ctx" in value:  # needs statements or a context: evaluate in a helper
            helper = f"_init_{ident}"
            body = [f"def {helper}(ctx=None, args=None):"] + [INDENT + x for x in pre]
            return "\n".join(body + [f"{INDENT}return {value}", f"{ident} = {helper}()"])
        return f"{ident} = {value}"

    def entry(self, exprs: list[ast.Expr], last: ast.TopLevel | None) -> list[str]:
        self.fn = FnState(is_entry=True)
        self.out = []
        self.depth = 1
        for i, e in enumerate(exprs):
            self.line(f"# line {self.source.line_col(e.span.start)[0]}")
            if i < len(exprs) - 1 or last is not e:
                self.stmt(e)
        if last is None or not isinstance(last, ast.Expr) or isinstance(last, ast.FnDef):
            self.line("return 'out', event, meta, state")
        elif isinstance(last, ast.Const):
            self.line(f"return 'out', {self.names.get('const', (last.name,))}, meta, state")
        else:
            self.tail(last, lambda code: self.line(f"return 'out', {code}, meta, state"))
        return self.prologue() + self.out

    def prologue(self) -> list[str]:
        """``UNSET`` initialisation of the plain locals the body uses."""
        idents = sorted(self.fn.plain_locals - set(self.fn.param_idents))
        if not idents:
            return []
        return [INDENT + " = ".join(idents) + f" = {self.rt('UNSET')}"]

    # -- functions --------------------------------------------------------------------------

    def function(self, fn: ast.FnDef) -> list[str]:
        self.in_module = bool(fn.module)
        params = tuple(self.names.get("local", (p,)) for p in fn.params)
        self.fn = FnState(is_entry=False, params=fn.params, param_idents=params)
        self.out = []
        self.depth = 2
        if fn.cases:
            self.match_fn(fn)
        else:
            self.body(fn.body, lambda code: self.line(f"return {code}"))
        body = self.out
        self.in_module = False
        name = self.names.get("fn", fn.module + (fn.name,))
        unset = self.rt("UNSET")
        sig = "".join(f", {p}={unset}" for p in params)
        head = [f"def {name}(ctx, site{sig}, *args):"]
        head.append(f"{INDENT}{_doc(fn)}")
        head.extend(self.prologue())
        if fn.varargs or _uses_args(fn):
            head.append(f"{INDENT}args = list(args)")
        if not self.fn.uses_depth:
            return head + [line[len(INDENT) :] for line in body]
        head.append(f"{INDENT}_depth = 0")
        head.append(f"{INDENT}while True:")
        return head + body

    def match_fn(self, fn: ast.FnDef) -> None:
        """``fn f(a, b) of case (pa, pb) … end``: the arguments matched as a tuple; extracted
        values rebind the parameters inside their clause."""
        params = self.fn.param_idents
        subject = self.temp()
        self.line(f"{subject} = [{', '.join(params)}]")
        cases = tuple(_as_tuple_case(c, len(params)) for c in fn.cases)
        site = self.site(fn.span)
        finish = lambda code: self.line(f"return {code}")  # noqa: E731
        self.fn_clauses(cases, subject, fn.params, finish, site)

    def fn_clauses(self, cases, subject, names, finish, site) -> None:  # type: ignore[no-untyped-def]
        keyword = "if"
        for case in cases:
            shadows: dict[str, str] = {}
            cond, value = self.pattern(case.pattern, subject, shadows, want=True)
            rebinding = _rebinding(case.pattern, names)
            binds = {}
            parts = [cond] if cond != "True" else []
            for index, name in rebinding:
                ident = self.names.fresh("shadow", (name,))
                binds[name] = ident
                parts.append(f"({ident} := {value}[{index}]) is not {self.rt('NO_MATCH')}")
            shadows.update(binds)
            if case.guard is not None:
                with self.shadowing(shadows):
                    g = self.expr(case.guard)
                parts.append(f"{self.rt('guard')}({g}, {self.site(case.guard.span)})")
            test = " and ".join(parts) if parts else "True"
            self.line("else:" if test == "True" and keyword == "elif" else f"{keyword} {test}:")
            with self.shadowing(shadows), self.indented(), self.branch():
                self.body(case.body, finish)
            if test == "True":
                return
            keyword = "elif"
        self.line("else:")
        with self.indented():
            self.line(f"raise {self.rt('no_clause')}({site})")


def _doc(fn: ast.FnDef) -> str:
    """The docstring literal: user names are data, so anything unusual goes through repr()."""
    params = list(fn.params) + (["..."] if fn.varargs else [])
    text = f"Tremor fn {fn.name}({', '.join(params)})."
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"""{text}"""'
    return repr(text)


def _uses_args(fn: ast.FnDef) -> bool:
    return any(isinstance(n, ast.Path) and n.root == "args" for n in fn.walk())


def _as_tuple_case(case: ast.MatchCase, arity: int) -> ast.MatchCase:
    """Match-function clauses are tuple patterns over the arguments (``_`` stays as is)."""
    return case


def _rebinding(p: ast.Pattern, names: Iterable[str]) -> list[tuple[int, str]]:
    """Parameters whose value a clause replaces by an extracted or sub-pattern value."""
    if not isinstance(p, ast.TuplePattern):
        return []
    out = []
    for i, (element, name) in enumerate(zip(p.elements, names, strict=False)):
        if not isinstance(element, (ast.AnyPattern, ast.ExprPattern)):
            out.append((i, name))
    return out


def generate_script(
    script: ast.Script,
    source: Source,
    *,
    prefix: str = "script",
    modules: object = None,
    meta_unread: bool = False,
) -> GeneratedScript:
    """Generate the Python module text for ``script`` (``modules`` is accepted for interface
    compatibility; resolved scripts already contain their user-module items; ``meta_unread``:
    nothing reads the ``$`` it leaves with, so ``let $key = v`` only evaluates ``v``)."""
    gen = ScriptGen(source, prefix, script)
    gen.meta_unread = meta_unread
    return gen.generate(script)
