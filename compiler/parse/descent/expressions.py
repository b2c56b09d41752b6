"""The descent parser's expression rules: precedence levels, unary operators, primaries, paths,
calls, ``patch`` and ``merge``."""

from __future__ import annotations

from ...ast import script as ast
from ...source import Span
from .lexical import _PATCH_WORDS, _ROOT_WORDS, _WORD_OPS, KEYWORDS, Fail, Lexical, Unsupported


class Expressions(Lexical):
    """Expressions, one method per grammar rule."""

    def expr_imut(self, pos: int) -> tuple[ast.Expr, int]:
        """``match_imut / for_imut / expr_or``."""
        if not self._can_start_expr(pos):
            raise Fail
        try:
            word = self.word(pos)
            if word == "match":
                return self.match(pos, False)
            if word == "for":
                return self.for_(pos, False)
            return self.binary(pos, 0)
        except Fail:
            raise Unsupported from None

    def _operator(self, pos: int) -> tuple[str, int] | None:
        """The binary operator at ``pos`` and its level (0 ``or`` … 9 ``*``), or None."""
        text = self.text
        if pos >= self.size:
            return None
        char = text[pos]
        nxt = text[pos + 1 : pos + 2]
        if char == "+" or char == "-":
            return char, 8
        if char == "*" or char == "/":
            return char, 9
        if char == "%":
            return None if nxt in ("{", "[", "(") else ("%", 9)
        if char == "=":
            return ("==", 5) if nxt == "=" else None
        if char == "!":
            return ("!=", 5) if nxt == "=" else None
        if char == "<":
            if nxt == "=":
                return "<=", 6
            return ("<<", 7) if nxt == "<" else ("<", 6)
        if char == ">":
            if nxt == "=":
                return ">=", 6
            if nxt == ">":
                return (">>>", 7) if text.startswith(">>>", pos) else (">>", 7)
            return ">", 6
        if char == "&":
            return "&", 4
        if char == "^":
            return "^", 3
        if char in "aox":
            word = self.word(pos)
            level = _WORD_OPS.get(word)
            return None if level is None else (word, level)
        return None

    def binary(self, pos: int, lowest: int) -> tuple[ast.Expr, int]:
        """The precedence levels ``expr_or`` … ``expr_mul`` from level ``lowest`` on, each
        ``operand (_ op _ operand)*`` folded to the left (precedence climbing: the same trees)."""
        left, end = self.unary(pos)
        ws, operator = self.ws, self._operator
        while True:
            at = ws(end)
            found = operator(at)
            if found is None or found[1] < lowest:
                return left, end
            op, level = found
            try:
                right, after = self.binary(ws(at + len(op)), level + 1)
            except Fail:
                return left, end
            left = ast.Binary(op=op, left=left, right=right, span=left.span.to(right.span))
            end = after

    def unary(self, pos: int) -> tuple[ast.Expr, int]:
        """``unary_sign / expr_not``."""
        text = self.text
        char = text[pos : pos + 1]
        if char == "+" or char == "-":
            operand, end = self._guarded(self.unary, self.ws(pos + 1))
            return ast.Unary(op=char, operand=operand, span=Span(pos, end)), end
        return self.expr_not(pos)

    def expr_not(self, pos: int) -> tuple[ast.Expr, int]:
        """``unary_not / expr_present``; ``unary_not = op_not _ expr_not``."""
        text = self.text
        if text.startswith("!", pos) and not text.startswith("!=", pos):
            op, after = "!", pos + 1
        elif self.word(pos) == "not":
            op, after = "not", pos + 3
        else:
            return self.expr_present(pos)
        operand, end = self._guarded(self.expr_not, self.ws(after))
        return ast.Unary(op=op, operand=operand, span=Span(pos, end)), end

    def expr_present(self, pos: int) -> tuple[ast.Expr, int]:
        """``(present / absent) _ path`` or a primary."""
        word = self.word(pos)
        if word == "present" or word == "absent":
            path, end = self._guarded(self.path, self.ws(pos + len(word)))
            return ast.Present(path=path, negated=word == "absent", span=Span(pos, end)), end
        return self.primary(pos)

    def primary(self, pos: int) -> tuple[ast.Expr, int]:
        """``primary_base segments``."""
        base, at = self.primary_base(pos)
        segments, end = self.segments(at)
        if not segments:
            return base, at
        span = Span(pos, end)
        if isinstance(base, ast.Path) and base.root != "expr":
            node = ast.Path(
                root=base.root,
                segments=base.segments + segments,
                name=base.name,
                module=base.module,
                span=span,
            )
            return node, end
        return ast.Path(root="expr", expr=base, segments=segments, span=span), end

    def primary_base(self, pos: int) -> tuple[ast.Expr, int]:
        """``literal / heredoc / string_lit / binary_lit / record_lit / array_lit / paren /
        patch_expr / merge_expr / recur / call / path_root``, by the first token."""
        text = self.text
        if pos >= self.size:
            raise Fail
        char = text[pos]
        if char.isdigit():
            return self.number(pos)
        if char == '"':
            if text.startswith('"""', pos):
                return self._guarded(self.heredoc, pos)
            return self._guarded(self.string_lit, pos)
        if char == "{":
            return self._guarded(self.record_lit, pos)
        if char == "[":
            return self._guarded(self.array_lit, pos)
        if char == "(":
            return self._guarded(self.paren, pos)
        if char == "$":
            return self.meta_root(pos)
        if char == "<":
            if not text.startswith("<<", pos):
                raise Fail
            return self._guarded(self.binary_lit, pos)
        if char != "`":
            word = self.word(pos)
            if word in KEYWORDS:
                return self._keyword_base(word, pos)
        return self._guarded(self.call_or_path, pos)

    def _keyword_base(self, word: str, pos: int) -> tuple[ast.Expr, int]:
        end = pos + len(word)
        if word == "null":
            return ast.Literal(value=None, span=Span(pos, end)), end
        if word == "true" or word == "false":
            return ast.Literal(value=word == "true", span=Span(pos, end)), end
        if word in _ROOT_WORDS:
            return ast.Path(root=word, span=Span(pos, end)), end
        if word == "patch":
            return self._guarded(self.patch_expr, pos)
        if word == "merge":
            return self._guarded(self.merge_expr, pos)
        if word == "recur":
            return self._guarded(self.recur, pos)
        raise Fail

    def call_or_path(self, pos: int) -> tuple[ast.Expr, int]:
        """``call`` = ``ident (_ "::" _ ident)* _ "(" _ call_args? _ ")"``, else ``const_root``
        (two names or more) or ``local_root`` (one)."""
        names, end = self._module_path(pos)
        at = self.ws(end)
        text = self.text
        if text.startswith("(", at):
            args, at = self._call_args(self.ws(at + 1))
            end = self.expect(")", self.ws(at))
            call = ast.Call(
                module=tuple(names[:-1]), name=names[-1], args=args, span=Span(pos, end)
            )
            return call, end
        if len(names) > 1:
            span = Span(pos, end)
            return ast.Path(root="const", name=names[-1], module=tuple(names[:-1]), span=span), end
        if text.startswith("::", at):
            raise Unsupported
        return ast.Path(root="local", name=names[0], span=Span(pos, end)), end

    def _call_args(self, pos: int) -> tuple[tuple[ast.Expr, ...], int]:
        """``call_args?`` = ``(expr_imut (_ "," _ expr_imut)* (_ ",")?)?``."""
        try:
            items, end = self._comma_list(pos, self.expr_imut)
        except Fail:
            return (), pos
        return tuple(items), end

    def meta_root(self, pos: int) -> tuple[ast.Path, int]:
        """``"$" (_ ident)?``."""
        at = self.ws(pos + 1)
        try:
            name, end = self.ident(at)
        except Fail:
            return ast.Path(root="meta", span=Span(pos, pos + 1)), pos + 1
        segment = ast.FieldSeg(name=name, span=Span(at, end))
        return ast.Path(root="meta", segments=(segment,), span=Span(pos, end)), end

    def path_root(self, pos: int) -> tuple[ast.Path, int]:
        """``event / $ / state / args / group / window / const_root / local_root``."""
        if self.text.startswith("$", pos):
            return self.meta_root(pos)
        word = self.word(pos)
        if word in _ROOT_WORDS:
            return ast.Path(root=word, span=Span(pos, pos + len(word))), pos + len(word)
        if not self._starts_ident(pos):
            raise Fail
        names, end = self._module_path(pos)
        at = self.ws(end)
        if self.text.startswith("(", at) or (len(names) == 1 and self.text.startswith("::", at)):
            raise Unsupported
        if len(names) > 1:
            span = Span(pos, end)
            return ast.Path(root="const", name=names[-1], module=tuple(names[:-1]), span=span), end
        return ast.Path(root="local", name=names[0], span=Span(pos, end)), end

    def path(self, pos: int) -> tuple[ast.Path, int]:
        """``path_root segments``."""
        root, at = self.path_root(pos)
        segments, end = self._guarded(self.segments, at)
        node = ast.Path(
            root=root.root,
            segments=root.segments + segments,
            name=root.name,
            module=root.module,
            span=Span(pos, end),
        )
        return node, end

    def segments(self, pos: int) -> tuple[tuple[ast.Segment, ...], int]:
        """``(field_seg / range_seg / index_seg)*``, each starting with ``_``."""
        found: list[ast.Segment] = []
        end = pos
        ws, text = self.ws, self.text
        while True:
            at = ws(end)
            char = text[at : at + 1]
            if char == ".":
                name_at = ws(at + 1)
                try:
                    name, end = self.ident(name_at)
                except Fail:
                    break
                found.append(ast.FieldSeg(name=name, span=Span(name_at, end)))
            elif char == "[":
                try:
                    first, after = self.expr_imut(ws(at + 1))
                except Fail:
                    break
                after = ws(after)
                if text.startswith(":", after) and not text.startswith("::", after):
                    last, after = self.expr_imut(ws(after + 1))
                    end = self.expect("]", ws(after))
                    found.append(ast.RangeSeg(start=first, end=last, span=Span(at, end)))
                else:
                    end = self.expect("]", after)
                    found.append(ast.IndexSeg(index=first, span=Span(at, end)))
            else:
                break
        return tuple(found), end

    def paren(self, pos: int) -> tuple[ast.Expr, int]:
        """``"(" _ expr_imut _ ")"``: the inner expression itself."""
        inner, at = self.expr_imut(self.ws(pos + 1))
        return inner, self.expect(")", self.ws(at))

    def patch_expr(self, pos: int) -> tuple[ast.Patch, int]:
        """``patch _ expr_imut _ of _ patch_ops? _ end``."""
        target, at = self.expr_imut(self.ws(pos + 5))
        at = self.ws(self.expect_word("of", self.ws(at)))
        ops: list[ast.PatchOp] = []
        if self.word(at) in _PATCH_WORDS:
            op, at = self.patch_op(at)
            ops.append(op)
            while True:
                semi = self.ws(at)
                if not self.text.startswith(";", semi):
                    break
                after = self.ws(semi + 1)
                if self.word(after) not in _PATCH_WORDS:
                    at = semi + 1  # the optional trailing ";"
                    break
                op, at = self.patch_op(after)
                ops.append(op)
        end = self.expect_word("end", self.ws(at))
        return ast.Patch(target=target, ops=tuple(ops), span=Span(pos, end)), end

    def patch_op(self, pos: int) -> tuple[ast.PatchOp, int]:
        """``patch_keyed / patch_erase / patch_move / patch_merge_all / patch_default_all``."""
        word = self.word(pos)
        at = self.ws(pos + len(word))
        text = self.text
        if word == "erase":
            key, end = self._key(at)
            return ast.PatchOp(kind="erase", key=key, span=Span(pos, end)), end
        if word in ("merge", "default") and text.startswith("=>", at):
            value, end = self.expr_imut(self.ws(at + 2))
            kind = word + "_record"
            return ast.PatchOp(kind=kind, value=value, span=Span(pos, end)), end
        key, at = self._key(at)
        at = self.ws(self.expect("=>", self.ws(at)))
        if word in ("move", "copy"):
            to, end = self._key(at)
            return ast.PatchOp(kind=word, key=key, to=to, span=Span(pos, end)), end
        value, end = self.expr_imut(at)
        return ast.PatchOp(kind=word, key=key, value=value, span=Span(pos, end)), end

    def merge_expr(self, pos: int) -> tuple[ast.Merge, int]:
        """``merge _ expr_imut _ of _ expr_imut _ end``."""
        target, at = self.expr_imut(self.ws(pos + 5))
        at = self.ws(self.expect_word("of", self.ws(at)))
        spec, at = self.expr_imut(at)
        end = self.expect_word("end", self.ws(at))
        return ast.Merge(target=target, spec=spec, span=Span(pos, end)), end

    def recur(self, pos: int) -> tuple[ast.Recur, int]:
        """``recur _ "(" _ call_args? _ ")"``."""
        at = self.expect("(", self.ws(pos + 5))
        args, at = self._call_args(self.ws(at))
        end = self.expect(")", self.ws(at))
        return ast.Recur(args=args, span=Span(pos, end)), end
