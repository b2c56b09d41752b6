"""Tremor's lexer: tokens with spans, and every lexical error with Tremor's message and span.

The parser proper is a parsimonious grammar over the raw text (``grammar/script.ppeg``). Tremor
lexes the whole file before parsing, so lexical errors win over parse errors; ``tokenize`` is run
first for that reason, and its tokens name the token at a parse failure and the places where the
grammar's expected tokens are read (:mod:`compiler.parse.errors`). :data:`KEYWORDS` is the one
list of Tremor's keywords (the grammar's ``keyword`` rule is generated from it).

Invariants: tokens are in source order and never overlap; a string or heredoc yields a ``"``/
``\"\"\"`` token, its literal pieces (kind ``str``) and the tokens of each interpolation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .diagnostics import CompileError
from .source import Span

KEYWORDS = frozenset(
    """intrinsic mod const let match end fn null case of when default patch insert upsert update
    erase move copy merge for event state present absent true false and or xor not drop emit select
    from where with group by having into create tumbling sliding window stream operator script set
    each define args use as recur pipeline connector connect flow to deploy""".split()
)

# Longest first: the lexer takes the first punctuation that matches.
PUNCTUATION = (
    ">>>",
    ":::",
    "::",
    "=>",
    "==",
    "!=",
    "<=",
    ">=",
    "<<",
    ">>",
    "~=",
    "%{",
    "%[",
    "%(",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    ".",
    "$",
    "=",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "^",
    "!",
    "~",
)

INTERP_HINT = "Did you mean to write a literal '#{'? Escape it as '\\#{'."
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "#": "#",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_STRING_TROUBLE = (
    "It looks like you forgot to terminate a string",
    "It looks like you forgot to terminate a here doc",
    "It looks like you have characters tailing the here doc",
)
_HEX = re.compile(r"0x[0-9a-fA-F_]*")
_NUMBER = re.compile(r"[0-9][0-9_]*(\.[0-9][0-9_]*)?")


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``kind`` is ident kw int float str punct extractor doc moddoc config any."""

    kind: str
    text: str
    start: int
    end: int


def is_ident_start(ch: str) -> bool:
    """Unicode XID start (``_`` is excluded: it lexes as the don't-care token)."""
    return ch.isalpha() or unicodedata.category(ch) in ("Nl",)


def is_ident_continue(ch: str) -> bool:
    """Unicode XID continue (approximation by category)."""
    return ch.isalnum() or ch == "_" or unicodedata.category(ch) in ("Mn", "Mc", "Nd", "Pc", "Nl")


def _error(message: str, start: int, end: int, hint: str | None = None) -> CompileError:
    return CompileError(message, Span(start, end), hint=hint)


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


class Lexer:
    """Single-use tokenizer over ``text``; call :meth:`run`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.tokens: list[Token] = []

    def run(self) -> list[Token]:
        """Tokenize everything up to the end of the text."""
        self.lex_until(None)
        return self.tokens

    def add(self, kind: str, start: int, end: int, text: str | None = None) -> None:
        self.tokens.append(Token(kind, self.text[start:end] if text is None else text, start, end))

    def lex_until(self, closer: str | None) -> bool:
        """Lex tokens; with ``closer`` == ``}`` stop at the unbalanced ``}`` (consumed, True)."""
        depth = 0
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r\n\f\v":
                self.pos += 1
                continue
            if closer is not None:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    if depth == 0:
                        return True
                    depth -= 1
            self.one_token(ch)
        return False

    def one_token(self, ch: str) -> None:
        text, start = self.text, self.pos
        if ch == "#":
            self.comment()
        elif text.startswith('"""', start):
            self.heredoc()
        elif ch == '"':
            self.string()
        elif ch.isdigit():
            self.number()
        elif ch == "`":
            self.quoted_ident()
        elif ch == "_":
            self.pos += 1
            self.add("punct", start, self.pos)
        elif is_ident_start(ch):
            self.ident()
        elif "\udc80" <= ch <= "\udcff":
            raise _error("An invalid UTF8 escape sequence was found", start, start + 1)
        else:
            self.punct(ch)

    def punct(self, ch: str) -> None:
        start = self.pos
        if ch == "|":
            self.extractor_body(start)
            return
        for p in PUNCTUATION:
            if self.text.startswith(p, start):
                self.pos += len(p)
                self.add("punct", start, self.pos)
                return
        raise _error(f"An unexpected character '{ch}' was found", start, start + 1)

    def comment(self) -> None:
        text, start = self.text, self.pos
        end = _line_end(text, start)
        if text.startswith("#!config ", start):
            self.pos = start + 8
            self.add("config", start, self.pos)
            return
        if text.startswith("#!", start):
            raise _error("An unexpected character '!' was found", start + 1, start + 2)
        kind = (
            "moddoc"
            if text.startswith("###", start)
            else "doc" if text.startswith("##", start) else ""
        )
        if kind:
            self.add(kind, start, end)
        self.pos = end

    def ident(self) -> None:
        text, start = self.text, self.pos
        end = start + 1
        while end < len(text) and is_ident_continue(text[end]):
            end += 1
        self.pos = end
        word = text[start:end]
        if end < len(text) and text[end] == "|":
            self.add("extractor", start, end)
            self.extractor_body(end)
            return
        self.add("kw" if word in KEYWORDS else "ident", start, end)

    def quoted_ident(self) -> None:
        text, start = self.text, self.pos
        end = text.find("`", start + 1)
        line_end = _line_end(text, start)
        if end < 0 or end > line_end:
            raise _error(
                "It looks like you forgot to terminate an ident with a closing '`'", start, line_end
            )
        self.pos = end + 1
        self.add("ident", start, self.pos, text[start + 1 : end])

    def number(self) -> None:
        text, start = self.text, self.pos
        if text.startswith("0x", start):
            m = _HEX.match(text, start)
            assert m is not None
            end = m.end()
            digits = m.group()[2:].replace("_", "")
            if not digits:
                raise _error("An invalid hexadecimal", start, min(end + 1, len(text)))
            if int(digits, 16) >= 2**64:
                raise _error("An invalid hexadecimal", start, end)
            self.pos = end
            self.check_after_number(end)
            self.add("int", start, end)
            return
        m = _NUMBER.match(text, start)
        assert m is not None
        end = m.end()
        if m.group(1):
            end = self.float_exponent(start, end)
            self.pos = end
            self.check_after_number(end)
            self.add("float", start, end)
            return
        if int(m.group().replace("_", "")) >= 2**64:
            raise _error("An invalid integer literal", start, end)
        self.pos = end
        self.check_after_number(end)
        self.add("int", start, end)

    def float_exponent(self, start: int, end: int) -> int:
        """Consume ``e[+-]digits`` after a float mantissa ending at ``end``."""
        text = self.text
        if end < len(text) and text[end] == "e":
            m = re.compile(r"e[+-]?[0-9]+").match(text, end)
            if m is None:
                raise _error("An invalid float literal", start, end)
            end = m.end()
        return end

    def check_after_number(self, end: int) -> None:
        text = self.text
        if end < len(text) and (is_ident_continue(text[end])):
            raise _error(f"An unexpected character '{text[end]}' was found", end, end + 1)

    # Strings ---------------------------------------------------------------------------------

    def string(self) -> None:
        start = self.pos
        self.add("punct", start, start + 1)
        self.pos = start + 1
        self.string_body(start, heredoc=False)

    def heredoc(self) -> None:
        text, start = self.text, self.pos
        self.add("punct", start, start + 3)
        after = start + 3
        if text.startswith("\r\n", after):
            after += 1
        if after >= len(text) or text[after] != "\n":
            if after >= len(text):
                raise _error(
                    'It looks like you forgot to terminate a here doc with with a closing \'"""\'',
                    start,
                    after,
                )
            raise _error(
                "It looks like you have characters tailing the here doc opening, it needs to be "
                "followed by a newline",
                start,
                start + 3,
            )
        self.pos = after + 1
        self.string_body(start, heredoc=True)

    def string_body(self, start: int, *, heredoc: bool) -> None:
        """Lex string content after the opening quote(s) up to and including the closing one."""
        text = self.text
        piece = self.pos
        while True:
            pos = self.pos
            if pos >= len(text) or (not heredoc and text[pos] == "\n"):
                self.unterminated(start, heredoc)
            ch = text[pos]
            if heredoc and text.startswith('"""', pos):
                self.close_string(piece, pos, 3)
                return
            if not heredoc and ch == '"':
                self.close_string(piece, pos, 1)
                return
            if ch == "\\":
                self.escape(pos, start, heredoc)
            elif text.startswith("#{", pos):
                if pos > piece:
                    self.add("str", piece, pos)
                self.interpolation(pos, heredoc, start)
                piece = self.pos
            else:
                self.pos += 1

    def close_string(self, piece: int, pos: int, width: int) -> None:
        if pos > piece:
            self.add("str", piece, pos)
        self.add("punct", pos, pos + width)
        self.pos = pos + width

    def unterminated(self, start: int, heredoc: bool) -> None:
        if heredoc:
            raise _error(
                'It looks like you forgot to terminate a here doc with with a closing \'"""\'',
                start,
                start + 3,
            )
        end = _line_end(self.text, start)
        raise _error(
            "It looks like you forgot to terminate a string with a closing '\"'", start, end
        )

    def escape(self, pos: int, start: int, heredoc: bool) -> None:
        text = self.text
        if pos + 1 >= len(text):
            # Tremor shows the source only up to the unfinished string token.
            err = _error("An unexpected end of stream was found", len(text), len(text) + 1)
            err.text_end = start
            raise err
        esc = text[pos + 1]
        if esc in _SIMPLE_ESCAPES:
            self.pos = pos + 2
            return
        if esc == "u":
            self.unicode_escape(pos)
            return
        if esc == "\n" and not heredoc:
            self.unterminated(start, heredoc)
        raise _error(f"An unexpected escape code '{esc}' was found", pos, pos + 2)

    def unicode_escape(self, pos: int) -> None:
        text = self.text
        end = pos + 2
        while end < pos + 6 and end < len(text) and text[end] in "0123456789abcdefABCDEF":
            end += 1
        if end < pos + 6:
            raise _error("An invalid UTF8 escape sequence was found", pos, min(end + 1, len(text)))
        code = int(text[pos + 2 : end], 16)
        if 0xD800 <= code <= 0xDFFF:
            raise _error("An invalid UTF8 escape sequence was found", pos, end)
        self.pos = end

    def interpolation(self, pos: int, heredoc: bool, string_start: int) -> None:
        """Lex ``#{ tokens }`` at ``pos``; nested strings recurse through :meth:`lex_until`."""
        text = self.text
        self.add("punct", pos, pos + 2)
        self.pos = pos + 2
        mark = len(self.tokens)
        try:
            closed = self.lex_until("}")
        except CompileError as err:
            if not err.message.startswith(_STRING_TROUBLE):
                raise
            closed = False
        if not closed:
            end = _line_end(text, pos) if heredoc else pos + 2
            err = _error(
                "It looks like you forgot to terminate a string interpolation with a closing '}'",
                pos,
                end,
                INTERP_HINT,
            )
            if heredoc:
                # Tremor shows a heredoc's unterminated interpolation from the heredoc's line on.
                line_start = text.rfind("\n", 0, string_start) + 1
                err.outer = Span(line_start, end)
            raise err
        if len(self.tokens) == mark:
            raise _error(
                "You have an interpolation without content.", pos, self.pos + 1, INTERP_HINT
            )
        self.add("punct", self.pos, self.pos + 1)
        self.pos += 1

    # Extractors ------------------------------------------------------------------------------

    def extractor_body(self, bar: int) -> None:
        """Lex ``|rule|`` starting at the opening ``|`` (escapes are checked, not applied)."""
        text = self.text
        pos = bar + 1
        while True:
            if pos >= len(text):
                self.unterminated_extractor(bar)
            ch = text[pos]
            if ch == "|":
                break
            if ch == "\\":
                nxt = text[pos + 1] if pos + 1 < len(text) else ""
                if nxt in ("|", "\\", "\n"):
                    pos += 2
                    continue
                if not nxt:
                    self.unterminated_extractor(bar)
                err = _error(f"An unexpected escape code '{nxt}' was found", pos + 1, pos + 2)
                err.text_end = pos + 2  # Tremor shows the extractor only up to the bad escape
                raise err
            if ch == "\n":
                self.unterminated_extractor(bar)
            pos += 1
        self.add("str", bar, pos + 1)
        self.pos = pos + 1

    def unterminated_extractor(self, bar: int) -> None:
        raise _error(
            "It looks like you forgot to terminate an extractor with a closing '|'",
            bar,
            _line_end(self.text, bar),
        )


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text`` (comments and whitespace dropped), or the first lexical error.

    Raises:
        CompileError: with Tremor's message and span (no source attached).
    """
    return Lexer(text).run()


def extractor_rule(raw: str) -> str:
    """Apply Tremor's extractor escapes to the text between the pipes.

    ``\\|`` is a pipe, ``\\\\`` one backslash, backslash-newline joins lines after removing the
    common indentation of the continuation lines.
    """
    pieces: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt == "\n":
                pieces.append("".join(current))
                current = []
            else:
                current.append(nxt)
            i += 2
            continue
        current.append(ch)
        i += 1
    pieces.append("".join(current))
    if len(pieces) == 1:
        return pieces[0]
    rest = pieces[1:]
    indents = [len(p) - len(p.lstrip(" \t")) for p in rest if p.strip()]
    cut = min(indents, default=0)
    return pieces[0] + "".join(p[cut:] for p in rest)
