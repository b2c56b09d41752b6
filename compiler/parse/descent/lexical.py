"""The lexical rules of the descent parser (whitespace, words, identifiers), its two failures
and the helpers every part shares; the other parts derive :class:`Lexical`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


class Fail(Exception):
    """The PEG rule surely fails at the position (its first token cannot start it)."""


class Unsupported(Exception):
    """This parser does not decide here: the grammar's rule runs instead."""


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
_PATCH_WORDS = frozenset(
    ("insert", "upsert", "update", "merge", "default", "erase", "move", "copy")
)
_EXPR_CHARS = frozenset('0123456789"{[($`+-')

# Binary operators by level, loosest first (``expr_or`` … ``expr_mul``): level of each operator.
_WORD_OPS = {"or": 0, "xor": 1, "and": 2}
_FOLD_OPS = (">>>", ">>", "<<", "+", "-", "*", "/", "%", "&", "^")
_FOLD_WORDS = frozenset(("and", "or", "xor"))
_PRED_OPS = ("==", "!=", "<=", ">=", "<", ">")


class Lexical:
    """The text, and the rules and helpers of every part; ``doc_before``: the visitor's
    doc-comment lookup (``const``, ``fn`` and ``intrinsic`` definitions)."""

    def __init__(self, text: str, doc_before: Callable[[int], str | None]) -> None:
        self.text = text
        self.size = len(text)
        self.doc_before = doc_before

    # The rules of the other parts, as one part calls them (each defined in its own module).
    expr_imut: Callable[[int], tuple[Any, int]]
    primary: Callable[[int], tuple[Any, int]]
    number: Callable[[int], tuple[Any, int]]

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

    @staticmethod
    def _guarded(method: Callable[..., tuple[Any, int]], *args: Any) -> tuple[Any, int]:
        """``method(*args)`` past the first token: a failure there is Unsupported."""
        try:
            return method(*args)
        except Fail:
            raise Unsupported from None

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

    def _comma_list(
        self, pos: int, item: Callable[[int], tuple[Any, int]]
    ) -> tuple[list[Any], int]:
        """``item (_ "," _ item)* (_ ",")?`` (Fail: the first item fails at its first token)."""
        first, end = item(pos)
        items, end = self._more(end, item, ",")
        at = self.ws(end)
        return [first, *items], at + 1 if self.text.startswith(",", at) else end

    def _more(
        self, end: int, item: Callable[[int], tuple[Any, int]], separators: str
    ) -> tuple[list[Any], int]:
        """``(_ sep _ item)*`` after an item that ends at ``end`` (``sep``: one character of
        ``separators``): the further items and the end of the last; a separator that no item
        follows is left unread."""
        items = []
        ws, text, size = self.ws, self.text, self.size
        while True:
            at = ws(end)
            if at >= size or text[at] not in separators:
                return items, end
            try:
                value, after = item(ws(at + 1))
            except Fail:
                return items, end
            items.append(value)
            end = after
