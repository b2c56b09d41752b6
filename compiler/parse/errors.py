"""Turn parse failures into Tremor-style ``CompileError``s, and run parsers safely.

Parsimonious reports only the furthest position it reached. Tremor (an LALR parser over tokens)
reports the token found there and the tokens its parser state accepts. We name the token with the
lexer (:mod:`compiler.lex`) and derive the expected list from the tokens before it, using tables
copied from Tremor's own messages for the common parser states.

Invariant: everything here raises or returns ``CompileError`` only; no other exception escapes
:func:`parse_rule` or :func:`run_guarded`.
"""

from __future__ import annotations

import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ..diagnostics import CompileError
from ..grammar import load_grammar, load_peg
from ..lex import KEYWORDS, Token, lexes_cleanly, tokenize
from ..source import Source, Span
from .fastpeg import fast_match

if TYPE_CHECKING:
    from parsimonious.nodes import Node as PNode

    from .peg import Node

T = TypeVar("T")

_PRIMARY = (
    '`!`, `"`, `$`, `(`, `<<`, `<ident>`, `[`, `absent`, `args`, `bool`, `event`, `float`, '
    '`group`, `"""`, `int`, `merge`, `nil`, `not`, `patch`, `present`, `recur`, `state`, '
    "`window`, `{`"
)
NOT_OPERAND = _PRIMARY.split(", ")
EXPR_START = (
    '`!`, `"`, `$`, `(`, `+`, `-`, `<<`, `<ident>`, `[`, `absent`, `args`, `bool`, `event`, '
    '`float`, `for`, `group`, `"""`, `int`, `match`, `merge`, `nil`, `not`, `patch`, `present`, '
    "`recur`, `state`, `window`, `{`"
).split(", ")
TOP_START = (
    '`!`, `"`, `$`, `(`, `+`, `-`, `<<`, `<doc-comment>`, `<ident>`, `<mod-comment>`, `[`, '
    "`absent`, `args`, `bool`, `const`, `drop`, `emit`, `event`, `float`, `fn`, `for`, `group`, "
    '`"""`, `int`, `intrinsic`, `let`, `match`, `merge`, `nil`, `not`, `patch`, `present`, '
    "`recur`, `state`, `use`, `window`, `{`"
).split(", ")
STMT_START = [
    t
    for t in TOP_START
    if t not in ("`<doc-comment>`", "`<mod-comment>`", "`const`", "`fn`", "`intrinsic`", "`use`")
]
PATH_FOLLOW = (
    "`!=`, `%`, `&`, `*`, `+`, `-`, `.`, `.`, `/`, `;`, `<`, `<<`, `<=`, `==`, `>`, `>=`, `>>`, "
    "`>>>`, `[`, `^`, `and`, `or`, `xor`"
).split(", ")
LOCAL_FOLLOW = (
    "`!=`, `%`, `&`, `(`, `*`, `+`, `-`, `.`, `.`, `/`, `::`, `;`, `<`, `<<`, `<=`, `==`, `>`, "
    "`>=`, `>>`, `>>>`, `[`, `^`, `and`, `or`, `xor`"
).split(", ")
LET_TARGET = "`$`, `(`, `<ident>`, `[`, `args`, `event`, `group`, `state`, `window`, `{`".split(
    ", "
)
FOLD_OPS = "`%`, `&`, `*`, `+`, `-`, `/`, `<<`, `>>`, `>>>`, `^`, `and`, `or`, `xor`".split(", ")
_BINARY_OPS = {"or", "xor", "and", "^", "&", "==", "!=", "<", "<=", ">", ">=", ">>", ">>>", "<<"}
_BINARY_OPS |= {"+", "-", "*", "/", "%"}
_EXPR_OPENERS = {"when", "=>", "(", ",", "=", "of", "[", ":", "#{", "into", "emit", "const"}
_PATH_ROOTS = {"event", "state", "args", "group", "window", "$"}


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


def _stmt_tokens(tokens: list[Token], i: int) -> list[Token]:
    """Tokens of the current top-level statement before index ``i``."""
    j = i
    while j > 0 and tokens[j - 1].text != ";":
        j -= 1
    return tokens[j:i]


def expected_for(tokens: list[Token], i: int) -> list[str]:
    """Tremor's expected-token list for a failure at ``tokens[i]`` (best effort)."""
    if i == 0:
        return TOP_START
    prev = tokens[i - 1]
    stmt = _stmt_tokens(tokens, i)
    in_use = bool(stmt) and stmt[0].text == "use" and stmt[0].kind == "kw"
    if prev.text == ";" or prev.kind in ("doc", "moddoc"):
        return TOP_START
    if in_use and len(stmt) == 1:
        return ["`<ident>`"]
    if in_use and prev.text == "::":
        return ["`<ident>`", "`{`"]
    if in_use and prev.kind == "ident":
        return ["`::`", "`;`", "`as`"]
    if prev.text == "use":
        return FOLD_OPS
    if prev.text == "let":
        return LET_TARGET
    if prev.text in ("!", "not"):
        return NOT_OPERAND
    return _after_operand(tokens, i, prev)


def _after_operand(tokens: list[Token], i: int, prev: Token) -> list[str]:
    if prev.kind == "ident":
        before = tokens[i - 2].text if i >= 2 else ""
        return PATH_FOLLOW if before == "." else LOCAL_FOLLOW
    if prev.text in _PATH_ROOTS or prev.text in ("]", ")", "}") or prev.kind in ("int", "float"):
        return PATH_FOLLOW
    if prev.text in _BINARY_OPS or prev.text in _EXPR_OPENERS:
        return EXPR_START
    return EXPR_START


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


def syntax_error(text: str, pos: int, tokens: list[Token] | None = None) -> CompileError:
    """The Tremor-style error for a parse that could get no further than ``pos``."""
    if tokens is None:
        tokens = tokenize(text)
    if not tokens:
        return CompileError("Found the end of the script but expected an expression")
    i = next((k for k, t in enumerate(tokens) if t.end > pos), len(tokens))
    if i == len(tokens):
        i -= 1
        expected = expected_for(tokens, i)
    else:
        expected = expected_for(tokens, i)
    tok = tokens[i]
    shown = tok.text if tok.kind != "str" else '"'
    if len(expected) == 1:
        message = f"Found the token `{shown}` but expected {expected[0]}"
    else:
        message = f"Found the token `{shown}` but expected one of {', '.join(expected)}"
    span = Span(tok.start, tok.end)
    return CompileError(
        message, span, outer=outer_span(text, span), hint=unrecognized_hint(shown, expected)
    )


# parsimonious parses ~30 kB/s with its packrat cache; beyond this a parse would take minutes.
MAX_SOURCE_CHARS = 1_000_000


def parse_rule(
    names: tuple[str, ...],
    rule: str | None,
    source: Source,
    collapse: frozenset[str] = frozenset(),
    text_rules: frozenset[str] = frozenset(),
    answered: dict | None = None,
) -> Node | PNode:
    """Parse all of ``source.text`` with ``rule`` (default rule if None) of the grammar of
    ``names`` (:func:`~compiler.grammar.load_grammar`), Tremor-style errors (``collapse``,
    ``text_rules``, ``answered``: see :func:`~compiler.parse.fastpeg.fast_match`).

    The lexer runs first, as in Tremor, so lexical errors win over parse errors. The fast
    matcher's tree is returned; when it gives none, parsimonious parses (its tree is returned
    if the text parses after all) and words the failure.

    Raises:
        CompileError: lexical or syntax error, with ``source`` attached.
    """
    text = source.text
    if len(text) > MAX_SOURCE_CHARS:
        raise CompileError(
            f"The script is too large to be parsed ({len(text)} characters, the limit is "
            f"{MAX_SOURCE_CHARS})",
            source=source,
        )
    tokens = None
    if not lexes_cleanly(text):  # else the tokens are only needed to word a syntax error
        try:
            tokens = tokenize(text)
        except CompileError as err:
            raise lexical_error(err, text).with_source(source) from None
    fast_rules = load_peg(*names)
    fast = fast_match(
        fast_rules.default_rule if rule is None else fast_rules[rule],
        text,
        collapse,
        text_rules,
        answered,
    )
    if fast is not None:
        return fast
    from parsimonious.exceptions import ParseError

    grammar = load_grammar(*names)
    expr = grammar.default_rule if rule is None else grammar[rule]
    error = ParseError(text)
    node = expr.match_core(text, 0, defaultdict(dict), error)
    if node is None or node.end < len(text):
        pos = max(error.pos, node.end if node is not None else 0)
        tokens = tokenize(text) if tokens is None else tokens
        raise syntax_error(text, pos, tokens).with_source(source)
    return node


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
