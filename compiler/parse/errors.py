"""Parse a text with the parsimonious grammar, and word its failures as Tremor does.

:func:`parse_with` lexes (Tremor lexes the whole file first, so lexical errors win over syntax
errors), parses with :func:`~compiler.grammar.load_grammar`'s grammar and builds the AST with a
parsimonious ``NodeVisitor``. A text that does not parse is parsed again with a
:class:`FailureRecorder`, which keeps the terminals that failed where each token starts; the error
names the token at the furthest of them and the tokens the grammar expected there, in Tremor's
words (:data:`TOKEN_NAMES`, :meth:`FailureRecorder.expected`).

Invariant: everything here raises or returns ``CompileError`` only; no other exception escapes
:func:`parse_with` or :func:`run_guarded`.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from parsimonious.exceptions import ParseError

from ..diagnostics import CompileError
from ..grammar import load_grammar
from ..lex import KEYWORDS, Token, tokenize
from ..source import Source, Span

if TYPE_CHECKING:
    from parsimonious import Grammar, NodeVisitor
    from parsimonious.expressions import Expression

T = TypeVar("T")


def outer_span(text: str, span: Span, up: int = 2, down: int = 2) -> Span:
    """``span`` widened to whole lines, ``up`` lines before and ``down`` lines after."""
    start = _line_start(text, span.start, up)
    end = text.find("\n", max(span.start, span.end - 1))
    end = len(text) if end < 0 else end
    for _ in range(down):
        if end >= len(text):
            break
        nxt = text.find("\n", end + 1)
        end = len(text) if nxt < 0 else nxt
    return Span(start, max(span.end, end + 1 if end < len(text) else len(text)))


def _line_start(text: str, pos: int, up: int) -> int:
    start = text.rfind("\n", 0, pos) + 1
    for _ in range(up):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def lexical_error(err: CompileError, text: str) -> CompileError:
    """Give a lexer error Tremor's context: two lines before, none after."""
    if err.span is not None and err.outer is None:
        err.outer = outer_span(text, err.span, up=2, down=0)
    return err


def best_hint(given: str, options: list[str], max_dist: int) -> str | None:
    """Tremor's ``best_hint``: the option closest by Damerau-Levenshtein, ties by text."""
    scored = [(_distance(given, o), o) for o in options]
    scored = [s for s in scored if s[0] <= max_dist]
    return min(scored)[1] if scored else None


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (unrestricted transpositions of adjacent characters)."""
    da: dict[str, int] = {}
    big = len(a) + len(b)
    d = [[big] * (len(b) + 2) for _ in range(len(a) + 2)]
    for i in range(len(a) + 1):
        d[i + 1][0], d[i + 1][1] = big, i
    for j in range(len(b) + 1):
        d[0][j + 1], d[1][j + 1] = big, j
    for i in range(1, len(a) + 1):
        db = 0
        for j in range(1, len(b) + 1):
            i1, j1 = da.get(b[j - 1], 0), db
            cost = 0 if a[i - 1] == b[j - 1] else 1
            if cost == 0:
                db = j
            d[i + 1][j + 1] = min(
                d[i][j] + cost,
                d[i + 1][j] + 1,
                d[i][j + 1] + 1,
                d[i1][j1] + (i - i1 - 1) + 1 + (j - j1 - 1),
            )
        da[a[i - 1]] = i
    return d[len(a) + 1][len(b) + 1]


def unrecognized_hint(token: str, expected: list[str]) -> str | None:
    """The NOTE Tremor attaches to an unrecognized-token error."""
    if token in ("default", "case"):
        return "You might have a trailing `,` in the prior statement"
    if token == "event" and "`<ident>`" in expected:
        return (
            "It looks like you tried to use the key 'event' as part of a path expression, "
            "consider quoting it as `event` to make it an identifier or use array like access "
            'such as ["event"].'
        )
    if token == "-" and "`(`" in expected:
        return "Try wrapping this expression in parentheses `(` ... `)`"
    if token in KEYWORDS and "`<ident>`" in expected:
        return (
            f"It looks like you tried to use '{token}' as an ident, consider quoting it as "
            f"`{token}` to make it an identifier."
        )
    best = best_hint(token, expected, 3)
    return f"Did you mean to use {best}?" if best else None


# --------------------------------------------------------------------------------------------
# Expected tokens, read off the grammar

#: Tremor's name of each token-class terminal, by grammar rule name. Punctuation literals are
#: named by their text and keyword rules (``kw_*``, and rules aliasing one) by their word.
TOKEN_NAMES = {
    "int_lit": "int",
    "float_lit": "float",
    "ident": "<ident>",
    "plain_ident": "<ident>",
    "quoted_ident": "<ident>",
    "mod_comment": "<mod-comment>",
    "doc_comment": "<doc-comment>",
}
# Keyword rules are ``word(?!\w)`` regexes; parsimonious may rename them after an aliasing rule
# (``event_root = kw_event``), so they are recognised by pattern, not by name.
_KEYWORD = re.compile(r"([a-z]+)\(\?!\\w\)")
_KEYWORD_TOKENS = {"true": "bool", "false": "bool", "null": "nil"}
# Tremor orders expected tokens by terminal name; only the heredoc's (`heredoc_start`) differs
# from the text it is shown as.
_SORT_NAME = {'"""': "heredoc"}
# Tremor's grammar declares the terminal `.` twice (its `extern` token list maps "." to
# Token::Dot two times), so each of its expected lists that names `.` names it twice.
_REPEATED = {".": 2}


class FailureRecorder:
    """Stands in for parsimonious' ``ParseError`` during matching and keeps, for each place a
    token of Tremor's lexer starts (and each of ``ends``), the Tremor names of every terminal
    that failed there (parsimonious only keeps one expression, at the furthest position).

    Tremor's parser reads whole tokens, so a terminal the PEG tries inside a token (the second
    ``::`` in ``:::``) is none it could have expected: such failures are not kept.

    Invariant: ``failed[p]`` holds the names of all reportable terminals that failed at ``p``;
    every key is in ``places``.
    """

    def __init__(self, excluded: frozenset[int], tokens: list[Token], *ends: int) -> None:
        from parsimonious.expressions import Literal, Regex

        self._kinds = Literal, Regex
        self.excluded = excluded
        self.places = frozenset([*ends, *(token.start for token in tokens)])
        self.punctuation = punctuation(tokens)  # as compiler.grammar.TokenLiteral reads it
        self.failed: dict[int, set[str]] = {}
        self._pending: Expression | None = None

    # parsimonious records a failure as ``error.expr = e; error.pos = p`` whenever
    # ``p >= error.pos``; reporting -1 and no expr makes it tell us about every failure.
    @property
    def pos(self) -> int:
        return -1

    @pos.setter
    def pos(self, value: int) -> None:
        if value not in self.places:
            return
        name = self._token_name(self._pending)
        if name is not None:
            self.failed.setdefault(value, set()).add(name)

    @property
    def expr(self) -> None:
        return None

    @expr.setter
    def expr(self, value: Expression) -> None:
        self._pending = value

    def _token_name(self, expr: Expression | None) -> str | None:
        if expr is None or id(expr) in self.excluded:
            return None
        literal, regex = self._kinds
        if isinstance(expr, literal):
            return expr.literal.strip()
        if expr.name in TOKEN_NAMES:
            return TOKEN_NAMES[expr.name]
        keyword = _KEYWORD.fullmatch(expr.re.pattern) if isinstance(expr, regex) else None
        if keyword is not None:
            return _KEYWORD_TOKENS.get(keyword[1], keyword[1])
        return None

    def expected(self, at: int) -> list[str]:
        """The tokens expected at ``at``, back-ticked and in Tremor's order."""
        names = self.failed.get(at, set())
        ordered = sorted(names, key=lambda n: _SORT_NAME.get(n, n))
        return [f"`{n}`" for n in ordered for _ in range(_REPEATED.get(n, 1))]


_EXCLUDED: dict[int, frozenset[int]] = {}


def lookahead_terminals(grammar: Grammar) -> frozenset[int]:
    """Ids of the unnamed terminals inside lookaheads (``!"="``): their failures are not tokens
    the parser expects."""
    from parsimonious.expressions import Lookahead

    key = id(grammar)
    if key not in _EXCLUDED:
        found: set[int] = set()
        seen: set[int] = set()
        stack: list[Any] = list(grammar.values())
        while stack:
            expr = stack.pop()
            if id(expr) in seen:
                continue
            seen.add(id(expr))
            if isinstance(expr, Lookahead):
                found.update(id(t) for t in _unnamed_inside(expr.members[0]))
            stack.extend(getattr(expr, "members", ()))
        _EXCLUDED[key] = frozenset(found)
    return _EXCLUDED[key]


def _unnamed_inside(expr: Expression) -> list[Expression]:
    if expr.name:
        return []
    return [expr, *(t for m in getattr(expr, "members", ()) for t in _unnamed_inside(m))]


class _Punctuated(ParseError):  # type: ignore[misc]
    """parsimonious' ``ParseError`` with the ``punctuation`` a
    :class:`~compiler.grammar.TokenLiteral` reads."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        super().__init__(text)
        self.punctuation = punctuation(tokens)


def punctuation(tokens: list[Token]) -> dict[int, int]:
    """Where each punctuation token ends, by where it starts."""
    return {token.start: token.end for token in tokens if token.kind == "punct"}


def _failures(
    names: tuple[str, ...], rule: str | None, text: str, tokens: list[Token]
) -> FailureRecorder:
    """The failures of a parse of ``text`` by ``rule`` of the grammar of ``names``.

    parsimonious does not try a repetition's (or an option's) expression where it would start at
    the end of the text. The text is parsed with a newline and a NUL appended (the whitespace
    rule takes the newline, no rule the NUL), so every expression that could follow the text is
    tried; what failed after the newline counts as failed at the end of the text.
    """
    grammar = load_grammar(*names)
    expr = grammar.default_rule if rule is None else grammar[rule]
    end = len(text)
    recorder = FailureRecorder(lookahead_terminals(grammar), tokens, end, end + 1)
    expr.match_core(text + "\n\0", 0, defaultdict(dict), recorder)
    if end + 1 in recorder.failed:
        recorder.failed.setdefault(end, set()).update(recorder.failed.pop(end + 1))
    return recorder


def _wanted(recorder: FailureRecorder, at: int) -> str:
    expected = recorder.expected(at)
    return expected[0] if len(expected) == 1 else "one of " + ", ".join(expected)


def syntax_error(
    names: tuple[str, ...], rule: str | None, text: str, tokens: list[Token]
) -> CompileError:
    """``Found the token `x` but expected …`` at the furthest failure of the grammar of
    ``names`` (``rule``) on ``text``, Tremor-style.

    A failure at the end of the text is reported as Tremor reports an unexpected end of file:
    at the last token, with the tokens expected where it starts (those that fail at the end of
    the text without it).
    """
    recorder = _failures(names, rule, text, tokens)
    furthest = max(recorder.failed, default=0)
    index = next((k for k, t in enumerate(tokens) if t.start >= furthest), None)
    if index is None and not tokens:
        return CompileError(
            f"Found the end of the file but expected {_wanted(recorder, len(text))}"
        )
    if index is None:
        index = len(tokens) - 1
        recorder = _failures(names, rule, text[: tokens[index].start], tokens[:index])
    tok = tokens[index]
    expected = recorder.expected(tok.start)
    wanted = _wanted(recorder, tok.start)
    shown = tok.text if tok.kind != "str" else '"'
    span = Span(tok.start, tok.end)
    return CompileError(
        f"Found the token `{shown}` but expected {wanted}",
        span,
        outer=outer_span(text, span),
        hint=unrecognized_hint(shown, expected),
    )


#: The longest text parsed (the packrat parse's time and memory grow with the text).
MAX_SOURCE_CHARS = 1_000_000


def parse_with(
    names: tuple[str, ...], rule: str | None, source: Source, visitor: NodeVisitor
) -> Any:
    """Lex, parse all of ``source`` with ``rule`` (default rule if None) of the grammar of
    ``names`` (:func:`~compiler.grammar.load_grammar`), then build the AST with ``visitor``.

    Raises:
        CompileError: lexical or syntax error (``source`` attached); nothing else escapes.
    """
    text = source.text
    if len(text) > MAX_SOURCE_CHARS:
        raise CompileError(
            f"The script is too large to be parsed ({len(text)} characters, the limit is "
            f"{MAX_SOURCE_CHARS})",
            source=source,
        )

    def run() -> Any:
        try:
            tokens = tokenize(text)
        except CompileError as err:
            raise lexical_error(err, text) from None
        grammar = load_grammar(*names)
        expr = grammar.default_rule if rule is None else grammar[rule]
        node = expr.match_core(text, 0, defaultdict(dict), _Punctuated(text, tokens))
        if node is None or node.end < len(text):
            raise syntax_error(names, rule, text, tokens)
        return visitor.visit(node)

    return run_guarded(run, source)


_STACK = 512 * 1024 * 1024


def run_guarded(fn: Callable[[], T], source: Source) -> T:
    """Run a recursive parser/visitor ``fn`` on a big-stack thread; errors become CompileError.

    Deep nesting would overflow Python's default recursion limit; here it gets a large limit and
    stack, and a remaining RecursionError or MemoryError is reported as a CompileError.
    """
    result: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as exc:  # noqa: BLE001 - re-raised below as CompileError
            failure.append(exc)

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        sys.setrecursionlimit(max(old_limit, 200_000))
        threading.stack_size(_STACK)
        worker = threading.Thread(target=target, name="tremorc-parse")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if failure:
        raise _as_compile_error(failure[0], source)
    return result[0]


def _as_compile_error(exc: BaseException, source: Source) -> CompileError:
    if isinstance(exc, CompileError):
        return exc.with_source(source)
    if isinstance(exc, RecursionError):
        return CompileError("The script is nested too deeply to be parsed", source=source)
    if isinstance(exc, MemoryError):
        return CompileError("The script is too large to be parsed", source=source)
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        raise exc
    inner = getattr(exc, "original_class", None)
    return CompileError(
        f"Internal parser error: {inner or type(exc).__name__}: {exc}", source=source
    )
