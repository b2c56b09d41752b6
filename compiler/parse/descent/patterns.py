"""The descent parser's patterns of ``match`` cases: record, array, tuple, extractor, assignment
and expression patterns."""

from __future__ import annotations

from typing import Any

from ...ast import script as ast
from ...lex import extractor_rule
from ...source import Span
from .lexical import _EXTRACTOR_BODY, _PRED_OPS, _WORD, Fail, Lexical, Unsupported


class Patterns(Lexical):
    """Patterns, one method per grammar rule."""

    def pattern_top(self, pos: int) -> tuple[ast.Pattern, int]:
        """``assign_pattern / pattern`` (also ``elem_pattern``: ``assign_elem / pattern``)."""
        if self._starts_ident(pos):
            name, at = self.ident(pos)
            at = self.ws(at)
            text = self.text
            if text.startswith("=", at) and text[at + 1 : at + 2] not in ("=", ">"):
                inner, end = self._guarded(self.pattern, self.ws(at + 1))
                return ast.AssignPattern(name=name, pattern=inner, span=Span(pos, end)), end
        return self.pattern(pos)

    def pattern(self, pos: int) -> tuple[ast.Pattern, int]:
        """``any / record / array / tuple / extractor pattern / expr_imut``."""
        text = self.text
        char = text[pos : pos + 1]
        if char == "_" and not _WORD.match(text, pos + 1):
            return ast.AnyPattern(span=Span(pos, pos + 1)), pos + 1
        if char == "%":
            kind = text[pos + 1 : pos + 2]
            if kind == "{":
                return self._guarded(self.record_pattern, pos)
            if kind == "[":
                return self._guarded(self.array_pattern, pos)
            if kind == "(":
                return self._guarded(self.tuple_pattern, pos)
        if char == "~":
            extractor, end = self._guarded(self.extractor, self.ws(pos + 1))
            return ast.ExtractorPattern(extractor=extractor, span=Span(pos, end)), end
        expr, end = self.expr_imut(pos)
        return ast.ExprPattern(expr=expr, span=expr.span), end

    def extractor(self, pos: int) -> tuple[ast.Extractor, int]:
        """``ident _ "|" body "|"``."""
        name, at = self.ident(pos)
        at = self.expect("|", self.ws(at))
        body = _EXTRACTOR_BODY.match(self.text, at)
        end = self.expect("|", body.end())  # type: ignore[union-attr]
        rule = extractor_rule(body.group())  # type: ignore[union-attr]
        return ast.Extractor(name=name, rule=rule, span=Span(pos, end)), end

    def record_pattern(self, pos: int) -> tuple[ast.RecordPattern, int]:
        """``"%{" _ field_preds? _ "}"``."""
        at = self.ws(pos + 2)
        preds: list[Any] = []
        try:
            preds, at = self._comma_list(at, self.field_pred)
        except Fail:
            pass
        end = self.expect("}", self.ws(at))
        return ast.RecordPattern(fields=tuple(preds), span=Span(pos, end)), end

    def field_pred(self, pos: int) -> tuple[ast.FieldPredicate, int]:
        """``present / absent / alias (a = k ~= x|..|) / tilde (k ~= …) / cmp (k op expr)``."""
        word = self.word(pos)
        if word == "present" or word == "absent":
            key, end = self._guarded(self.ident, self.ws(pos + len(word)))
            return ast.FieldPredicate(kind=word, key=key, span=Span(pos, end)), end
        name, at = self.ident(pos)
        return self._guarded(self._field_pred_rest, pos, name, self.ws(at))

    def _field_pred_rest(self, pos: int, name: str, at: int) -> tuple[ast.FieldPredicate, int]:
        text = self.text
        if text.startswith("=", at) and not text.startswith("==", at):
            key, at = self.ident(self.ws(at + 1))
            at = self.ws(self.expect("~=", self.ws(at)))
            extractor, end = self.extractor(at)
            node = ast.FieldPredicate(
                kind="extract", key=key, extractor=extractor, alias=name, span=Span(pos, end)
            )
            return node, end
        if text.startswith("~=", at):
            at = self.ws(at + 2)
            kind = text[at + 1 : at + 2] if text.startswith("%", at) else ""
            if kind in ("{", "[", "("):
                method = {"{": self.record_pattern, "[": self.array_pattern}.get(
                    kind, self.tuple_pattern
                )
                inner, end = method(at)
                shape = {"{": "record", "[": "array"}.get(kind, "tuple")
                node = ast.FieldPredicate(kind=shape, key=name, pattern=inner, span=Span(pos, end))
                return node, end
            extractor, end = self.extractor(at)
            span = Span(pos, end)
            return ast.FieldPredicate(kind="extract", key=name, extractor=extractor, span=span), end
        for op in _PRED_OPS:
            if text.startswith(op, at):
                expr, end = self.expr_imut(self.ws(at + len(op)))
                node = ast.FieldPredicate(
                    kind="cmp", key=name, op=op, expr=expr, span=Span(pos, end)
                )
                return node, end
        raise Unsupported

    def array_pattern(self, pos: int) -> tuple[ast.ArrayPattern, int]:
        """``"%[" _ (elem_pattern (_ "," _ elem_pattern)* (_ ",")?)? _ "]"``."""
        at = self.ws(pos + 2)
        elems: list[Any] = []
        try:
            elems, at = self._comma_list(at, self.pattern_top)
        except Fail:
            pass
        end = self.expect("]", self.ws(at))
        return ast.ArrayPattern(elements=tuple(elems), span=Span(pos, end)), end

    def tuple_pattern(self, pos: int, opening: int = 2) -> tuple[ast.TuplePattern, int]:
        """``"%(" _ tuple_elems? _ ")"`` (``opening``: 1 for a ``fn`` case's ``"(" …``);
        ``tuple_elems = "..." / (elem (_ "," _ elem)* ((_ "," _ "...") / (_ ","))?)``."""
        text, ws = self.text, self.ws
        at = ws(pos + opening)
        elems: list[Any] = []
        open_ = False
        if text.startswith("...", at):
            open_, at = True, at + 3
        else:
            try:
                first, at = self.pattern_top(at)
            except Fail:
                first = None
            if first is not None:
                more, at = self._more(at, self.pattern_top, ",")
                elems = [first, *more]
                comma = ws(at)
                if text.startswith(",", comma):
                    rest = ws(comma + 1)
                    if text.startswith("...", rest):
                        open_, at = True, rest + 3
                    else:
                        at = comma + 1
        end = self.expect(")", ws(at))
        return ast.TuplePattern(elements=tuple(elems), open=open_, span=Span(pos, end)), end
