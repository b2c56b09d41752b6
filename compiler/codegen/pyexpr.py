"""Expressions of tremor-script as Python expressions (with hoisted statements when needed).

``expr`` returns a Python expression string; constructs that need statements (``match``,
``for``, ``patch``, ``let`` inside expressions) write them to the current output first. Operands
are evaluated left to right: when a later operand writes statements, earlier operands are first
spilled into temporaries.
"""

from __future__ import annotations

from ..ast import script as ast
from ..source import Span
from .pybase import Base

# Python precedence of the forms we produce (higher binds tighter).
ATOM = 100

_NAMED_OPS = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "mod",
    "==": "eq",
    "!=": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "&": "band",
    "^": "bxor",
    "<<": "shl",
    ">>": "shr",
    ">>>": "lshr",
}

_ROOT_WORD = {"event": "event", "meta": "meta", "state": "state"}


def is_atomic(code: str) -> bool:
    """True for identifiers and simple literals (safe to evaluate twice or late)."""
    return code.isidentifier() or code in ("None", "True", "False") or _is_number(code)


def tuple_code(items: list[str]) -> str:
    """A Python tuple display: ``()``, ``(a,)``, ``(a, b)``."""
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def _is_number(code: str) -> bool:
    try:
        float(code)
    except ValueError:
        return False
    return not code.startswith(("-", "+"))


class ExprGen(Base):
    """Expression compilation (mixed into the script generator)."""

    # -- helpers ----------------------------------------------------------------------------

    def spill(self, code: str) -> str:
        """Evaluate ``code`` now into a temporary unless it is atomic."""
        if is_atomic(code):
            return code
        tmp = self.temp()
        self.line(f"{tmp} = {code}")
        return tmp

    def exprs(self, nodes: tuple[ast.Expr, ...]) -> list[str]:
        """Compile operands in order, keeping left-to-right evaluation when one hoists."""
        out: list[str] = []
        for node in nodes:
            with self.capture() as lines:
                code = self.expr(node)
            if lines:
                out = [self.spill(c) for c in out]
                self.out.extend(lines)
            out.append(code)
        return out

    # -- dispatch ---------------------------------------------------------------------------

    def expr(self, e: ast.Expr) -> str:
        method = getattr(self, "x_" + type(e).__name__, None)
        if method is None:
            raise NotImplementedError(f"no Python code generation for {type(e).__name__}")
        return method(e)

    def x_Literal(self, e: ast.Literal) -> str:
        return repr(e.value)

    def x_StringInterp(self, e: ast.StringInterp) -> str:
        exprs = [p for p in e.parts if not isinstance(p, str)]
        codes = iter(self.exprs(tuple(exprs)))
        pieces = []
        for part in e.parts:
            if isinstance(part, str):
                if part:
                    pieces.append(repr(part))
            else:
                pieces.append(f"{self.rt('interp_str')}({next(codes)})")
        if not pieces:
            return "''"
        if len(pieces) == 1 and not pieces[0].startswith(self.rt("interp_str")):
            return pieces[0]
        return "''.join((" + ", ".join(pieces) + ",))"

    def x_RecordLit(self, e: ast.RecordLit) -> str:
        nodes: list[ast.Expr] = []
        for f in e.fields:
            nodes.extend((f.key, f.value))
        codes = self.exprs(tuple(nodes))
        pairs = [f"{codes[i]}: {codes[i + 1]}" for i in range(0, len(codes), 2)]
        return "{" + ", ".join(pairs) + "}"

    def x_ArrayLit(self, e: ast.ArrayLit) -> str:
        return "[" + ", ".join(self.exprs(e.items)) + "]"

    def x_BinaryLit(self, e: ast.BinaryLit) -> str:
        codes = self.exprs(tuple(p.data for p in e.parts))
        parts = [f"({c}, {p.bits!r}, {p.kind!r})" for c, p in zip(codes, e.parts, strict=True)]
        return f"{self.rt('binary_lit')}({tuple_code(parts)}, {self.site(e.span)})"

    def x_Unary(self, e: ast.Unary) -> str:
        operand = self.expr(e.operand)
        site = self.site(e.operand.span, e.span)
        return f"{self.rt('unary')}({e.op!r}, {operand}, {site})"

    def x_Binary(self, e: ast.Binary) -> str:
        if e.op in ("and", "or"):
            return self.logical(e)
        left, right = self.exprs((e.left, e.right))
        if e.op == "xor":
            # Tremor underlines the operand that is not a bool.
            sites = f"{self.site(e.left.span, e.span)}, {self.site(e.right.span, e.span)}"
            return f"{self.rt('xor_bool')}({left}, {right}, {sites})"
        site = self.site(e.span)
        return f"{self.rt(_NAMED_OPS[e.op])}({left}, {right}, {site})"

    def logical(self, e: ast.Binary) -> str:
        """Short-circuit ``and``/``or``: the right side only runs when needed; a non-bool
        operand is underlined on its own, as Tremor does."""
        site = self.site(e.left.span, e.span)
        left = f"{self.rt('check_bool')}({self.expr(e.left)}, {e.op!r}, {site})"
        site = self.site(e.right.span, e.span)
        with self.capture() as lines:
            right = self.expr(e.right)
        decided = "True" if e.op == "and" else "False"
        right = f"{self.rt('check_bool_rhs')}({decided}, {right}, {e.op!r}, {site})"
        if not lines:
            return f"({left} {e.op} {right})"
        tmp = self.temp()
        self.line(f"{tmp} = {left}")
        self.line(f"if {'' if e.op == 'and' else 'not '}{tmp}:")
        with self.indented():
            self.out.extend("    " + ln for ln in lines)
            self.line(f"{tmp} = {right}")
        return tmp

    def x_Present(self, e: ast.Present) -> str:
        path = e.path
        site = self.site(path.span)
        base = self.path_root(path, checked=False)
        segs = self.segment_keys(path.segments, for_present=True)
        test = f"{self.rt('present')}({base}, {tuple_code(segs)}, {site})"
        if path.root == "local" and not self.is_definite(path.name or ""):
            test = f"({base} is not {self.rt('UNSET')} and {test})"
        if e.negated:
            return f"(not {test})"
        return test

    # -- paths ------------------------------------------------------------------------------

    def is_definite(self, name: str) -> bool:
        return self.local(name) in self.fn.assigned

    def path_root(self, p: ast.Path, checked: bool = True) -> str:
        """The Python expression of a path's root value."""
        root = p.root
        if root in ("event", "meta", "state"):
            return root if self.fn.is_entry else "None"
        if root == "args":
            return "ctx.args" if self.fn.is_entry else "args"
        if root in ("group", "window"):
            return f"ctx.{root}"
        if root == "local":
            ident = self.local(p.name or "")
            if not checked or ident in self.fn.assigned:
                return ident
            span = p.span if not p.segments else Span(p.span.start, p.segments[0].span.start)
            return f"{self.rt('need')}({ident}, {p.name!r}, {self.site(span, p.span)})"
        if root == "const":
            return self.const_ref(p)
        assert p.expr is not None
        return self.expr(p.expr)

    def const_ref(self, p: ast.Path) -> str:
        name = p.name or ""
        if p.module and self.is_std_module(p.module):
            return self.std_const("::".join(p.module + (name,)))
        return self.names.get("const", p.module + (name,))

    def is_std_module(self, module: tuple[str, ...]) -> bool:
        return module not in self.user_modules

    def x_Path(self, p: ast.Path) -> str:
        code = self.path_root(p)
        word = _ROOT_WORD.get(p.root, "local")
        for seg in p.segments:
            code = self.segment(code, seg, word, p.span)
        return code

    def segment(self, base: str, seg: ast.Segment, word: str, outer: Span) -> str:
        if isinstance(seg, ast.FieldSeg):
            site = self.site(self.field_span(seg), outer)
            return f"{self.rt('get_field')}({base}, {seg.name!r}, {word!r}, {site})"
        if isinstance(seg, ast.IndexSeg):
            base = self.spill_if_hoisting(base, (seg.index,))
            site = self.site(seg.index.span, outer)
            return f"{self.rt('get_index')}({base}, {self.expr(seg.index)}, {word!r}, {site})"
        assert isinstance(seg, ast.RangeSeg)
        base = self.spill_if_hoisting(base, (seg.start, seg.end))
        start, end = self.exprs((seg.start, seg.end))
        site = self.site(seg.start.span.to(seg.end.span), outer)
        s_site = self.site(seg.start.span, outer)
        e_site = self.site(seg.end.span, outer)
        return f"{self.rt('get_range')}({base}, {start}, {end}, {site}, {s_site}, {e_site})"

    def spill_if_hoisting(self, base: str, nodes: tuple[ast.Expr, ...]) -> str:
        """Spill ``base`` when one of ``nodes`` needs statements (keeps evaluation order)."""
        if any(isinstance(n, (ast.Match, ast.For, ast.Patch, ast.Let)) for n in nodes):
            return self.spill(base)
        return base

    def segment_keys(self, segs: tuple[ast.Segment, ...], for_present: bool = False) -> list[str]:
        """Keys of a path's segments: field names, index values, ``(start, end)`` for ranges
        (or the index-segment marker in assignment targets, for ranges and literal indices, which
        Tremor makes array segments)."""
        keys = []
        for seg in segs:
            if isinstance(seg, ast.FieldSeg):
                keys.append(repr(seg.name))
            elif isinstance(seg, ast.IndexSeg) and (for_present or not _is_index(seg.index)):
                keys.append(self.expr(seg.index))
            elif for_present:
                start, end = self.exprs((seg.start, seg.end))
                keys.append(f"({start}, {end})")
            else:
                keys.append(self.rt("INDEX_SEGMENT"))
        return keys

    # -- calls ------------------------------------------------------------------------------

    def x_Call(self, e: ast.Call) -> str:
        args = self.exprs(e.args)
        site = self.site(e.span, e.span, expand=2)
        if e.module in self.user_modules or not e.module:
            fn = self.names.get("fn", e.module + (e.name,))
            return f"{fn}(ctx, {site}{''.join(', ' + a for a in args)})"
        binding = self.std_fn("::".join(e.module + (e.name,)))
        arglist = tuple_code(args)
        return f"{self.rt('call')}({binding}, {arglist}, ctx, {site})"


def _is_index(e: ast.Expr) -> bool:
    """A literal non-negative integer: Tremor's array-index segment, not a key."""
    return isinstance(e, ast.Literal) and type(e.value) is int and e.value >= 0
