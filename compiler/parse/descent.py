"""A recursive-descent parser for tremor-script's statement and expression rules: the AST the
``script.ppeg`` grammar and :class:`~compiler.parse.script.ScriptVisitor` give, without building
a parse tree and visiting it.

The fast matcher (:mod:`compiler.parse.fastpeg`) runs it, on a plain-ASCII text, wherever the
grammar reaches one of :data:`RULES` (``script_items``: a script's body; ``expr_imut``: an
expression of a trickle or troy statement), and the visitor takes its value as that rule's.

Invariant (the grammar decides, this parser only answers faster): each rule method, given a
position, returns ``(value, end)``, exactly the visited value and the end the PEG rule gives
there; or raises :class:`Fail` only where the PEG rule surely fails at that position (decided on
its first token); or raises :class:`Unsupported` (a construct left to the grammar, such as an
indexed ``let`` target, or any failure past the first token: a syntax error). On either
exception the matcher runs the grammar's own rule at that position, so a syntax error is still
found and worded by the grammar's one slow path. ``tests/test_descent.py`` compares the trees,
spans included, with the grammar's over every program of the corpus and the repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..ast import script as ast
from ..lex import extractor_rule
from ..source import Span


class Fail(Exception):
    """The PEG rule surely fails at the position (its first token cannot start it)."""


class Unsupported(Exception):
    """This parser does not decide here: the grammar's rule runs instead."""


ENABLED = True
"""Whether visitors hand this parser to the fast matcher (the differential tests turn it off)."""

RULES = ("script_items", "expr_imut")
"""The grammar rules this parser answers for (by rule name)."""

_WS = re.compile(r"(?:\s+|#(?!!config )[^\n]*)*")  # script.ppeg's ``_``
_WS_START = frozenset(" \t\n\r\x0b\x0c#")
_WORD = re.compile(r"\w+")
_QUOTED = re.compile(r"`[^`\n]*`")
_FLOAT = re.compile(r"[0-9][0-9_]*\.[0-9][0-9_]*(?:e[+-]?[0-9]+)?")
_INT = re.compile(r"0x[0-9a-fA-F_]+|[0-9][0-9_]*")
_STR_CHARS = re.compile(r'[^"\\#\n]+')
_STR_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[^u])")
_HEREDOC_OPEN = re.compile(r"[ \t]*\r?\n")
_HD_CHARS = re.compile(r'(?:[^"\\#]|"(?!""))+')
_EXTRACTOR_BODY = re.compile(r"(?:[^|\\]|\\[\s\S])*")
_ESCAPES = {'"': '"', "\\": "\\", "#": "#", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

KEYWORDS = frozenset(
    "intrinsic mod const let match end fn null case of when default patch insert upsert update "
    "erase move copy merge for event state present absent true false and or xor not drop emit "
    "select from where with group by having into create tumbling sliding window stream "
    "operator script set each define args use as recur pipeline connector connect flow to "
    "deploy".split()
)
"""script.ppeg's ``keyword``: words that are no identifier."""

_EXPR_WORDS = frozenset(
    "match for null true false patch merge recur event state args group window present absent "
    "not".split()
)
"""The keywords an ``expr_imut`` can start with."""
_ITEM_WORDS = _EXPR_WORDS | {"let", "emit", "drop", "use", "const", "fn", "intrinsic"}
_ROOT_WORDS = frozenset(("event", "state", "args", "group", "window"))
_PATCH_WORDS = frozenset(("insert", "upsert", "update", "merge", "default", "erase", "move", "copy"))
_EXPR_CHARS = frozenset('0123456789"{[($`+-')

# Binary operators by level, loosest first (``expr_or`` … ``expr_mul``): level of each operator.
_WORD_OPS = {"or": 0, "xor": 1, "and": 2}
_FOLD_OPS = (">>>", ">>", "<<", "+", "-", "*", "/", "%", "&", "^")
_FOLD_WORDS = frozenset(("and", "or", "xor"))
_PRED_OPS = ("==", "!=", "<=", ">=", "<", ">")


class Descent:
    """The parser of one text; ``doc_before``: the visitor's doc-comment lookup (``const``)."""

    def __init__(self, text: str, doc_before: Callable[[int], str | None]) -> None:
        self.text = text
        self.size = len(text)
        self.doc_before = doc_before

    def rules(self) -> dict[str, Callable[[int], tuple[Any, int]]]:
        """:data:`RULES` to their methods."""
        return {"script_items": self.script_items, "expr_imut": self.expr_imut}

    # -- lexical --------------------------------------------------------------------------------

    def ws(self, pos: int) -> int:
        """The end of ``_`` (whitespace and comments) at ``pos``."""
        if pos < self.size and self.text[pos] in _WS_START:
            return _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        return pos

    def word(self, pos: int) -> str:
        """The run of word characters at ``pos`` ("" if none): a keyword ``kw(?!\\w)`` matches
        at ``pos`` exactly when this is the keyword."""
        found = _WORD.match(self.text, pos)
        return found.group() if found is not None else ""

    def ident(self, pos: int) -> tuple[str, int]:
        """``ident``: its name (back-ticks removed) and end."""
        text = self.text
        if pos < self.size and text[pos] == "`":
            quoted = _QUOTED.match(text, pos)
            if quoted is None:
                raise Fail
            return quoted.group()[1:-1], quoted.end()
        found = _WORD.match(text, pos)
        if found is None or not text[pos].isalpha() or found.group() in KEYWORDS:
            raise Fail
        return found.group(), found.end()

    def _starts_ident(self, pos: int) -> bool:
        if pos >= self.size:
            return False
        char = self.text[pos]
        return char == "`" or (char.isalpha() and self.word(pos) not in KEYWORDS)

    def expect(self, literal: str, pos: int) -> int:
        """The end of ``literal`` at ``pos`` (past the first token: Unsupported if absent)."""
        if not self.text.startswith(literal, pos):
            raise Unsupported
        return pos + len(literal)

    def expect_word(self, word: str, pos: int) -> int:
        if self.word(pos) != word:
            raise Unsupported
        return pos + len(word)

    def _can_start_expr(self, pos: int) -> bool:
        """Whether an ``expr_imut`` may start at ``pos`` (False: it surely does not)."""
        if pos >= self.size:
            return False
        text = self.text
        char = text[pos]
        if char in _EXPR_CHARS:
            return True
        if char == "<":
            return text.startswith("<<", pos)
        if char == "!":
            return not text.startswith("!=", pos)
        if char.isalpha():
            word = self.word(pos)
            return word not in KEYWORDS or word in _EXPR_WORDS
        return False

    # -- top level ------------------------------------------------------------------------------

    def script_items(self, pos: int) -> tuple[list[Any], int]:
        """``item (_ ";" _ item)* (_ ";")?``: the items, ``use`` groups spliced in."""
        self._item_start(pos)
        try:
            items: list[Any] = []
            value, end = self.item(pos)
            items.extend(value) if isinstance(value, list) else items.append(value)
            ws, text = self.ws, self.text
            while True:
                at = ws(end)
                if not text.startswith(";", at):
                    break
                try:
                    value, after = self.item(ws(at + 1))
                except Fail:
                    break
                items.extend(value) if isinstance(value, list) else items.append(value)
                end = after
            at = ws(end)
            if text.startswith(";", at):
                end = at + 1
            return items, end
        except Fail:
            raise Unsupported from None

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

    def _module_path(self, pos: int) -> tuple[list[str], int]:
        """``ident (_ "::" _ ident)*``: the names and the end of the last."""
        name, end = self.ident(pos)
        names = [name]
        ws, text = self.ws, self.text
        while True:
            at = ws(end)
            if not text.startswith("::", at):
                return names, end
            try:
                name, after = self.ident(ws(at + 2))
            except Fail:
                return names, end
            names.append(name)
            end = after

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

    # -- statements -----------------------------------------------------------------------------

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

    @staticmethod
    def _guarded(method: Callable[..., tuple[Any, int]], *args: Any) -> tuple[Any, int]:
        """``method(*args)`` past the first token: a failure there is Unsupported."""
        try:
            return method(*args)
        except Fail:
            raise Unsupported from None

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
        target, at = self.expr_imut(self.ws(pos + 5))
        at = self.ws(self.expect_word("of", self.ws(at)))
        cases = []
        while self.word(at) == "case":
            case, at = self.match_case(at, mutable)
            cases.append(case)
        if not cases:
            raise Unsupported
        end = self.expect_word("end", at)
        node = ast.Match(target=target, cases=tuple(cases), mutable=mutable, span=Span(pos, end))
        return node, end

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
        body = [first]
        ws, text = self.ws, self.text
        while True:
            at = ws(end)
            if not text.startswith(";", at):
                break
            try:
                value, after = self.expr(ws(at + 1))
            except Fail:
                break
            body.append(value)
            end = after
        at = ws(end)
        if text.startswith(";", at) and self.word(ws(at + 1)) in ("end", "case"):
            end = at + 1
        return tuple(body), end

    def imut_exprs(self, pos: int) -> tuple[tuple[ast.Expr, ...], int]:
        """``expr_imut (_ ("," / ";") _ expr_imut)*``."""
        first, end = self.expr_imut(pos)
        body = [first]
        ws, text = self.ws, self.text
        while True:
            at = ws(end)
            if at >= self.size or text[at] not in ",;":
                break
            try:
                value, after = self.expr_imut(ws(at + 1))
            except Fail:
                break
            body.append(value)
            end = after
        return tuple(body), end

    def for_(self, pos: int, mutable: bool) -> tuple[ast.For, int]:
        """``for _ expr_imut _ of _ for_case+ for_into? end``."""
        target, at = self.expr_imut(self.ws(pos + 3))
        at = self.ws(self.expect_word("of", self.ws(at)))
        cases = []
        while self.word(at) == "case":
            case, at = self.for_case(at, mutable)
            cases.append(case)
        if not cases:
            raise Unsupported
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
            cases=tuple(cases),
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

    # -- expressions ----------------------------------------------------------------------------

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

    def number(self, pos: int) -> tuple[ast.Literal, int]:
        """``float_lit / int_lit``."""
        text = self.text
        found = _FLOAT.match(text, pos)
        if found is not None:
            value: int | float = float(found.group().replace("_", ""))
        else:
            found = _INT.match(text, pos)
            digits = found.group().replace("_", "")  # type: ignore[union-attr]
            value = int(digits[2:], 16) if digits.startswith("0x") else int(digits)
        end = found.end()  # type: ignore[union-attr]
        return ast.Literal(value=value, span=Span(pos, end)), end

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

    def _comma_list(
        self, pos: int, item: Callable[[int], tuple[Any, int]]
    ) -> tuple[list[Any], int]:
        """``item (_ "," _ item)* (_ ",")?`` (Fail: the first item fails at its first token)."""
        first, end = item(pos)
        items = [first]
        ws, text = self.ws, self.text
        while True:
            at = ws(end)
            if not text.startswith(",", at):
                return items, end
            try:
                value, after = item(ws(at + 1))
            except Fail:
                return items, at + 1
            items.append(value)
            end = after

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

    def record_lit(self, pos: int) -> tuple[ast.RecordLit, int]:
        """``"{" _ (record_field (_ "," _ record_field)* (_ ",")?)? _ "}"``."""
        at = self.ws(pos + 1)
        fields: list[Any] = []
        if self.text.startswith('"', at):
            fields, at = self._comma_list(at, self.record_field)
        end = self.expect("}", self.ws(at))
        return ast.RecordLit(fields=tuple(fields), span=Span(pos, end)), end

    def record_field(self, pos: int) -> tuple[ast.RecordField, int]:
        """``string_lit _ ":" _ expr_imut`` (Fail unless a string starts it)."""
        if not self.text.startswith('"', pos):
            raise Fail
        key, at = self._key(pos)
        at = self.ws(self.expect(":", self.ws(at)))
        value, end = self.expr_imut(at)
        return ast.RecordField(key=key, value=value, span=Span(pos, end)), end

    def _key(self, pos: int) -> tuple[ast.Expr, int]:
        """A ``string_lit`` that must be there (past the first token)."""
        if not self.text.startswith('"', pos) or self.text.startswith('"""', pos):
            raise Unsupported
        return self.string_lit(pos)

    def array_lit(self, pos: int) -> tuple[ast.ArrayLit, int]:
        """``"[" _ (expr_imut (_ "," _ expr_imut)* (_ ",")?)? _ "]"``."""
        items, at = self._call_args(self.ws(pos + 1))
        end = self.expect("]", self.ws(at))
        return ast.ArrayLit(items=items, span=Span(pos, end)), end

    def string_lit(self, pos: int) -> tuple[ast.Expr, int]:
        """``'"' (interp / str_escape / str_chars / str_hash)* '"'``: a literal, or a
        :class:`~compiler.ast.script.StringInterp` of its pieces (adjacent texts merged)."""
        return self._string(pos, pos + 1, _STR_CHARS, '"')

    def heredoc(self, pos: int) -> tuple[ast.Expr, int]:
        """``'"""' [ \t]*\r?\n (interp / str_escape / hd_chars / str_hash)* '"""'``."""
        opening = _HEREDOC_OPEN.match(self.text, pos + 3)
        if opening is None:
            raise Unsupported
        return self._string(pos, opening.end(), _HD_CHARS, '"""')

    def _string(
        self, pos: int, at: int, plain: re.Pattern[str], closing: str
    ) -> tuple[ast.Expr, int]:
        """The pieces from ``at`` to ``closing`` (texts matched by ``plain``)."""
        text = self.text
        parts: list[str | ast.Expr] = []
        while True:
            char = text[at : at + 1]
            if text.startswith(closing, at):
                break
            if char == "#":
                if text.startswith("#{", at):
                    inner, after = self.expr_imut(self.ws(at + 2))
                    at = self.expect("}", self.ws(after))
                    parts.append(inner)
                    continue
                piece, at = "#", at + 1
            elif char == "\\":
                escape = _STR_ESCAPE.match(text, at)
                if escape is None:
                    raise Unsupported
                code = escape.group()[1:]
                piece = chr(int(code[1:], 16)) if code.startswith("u") else _ESCAPES.get(code, code)
                at = escape.end()
            else:
                chars = plain.match(text, at)
                if chars is None:  # the end of the text, or a line break in a string
                    raise Unsupported
                piece, at = chars.group(), chars.end()
            if parts and isinstance(parts[-1], str):
                parts[-1] += piece
            else:
                parts.append(piece)
        end = at + len(closing)
        span = Span(pos, end)
        if all(isinstance(part, str) for part in parts):
            return ast.Literal(value="".join(parts), span=span), end  # type: ignore[arg-type]
        return ast.StringInterp(parts=tuple(parts), span=span), end

    def binary_lit(self, pos: int) -> tuple[ast.BinaryLit, int]:
        """``"<<" _ (bin_part (_ "," _ bin_part)*)? _ ">>"``."""
        text, ws = self.text, self.ws
        at = ws(pos + 2)
        parts = []
        try:
            part, at = self.bin_part(at)
        except Fail:
            part = None
        if part is not None:
            parts.append(part)
            while True:
                comma = ws(at)
                if not text.startswith(",", comma):
                    break
                try:
                    part, after = self.bin_part(ws(comma + 1))
                except Fail:
                    break
                parts.append(part)
                at = after
        end = self.expect(">>", ws(at))
        return ast.BinaryLit(parts=tuple(parts), span=Span(pos, end)), end

    def bin_part(self, pos: int) -> tuple[ast.BinaryPart, int]:
        """``primary (_ ":" _ int_lit)? (_ "/" _ ident (_ "-" _ ident)*)?``."""
        data, end = self.unary_free_primary(pos)
        text, ws = self.text, self.ws
        bits = None
        at = ws(end)
        if text.startswith(":", at):
            digits = ws(at + 1)
            if not text[digits : digits + 1].isdigit():
                raise Unsupported
            literal, end = self.number(digits)
            if not isinstance(literal.value, int) or _FLOAT.match(text, digits):
                raise Unsupported
            bits = literal.value
            at = ws(end)
        kind = None
        if text.startswith("/", at):
            name, end = self._guarded(self.ident, ws(at + 1))
            names = [name]
            while True:
                dash = ws(end)
                if not text.startswith("-", dash):
                    break
                try:
                    name, after = self.ident(ws(dash + 1))
                except Fail:
                    break
                names.append(name)
                end = after
            kind = "_".join(names)
        part = ast.BinaryPart(data=data, bits=bits, kind=kind or "unsigned_big", span=Span(pos, end))
        return part, end

    def unary_free_primary(self, pos: int) -> tuple[ast.Expr, int]:
        """A ``primary`` where one must start (Fail: it cannot start at ``pos``)."""
        text = self.text
        char = text[pos : pos + 1]
        if not char or char in "+-!" or not self._can_start_expr(pos):
            raise Fail
        if self.word(pos) in ("not", "present", "absent", "match", "for"):
            raise Fail
        return self.primary(pos)

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

    # -- patterns -------------------------------------------------------------------------------

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
                node = ast.FieldPredicate(kind="cmp", key=name, op=op, expr=expr, span=Span(pos, end))
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
                elems.append(first)
                while True:
                    comma = ws(at)
                    if not text.startswith(",", comma):
                        break
                    try:
                        value, after = self.pattern_top(ws(comma + 1))
                    except Fail:
                        break
                    elems.append(value)
                    at = after
                comma = ws(at)
                if text.startswith(",", comma):
                    rest = ws(comma + 1)
                    if text.startswith("...", rest):
                        open_, at = True, rest + 3
                    else:
                        at = comma + 1
        end = self.expect(")", ws(at))
        return ast.TuplePattern(elements=tuple(elems), open=open_, span=Span(pos, end)), end
