"""The descent parser's literals: numbers, strings and heredocs with interpolation, records,
arrays and binary literals."""

from __future__ import annotations

import re
from typing import Any

from ...ast import script as ast
from ...source import Span
from .lexical import (
    _ESCAPES,
    _FLOAT,
    _HD_CHARS,
    _HEREDOC_OPEN,
    _INT,
    _STR_CHARS,
    _STR_ESCAPE,
    Fail,
    Lexical,
    Unsupported,
)


class Literals(Lexical):
    """Literals, one method per grammar rule."""

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
        """``'""" " [ \t]*\r?\n (interp / str_escape / hd_chars / str_hash)* " """'``."""
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
        ws = self.ws
        at = ws(pos + 2)
        parts = []
        try:
            first, at = self.bin_part(at)
        except Fail:
            first = None
        if first is not None:
            more, at = self._more(at, self.bin_part, ",")
            parts = [first, *more]
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
            names, end = self._more(end, self.ident, "-")
            kind = "_".join((name, *names))
        part = ast.BinaryPart(
            data=data, bits=bits, kind=kind or "unsigned_big", span=Span(pos, end)
        )
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
