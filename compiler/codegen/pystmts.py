"""Statement forms of tremor-script: ``let``, ``emit``, ``drop``, ``for``, ``patch``, ``merge``,
``recur``, and the statement/tail dispatch shared by scripts, functions and clause bodies.

Tail protocol: ``tail(expr, finish)`` compiles ``expr`` whose value is the result of the
enclosing construct and calls ``finish(code)`` on every path that produces a value (``recur``,
``emit`` and ``drop`` leave instead). ``stmt(expr)`` compiles an expression whose value is not
needed: pure expressions are skipped entirely, as Tremor does.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ast import script as ast
from ..source import Span
from .pyexpr import ExprGen, is_atomic, tuple_code

Finish = Callable[[str], None]

_EFFECTS = (ast.Let, ast.Emit, ast.Drop)


class StmtGen(ExprGen):
    """Statements, loops and the tail protocol (mixed into the script generator)."""

    # -- sequences --------------------------------------------------------------------------

    def stmt(self, e: ast.Expr) -> None:
        """``e`` for its effects only (pure expressions are not evaluated)."""
        if isinstance(e, ast.Let):
            self.let(e, need=False)
        elif isinstance(e, (ast.Emit, ast.Drop)):
            self.leave(e)
        elif isinstance(e, ast.Match) and e.mutable:
            self.match(e, None)
        elif isinstance(e, ast.For) and e.mutable:
            self.for_(e, None)

    def body(self, exprs: tuple[ast.Expr, ...], finish: Finish | None) -> None:
        """A clause body: all but the last for effects, the last as the tail (if wanted)."""
        start = len(self.out)
        for e in exprs[:-1]:
            self.stmt(e)
        if not exprs:
            if finish is not None:
                finish("None")
        elif finish is None:
            self.stmt(exprs[-1])
        else:
            self.tail(exprs[-1], finish)
        if len(self.out) == start:
            self.line("pass")

    def tail(self, e: ast.Expr, finish: Finish) -> None:
        if isinstance(e, ast.Recur):
            self.recur(e)
        elif isinstance(e, (ast.Emit, ast.Drop)):
            self.leave(e)
        elif isinstance(e, ast.Match):
            self.match(e, finish)
        elif isinstance(e, ast.For):
            self.for_(e, finish)
        elif isinstance(e, ast.Let):
            finish(self.let(e, need=True) or "None")
        else:
            finish(self.expr(e))

    def into_temp(self, compile_: Callable[[Finish], None]) -> str:
        """Run a tail-compiling construct and return a temporary holding its value."""
        tmp = self.temp()
        compile_(lambda code: self.line(f"{tmp} = {code}"))
        return tmp

    # -- expression-position statements -----------------------------------------------------

    def x_Match(self, e: ast.Match) -> str:
        return self.into_temp(lambda fin: self.match(e, fin))

    def x_For(self, e: ast.For) -> str:
        result: list[str] = []
        self.for_(e, result.append)
        return result[0]

    def x_Let(self, e: ast.Let) -> str:
        return self.let(e, need=True) or "None"

    def x_Emit(self, e: ast.Emit) -> str:
        self.leave(e)
        return "None"

    x_Drop = x_Emit

    def x_Recur(self, e: ast.Recur) -> str:
        self.recur(e)
        return "None"

    # -- emit / drop ------------------------------------------------------------------------

    def leave(self, e: ast.Emit | ast.Drop) -> None:
        if isinstance(e, ast.Drop):
            self.line("return None, None, meta, state")
            return
        nodes = tuple(x for x in (e.value, e.port) if x is not None)
        codes = self.exprs(nodes)
        value = codes[0] if e.value is not None else "event"
        port = codes[-1] if e.port is not None else "'out'"
        self.line(f"return {port}, {value}, meta, state")

    # -- let --------------------------------------------------------------------------------

    def let(self, e: ast.Let, need: bool) -> str | None:
        """Compile an assignment; return an expression for the stored value if ``need``."""
        target = e.target
        if target.root == "state":
            self.assigns_state = True
        if target.root == "event":
            self.fn.read_ok = set()
            self.fn.event_stores += 1
        if not need and self.meta_unread and self.fn.is_entry and ast.is_meta_key(target):
            # a dead store (``$`` is a record, so it cannot fail): only the value's errors stay,
            # none for a read of ``event`` that already succeeded on every way here
            read = event_field(e.value)
            if not isinstance(e.value, ast.Literal) and read not in self.fn.read_ok:
                value = self.expr(e.value)
                if not is_atomic(value):
                    self.line(value)
                if read is not None:
                    self.fn.read_ok.add(read)
            return None
        site = self.site(Span(target.span.start, e.value.span.end), expand=2)
        value = self.expr(e.value)
        if (
            target.root not in ("local", "event", "meta", "state")
            or not self.fn.is_entry
            and (target.root != "local")
        ):
            self.line(f"raise {self.rt('bad_assign')}({site})")
            return None
        if target.root == "meta" and not target.segments:
            msg = "You are trying to assign to a value that isn't valid"
            self.line(f"raise {self.rt('bad_assign')}({site}, {msg!r})")
            return None
        if target.root == "local":
            ident = self.local(target.name or "")
        else:
            ident = target.root
        if not target.segments:
            self.line(f"{ident} = {value}")
            if target.root == "local":
                self.fn.assigned.add(ident)
            return ident if need else None
        if need and not is_atomic(value):
            value = self.spill(value)
        base = ident
        if target.root == "local" and ident not in self.fn.assigned:
            name_span = Span(target.span.start, target.segments[0].span.start)
            base = f"{self.rt('need')}({ident}, {target.name!r}, {self.site(name_span)})"
        keys = self.segment_keys(target.segments)
        if len(target.segments) == 1 and isinstance(target.segments[0], ast.FieldSeg):
            # one field: the copy-on-write store without assign's walk (same result and errors)
            self.line(f"{ident} = {self.rt('assign_key')}({base}, {keys[0]}, {value}, {site})")
            return value if need else None
        key_tuple = tuple_code(keys)
        self.line(f"{ident} = {self.rt('assign')}({base}, {key_tuple}, {value}, {site})")
        return value if need else None

    # -- recur ------------------------------------------------------------------------------

    def recur(self, e: ast.Recur) -> None:
        """Rebind the parameters and jump back to the top of the function body."""
        args = [self.spill(a) for a in self.exprs(e.args)]
        params = self.fn.param_idents
        self.fn.uses_depth = True
        site = "site"
        self.line("_depth += 1")
        self.line("if _depth > ctx.recursion_limit:")
        with self.indented():
            self.line(f"raise {self.rt('recursion_limit')}({site})")
        unset = self.rt("UNSET")
        values = [args[i] if i < len(args) else unset for i in range(len(params))]
        if params:
            self.line(f"{', '.join(params)} = {', '.join(values)}")
        self.line("continue")

    # -- for --------------------------------------------------------------------------------

    def for_(self, e: ast.For, finish: Finish | None) -> None:
        target = self.spill(self.expr(e.target))
        acc = self.temp()
        op = e.fold_op or "+"
        if e.into is None:
            self.line(f"{acc} = []")
        else:
            self.line(f"{acc} = {self.rt('fold_init')}({self.expr(e.into)})")
        key, val = self.temp(), self.temp()
        self.line(f"for {key}, {val} in {self.rt('items_of')}({target}):")
        with self.indented(), self.loop_body():
            for i, case in enumerate(e.cases):
                self.for_case(e, case, i, key, val, acc, op, finish is not None)
                if case.guard is None:
                    break  # later cases are unreachable
            if e.into is not None and op in ("and", "or"):
                self.line(f"if {self.rt('fold_stops')}({acc}, {op!r}):")
                with self.indented():
                    self.line("break")
        if finish is not None:
            finish(acc)

    def for_case(
        self,
        e: ast.For,
        case: ast.ForCase,
        i: int,
        key: str,
        val: str,
        acc: str,
        op: str,
        want: bool,
    ) -> None:
        shadows = {case.key: key, case.value: val}
        with self.shadowing(shadows):
            if case.guard is not None:
                cond = f"{self.rt('guard')}({self.expr(case.guard)}, {self.site(case.guard.span)})"
                self.line(f"{'if' if i == 0 else 'elif'} {cond}:")
            elif i == 0:
                self.line("if True:")
            else:
                self.line("else:")
            with self.indented():
                last = case.body[-1] if case.body else None
                site = self.site(last.span, e.span) if last is not None else -1

                def finish(code: str) -> None:
                    if e.into is None:
                        self.line(f"{acc}.append({code})")
                    else:
                        step = f"{self.rt('fold_step')}({acc}, {code}, {op!r}, {site})"
                        self.line(f"{acc} = {step}")

                self.body(case.body, finish if want else None)

    # -- patch / merge ----------------------------------------------------------------------

    def x_Patch(self, e: ast.Patch) -> str:
        target = self.expr(e.target)
        target_site = self.site(e.target.span, e.span)
        ops = []
        for op in e.ops:
            site = self.site(op.span, e.span)
            lazy = op.kind in ("default", "default_record")
            nodes = tuple(x for x in (op.key, op.to) if x is not None)
            if op.value is not None and not lazy:
                nodes += (op.value,)
            codes = iter(self.exprs(nodes))
            key = next(codes) if op.key is not None else "None"
            to = next(codes) if op.to is not None else None
            if lazy:
                value = self.lazy(op.value) if op.value is not None else "None"
            else:
                value = next(codes) if op.value is not None else "None"
            ops.append(f"({op.kind!r}, {key}, {to if to is not None else value}, {site})")
        op_tuple = tuple_code(ops)
        return f"{self.rt('patch')}({target}, {op_tuple}, {target_site})"

    def lazy(self, e: ast.Expr) -> str:
        """A zero-argument lambda for a value evaluated only if needed."""
        with self.capture() as lines:
            code = self.expr(e)
        if lines:  # needs statements: evaluate eagerly (still correct for pure expressions)
            self.out.extend(lines)
        return f"lambda: {code}"

    def x_Merge(self, e: ast.Merge) -> str:
        target, spec = self.exprs((e.target, e.spec))
        t_site = self.site(e.target.span, e.span)
        s_site = self.site(e.spec.span, e.span)
        return f"{self.rt('merge')}({target}, {spec}, {t_site}, {s_site})"


def event_field(e: ast.Expr) -> tuple[str, ...] | None:
    """The field names of ``e`` when it is a path of fields into ``event`` (``event.a.b``)."""
    if not isinstance(e, ast.Path) or e.root != "event" or not e.segments:
        return None
    if not all(isinstance(seg, ast.FieldSeg) for seg in e.segments):
        return None
    return tuple(seg.name for seg in e.segments)  # type: ignore[attr-defined]
