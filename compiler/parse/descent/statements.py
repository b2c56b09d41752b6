"""The descent parser's rules of a script's items (``use``, ``const``, ``fn``, ``intrinsic``) and
statements (``let``, ``emit``, ``drop``, ``match``, ``for`` and their case bodies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ast import script as ast
from ...source import Span
from .lexical import _FOLD_OPS, _FOLD_WORDS, _ITEM_WORDS, _WORD, Fail, Lexical, Unsupported


class Statements(Lexical):
    """Items and statements, one method per grammar rule."""

    def script_items(self, pos: int) -> tuple[list[Any], int]:
        """``item (_ ";" _ item)* (_ ";")?``: the items, ``use`` groups spliced in (Fail: the
        first item's, the only one :meth:`item` raises)."""
        first, end = self.item(pos)
        more, end = self._more(end, self.item, ";")
        items: list[Any] = []
        for value in (first, *more):
            items.extend(value) if isinstance(value, list) else items.append(value)
        at = self.ws(end)
        return items, at + 1 if self.text.startswith(";", at) else end

    def _item_start(self, pos: int) -> None:
        if not self._can_start_expr(pos) and self.word(pos) not in _ITEM_WORDS:
            raise Fail

    def item(self, pos: int) -> tuple[Any, int]:
        """``use_stmt / const_stmt / fn_def / intrinsic_def / expr``."""
        self._item_start(pos)
        word = self.word(pos)
        try:
            if word == "use":
                return self.use_stmt(pos)
            if word == "const":
                return self.const_stmt(pos)
            if word == "fn":
                return self.fn_def(pos)
            if word == "intrinsic":
                return self.intrinsic_def(pos)
            return self.expr(pos)
        except Fail:
            raise Unsupported from None

    def use_stmt(self, pos: int) -> tuple[list[ast.Use], int]:
        trees, end = self.use_tree(self.ws(pos + 3))
        span = Span(pos, end)
        return [ast.Use(path=p, alias=a, path_span=s, span=span) for p, a, s in trees], end

    def use_tree(self, pos: int) -> tuple[list[tuple[tuple[str, ...], str, Span]], int]:
        """``ident (_ "::" _ ident)* use_tail?``: (path, alias, path span) of each use."""
        names, end = self._module_path(pos)
        prefix = tuple(names)
        path_span = Span(pos, end)
        at = self.ws(end)
        text = self.text
        if text.startswith("::", at):  # use_group
            at = self.expect("{", self.ws(at + 2))
            entries, at = self.use_tree(self.ws(at))
            while True:
                comma = self.ws(at)
                if not text.startswith(",", comma):
                    break
                inner = self.ws(comma + 1)
                if not self._starts_ident(inner):
                    break
                more, at = self.use_tree(inner)
                entries.extend(more)
            comma = self.ws(at)
            if text.startswith(",", comma):
                at = comma + 1
            end = self.expect("}", self.ws(at))
            return [(prefix + path, alias, span) for path, alias, span in entries], end
        if self.word(at) == "as":
            alias, end = self.ident(self.ws(at + 2))
            return [(prefix, alias, path_span)], end
        return [(prefix, prefix[-1], path_span)], end

    def const_stmt(self, pos: int) -> tuple[ast.Const, int]:
        name, at = self.ident(self.ws(pos + 5))
        at = self.expect("=", self.ws(at))
        value, end = self.expr_imut(self.ws(at))
        const = ast.Const(name=name, value=value, doc=self.doc_before(pos), span=Span(pos, end))
        return const, end

    def fn_def(self, pos: int) -> tuple[ast.FnDef, int]:
        """``fn _ ident _ "(" _ fn_params? _ ")" _ (fn_with / fn_of)``."""
        name, at = self.ident(self.ws(pos + 2))
        params, varargs, at = self._fn_params(self.ws(at))
        at = self.ws(at)
        doc = self.doc_before(pos)
        word = self.word(at)
        if word == "with":
            body, at = self.exprs(self.ws(at + 4))
            end = self.expect_word("end", self.ws(at))
            node = ast.FnDef(
                name=name, params=params, varargs=varargs, body=body, doc=doc, span=Span(pos, end)
            )
            return node, end
        at = self.ws(self.expect_word("of", at))
        cases = []
        while self.word(at) == "case":
            case, at = self.fn_case(at)
            cases.append(case)
        if self.text.startswith("_", at) and not _WORD.match(self.text, at + 1):
            body, after = self.exprs(self.ws(self.expect("=>", self.ws(at + 1))))
            after = self.ws(after)
            any_ = ast.AnyPattern(span=Span(at, at + 1))
            cases.append(ast.MatchCase(pattern=any_, guard=None, body=body, span=Span(at, after)))
            at = after
        end = self.expect_word("end", at)
        node = ast.FnDef(
            name=name,
            params=params,
            varargs=varargs,
            cases=tuple(cases),
            doc=doc,
            span=Span(pos, end),
        )
        return node, end

    def _fn_params(self, pos: int) -> tuple[tuple[str, ...], bool, int]:
        """``"(" _ (varargs / (ident (_ "," _ ident)* (_ "," _ varargs)?))? _ ")"``: the
        names, whether ``...`` ends them, and the end of the ``)``."""
        text, ws = self.text, self.ws
        at = ws(self.expect("(", pos))
        names: list[str] = []
        varargs = False
        if text.startswith("...", at):
            varargs, at = True, at + 3
        elif self._starts_ident(at):
            name, at = self.ident(at)
            names.append(name)
            while True:
                comma = ws(at)
                if not text.startswith(",", comma):
                    break
                after = ws(comma + 1)
                if text.startswith("...", after):
                    varargs, at = True, after + 3
                    break
                try:
                    name, at2 = self.ident(after)
                except Fail:
                    break
                names.append(name)
                at = at2
        end = self.expect(")", ws(at))
        return tuple(names), varargs, end

    def fn_case(self, pos: int) -> tuple[ast.MatchCase, int]:
        """``case _ (any_pattern / fn_tuple) _ guard? "=>" _ exprs _``."""
        at = self.ws(pos + 4)
        text = self.text
        if text.startswith("_", at) and not _WORD.match(text, at + 1):
            pattern: ast.Pattern = ast.AnyPattern(span=Span(at, at + 1))
            at += 1
        elif text.startswith("(", at):
            pattern, at = self.tuple_pattern(at, 1)
        else:
            raise Unsupported
        guard, at = self._guard(self.ws(at))
        body, at = self.exprs(self.ws(self.expect("=>", at)))
        end = self.ws(at)
        return ast.MatchCase(pattern=pattern, guard=guard, body=body, span=Span(pos, end)), end

    def intrinsic_def(self, pos: int) -> tuple[ast.Intrinsic, int]:
        """``intrinsic _ fn _ ident _ "(" _ fn_params? _ ")" _ as _ module_path``."""
        at = self.ws(self.expect_word("fn", self.ws(pos + 9)))
        name, at = self.ident(at)
        params, varargs, at = self._fn_params(self.ws(at))
        at = self.ws(self.expect_word("as", self.ws(at)))
        target, end = self._module_path(at)
        node = ast.Intrinsic(
            name=name,
            params=params,
            varargs=varargs,
            target=tuple(target),
            doc=self.doc_before(pos),
            span=Span(pos, end),
        )
        return node, end

    def expr(self, pos: int) -> tuple[ast.Expr, int]:
        """``let_expr / emit_expr / drop_expr / match_mut / for_mut / expr_imut``."""
        word = self.word(pos)
        if word == "let":
            return self._guarded(self.let_expr, pos)
        if word == "emit":
            return self._guarded(self.emit_expr, pos)
        if word == "drop":
            return ast.Drop(span=Span(pos, pos + 4)), pos + 4
        if word == "match":
            return self._guarded(self.match, pos, True)
        if word == "for":
            return self._guarded(self.for_, pos, True)
        return self.expr_imut(pos)

    def let_expr(self, pos: int) -> tuple[ast.Let, int]:
        """``let _ path _ "=" !"=" !">" _ expr`` (an indexed-expression target: Unsupported)."""
        target, at = self.path(self.ws(pos + 3))
        at = self.ws(at)
        text = self.text
        if not text.startswith("=", at) or text[at + 1 : at + 2] in ("=", ">"):
            raise Unsupported
        value, end = self.expr(self.ws(at + 1))
        return ast.Let(target=target, value=value, span=Span(pos, end)), end

    def emit_expr(self, pos: int) -> tuple[ast.Emit, int]:
        """``emit (_ !"=>" expr_imut)? (_ "=>" _ expr_imut)?``."""
        end = pos + 4
        value = port = None
        at = self.ws(end)
        text = self.text
        if not text.startswith("=>", at):
            try:
                value, end = self.expr_imut(at)
            except Fail:
                pass
            at = self.ws(end)
        if text.startswith("=>", at):
            try:
                port, end = self.expr_imut(self.ws(at + 2))
            except Fail:
                pass
        return ast.Emit(value=value, port=port, span=Span(pos, end)), end

    def match(self, pos: int, mutable: bool) -> tuple[ast.Match, int]:
        """``match _ expr_imut _ of _ case+ end`` (cases: ``exprs`` or ``imut_exprs``)."""
        target, cases, at = self._cases(pos + 5, self.match_case, mutable)
        end = self.expect_word("end", at)
        node = ast.Match(target=target, cases=cases, mutable=mutable, span=Span(pos, end))
        return node, end

    def _cases(
        self, pos: int, case: Callable[[int, bool], tuple[Any, int]], mutable: bool
    ) -> tuple[ast.Expr, tuple[Any, ...], int]:
        """``_ expr_imut _ of _ case+`` after ``match`` or ``for``: the target, the cases and
        the position after them."""
        target, at = self.expr_imut(self.ws(pos))
        at = self.ws(self.expect_word("of", self.ws(at)))
        cases = []
        while self.word(at) == "case":
            found, at = case(at, mutable)
            cases.append(found)
        if not cases:
            raise Unsupported
        return target, tuple(cases), at

    def match_case(self, pos: int, mutable: bool) -> tuple[ast.MatchCase, int]:
        """``case _ pattern_top _ guard? "=>" _ body _`` (the span ends after the last ``_``)."""
        pattern, at = self.pattern_top(self.ws(pos + 4))
        guard, at = self._guard(self.ws(at))
        body, at = self._body(self.ws(self.expect("=>", at)), mutable)
        end = self.ws(at)
        return ast.MatchCase(pattern=pattern, guard=guard, body=body, span=Span(pos, end)), end

    def _guard(self, pos: int) -> tuple[ast.Expr | None, int]:
        """``guard?`` = ``(when _ expr_imut _)?`` at ``pos``: the guard and what follows it."""
        if self.word(pos) != "when":
            return None, pos
        guard, at = self.expr_imut(self.ws(pos + 4))
        return guard, self.ws(at)

    def _body(self, pos: int, mutable: bool) -> tuple[tuple[ast.Expr, ...], int]:
        return self.exprs(pos) if mutable else self.imut_exprs(pos)

    def exprs(self, pos: int) -> tuple[tuple[ast.Expr, ...], int]:
        """``expr (_ ";" _ expr)* (_ ";" &(_ (end / case)))?``."""
        first, end = self.expr(pos)
        more, end = self._more(end, self.expr, ";")
        at = self.ws(end)
        if self.text.startswith(";", at) and self.word(self.ws(at + 1)) in ("end", "case"):
            end = at + 1
        return (first, *more), end

    def imut_exprs(self, pos: int) -> tuple[tuple[ast.Expr, ...], int]:
        """``expr_imut (_ ("," / ";") _ expr_imut)*``."""
        first, end = self.expr_imut(pos)
        more, end = self._more(end, self.expr_imut, ",;")
        return (first, *more), end

    def for_(self, pos: int, mutable: bool) -> tuple[ast.For, int]:
        """``for _ expr_imut _ of _ for_case+ for_into? end``."""
        target, cases, at = self._cases(pos + 3, self.for_case, mutable)
        into = op = None
        if self.word(at) == "into":
            into, at = self.expr_imut(self.ws(at + 4))
            at = self.ws(at)
            if self.word(at) == "use":
                op, at = self._fold_op(self.ws(at + 3))
                at = self.ws(at)
        end = self.expect_word("end", at)
        node = ast.For(
            target=target,
            cases=cases,
            into=into,
            fold_op=op,
            mutable=mutable,
            span=Span(pos, end),
        )
        return node, end

    def _fold_op(self, pos: int) -> tuple[str, int]:
        word = self.word(pos)
        if word in _FOLD_WORDS:
            return word, pos + len(word)
        for op in _FOLD_OPS:
            if self.text.startswith(op, pos):
                return op, pos + len(op)
        raise Unsupported

    def for_case(self, pos: int, mutable: bool) -> tuple[ast.ForCase, int]:
        """``case _ "(" _ ident _ "," _ ident _ ")" _ guard? "=>" _ body _``."""
        at = self.ws(self.expect("(", self.ws(pos + 4)))
        key, at = self.ident(at)
        at = self.ws(self.expect(",", self.ws(at)))
        value, at = self.ident(at)
        at = self.expect(")", self.ws(at))
        guard, at = self._guard(self.ws(at))
        body, at = self._body(self.ws(self.expect("=>", at)), mutable)
        end = self.ws(at)
        case = ast.ForCase(key=key, value=value, guard=guard, body=body, span=Span(pos, end))
        return case, end
