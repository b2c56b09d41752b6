"""A faster matcher for parsimonious grammars: the same parse tree, built by closures.

:func:`fast_match` compiles a grammar's expressions, as :mod:`compiler.parse.peg` copies them (no
parsimonious import on this path), into one closure each for one text and runs them; it returns
exactly the tree parsimonious' ``match_core`` would give for the grammar copied (nodes of
:mod:`~compiler.parse.peg`'s ``Node`` and ``RegexNode``, at every place the copy of the parsimonious
node's expression, the same positions and children), or None when the text does not parse in full.
It records no failures: on None the caller re-parses with parsimonious and its failure recorder, so
every syntax error is still produced (and worded) by the one slow path. Asked to ``collapse`` rules
its visitor passes through, it leaves their nodes out (the same AST, half the nodes); asked to match
``text_rules`` (rules the visitor reads only as text) whole, it matches each as one regex
(:mod:`compiler.parse.regular`) on a plain text and builds its node without children.

Invariants: PEG semantics are parsimonious' own (ordered choice, greedy quantifiers that stop at the
end of the text or on an empty repetition past ``min``, zero-width lookaheads); memoisation (the
whitespace rule, and every named compound rule when a first run re-parses too much, see
:func:`fast_match`; parsimonious memoises every expression) changes speed, never the result: a
memoised node may appear at several places of the tree, as in parsimonious' own trees; regex
terminals run on Python's ``re`` when the text is plain ASCII (``_PLAIN``), else on parsimonious'
own ``regex`` (imported then only). On a plain text a choice tries only the alternatives that can
start with the character at the position (:mod:`compiler.parse.start_sets`; never one that could
match there). :func:`fast_visit` is ``NodeVisitor.visit`` without the per-node ``try``: any
exception other than the visitor's ``unwrapped_exceptions`` re-runs parsimonious' own ``visit``
(imported then) so internal errors read the same; visitors are duck-typed (either kind of node).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .descent import Fail, Unsupported
from .peg import (
    Expression,
    Literal,
    Lookahead,
    Node,
    OneOf,
    Quantifier,
    Regex,
    RegexNode,
    Sequence,
    all_expressions,
)
from .start_sets import PLAIN_CHARS, sequence_starts, starts

Matcher = Callable[[int], "Node | None"]
LEAF: Any = ()
"""The children of every node without children: one shared empty tuple. A large program's parse
tree is a quarter leaves; an empty list each (and a regex node's match object, which no visitor
reads) was a third of the memory its parse touched, each new page a fault (~7 us here)."""
_MISSING: Any = object()
_new = Node.__new__


def _node(expr: Expression, text: str, start: int, end: int, children: list[Node]) -> Node:
    """``Node(expr, text, start, end, children)``, storing the five slots itself (Node's
    ``__init__``, called through the class, was a sixth of a parse)."""
    node = _new(Node)
    node.expr = expr
    node.full_text = text
    node.start = start
    node.end = end
    node.children = children
    return node


def fast_match(
    expr: Expression,
    text: str,
    collapse: frozenset[str] = frozenset(),
    text_rules: frozenset[str] = frozenset(),
    answered: Answers | None = None,
) -> Node | None:
    """The parse of all of ``text`` by ``expr`` as parsimonious builds it, or None if there is
    none (or the grammar uses an expression kind this matcher does not know, or recursion runs
    out: the caller's slow path then decides).

    ``collapse``: rules (named sequences or choices) whose node is replaced by its first child
    when every later child matched the empty text, which the visitor must visit as that child
    (a choice has one child, always). Half the nodes of a program are the precedence levels an
    operand passes through with no operator (``expr_or`` … ``expr_mul``, ``primary`` without
    segments); collapsed, they are neither built nor visited.

    ``text_rules``: rules whose node the visitor reads only as text and span (never its
    children): on a plain text of :data:`WHOLE_RULES_FROM` characters or more each is matched
    by one regex with its PEG meaning (when
    :func:`~compiler.parse.regular.as_regex` gives one) and its node has no children. An
    identifier was four matcher calls and four nodes (the choice, the keyword lookahead, the
    regex); it is one of each.

    Memoisation: a first run memoises only the whitespace rule, whose memo look-ups hit; a
    compound rule is almost never tried twice at one position (no memo hit over the corpus,
    ~1M misses for a 10,000-line program: a third of the parse). Nested backtracking can make
    that run exponential (``e[e[e[…]]]`` tries a range segment, then an index segment, at each
    level), so it stops once the whitespace rule is re-read :data:`REPARSE_BUDGET` times per
    character, and the parse runs again memoising every named rule (parsimonious' own linear
    bound).

    ``answered``: rules (by name) a parser of their own answers on a plain text
    (:mod:`compiler.parse.descent`): at each place the grammar tries one, the parser's
    ``(value, end)`` becomes a :class:`BuiltNode` carrying the visited value; where it raises
    ``Fail`` the rule fails there, and where it raises ``Unsupported`` the grammar's own rule
    runs."""
    budget = REPARSE_BUDGET * len(text) + 4096
    try:
        return _run(expr, text, collapse, text_rules, budget, answered)
    except _OverBudget:
        return _run(expr, text, collapse, text_rules, None, answered)


REPARSE_BUDGET = 16
"""Memo hits of the whitespace rule per character of text a first, lightly memoised run may
make (the corpus stays under 1 per character but for texts of a few characters)."""


def _run(
    expr: Expression,
    text: str,
    collapse: frozenset[str],
    text_rules: frozenset[str],
    budget: int | None,
    answered: Answers | None = None,
) -> Node | None:
    """One parse of ``text`` (see :func:`fast_match`); ``budget``: the whitespace rule's memo
    hits allowed before :class:`_OverBudget`, or None to memoise every named rule."""
    compiler = _Compiler(text, collapse, text_rules, budget, answered)
    try:
        node = compiler.get(expr)(0)
    except (_Unsupported, RecursionError):
        return None
    finally:
        compiler.release()
    if node is None or node.end != len(text):
        return None
    return node


WHOLE_RULES_FROM = 8192
"""Characters from which a plain text's ``text_rules`` are matched whole: their regexes are
compiled once per process (~5 ms for the script grammar's four), which a shorter program does
not win back (instructions of a CLI build: the 1,955-character real-workflow program +1 %,
the 55,782-character match program -3.4 %)."""


class _OverBudget(Exception):
    """A lightly memoised run re-parsed too much (see :func:`fast_match`)."""


class _Unsupported(Exception):
    """An expression kind outside Literal/Regex/Sequence/OneOf/Lookahead/Quantifier."""


# Printable ASCII and the whitespace both regex engines agree on: there Python's ``re`` matches
# each grammar pattern exactly as parsimonious' ``regex`` does (their ``\s`` differ on \x1c-\x1f
# and their ``\w`` beyond ASCII), about twice as fast.
_PLAIN = re.compile(r"[\t\n\x0b\x0c\r\x20-\x7e]*")


class _Compiler:
    """One closure per expression of a grammar, for one text; cycles go through a cell."""

    def __init__(
        self,
        text: str,
        collapse: frozenset[str],
        text_rules: frozenset[str],
        budget: int | None,
        answered: Answers | None = None,
    ) -> None:
        """``budget``: memoise only the whitespace rule and allow it that many memo hits; None:
        memoise every named rule (see :func:`fast_match`)."""
        self.text = text
        self.collapse = collapse
        self.budget = budget
        self.plain = _PLAIN.fullmatch(text) is not None
        self.answered = (answered or {}) if self.plain else {}
        self.declines = [ANSWER_DECLINES + len(text) // 1000]
        whole = self.plain and len(text) >= WHOLE_RULES_FROM
        self.text_rules = text_rules if whole else frozenset()
        self.built: dict[int, Matcher] = {}
        self.cells: dict[int, list[Matcher]] = {}
        self.pending: set[int] = set()
        self.memos: list[dict[int, Node | None]] = []

    def get(self, expr: Expression) -> Matcher:
        """The matcher of ``expr`` (an indirection while ``expr`` itself is being built)."""
        key = id(expr)
        found = self.built.get(key)
        if found is not None:
            return found
        if key in self.pending:
            cell = self.cells.setdefault(key, [])
            return lambda pos: cell[0](pos)
        self.pending.add(key)
        matcher = self.make(expr)
        if expr.name and _skipper(expr):
            matcher = _memoised(matcher, self.memos, self.budget)
        elif expr.name and self.budget is None and not isinstance(expr, (Literal, Regex)):
            matcher = _memoised(matcher, self.memos, None)
        self.built[key] = matcher
        self.cells.setdefault(key, []).append(matcher)
        return matcher

    def release(self) -> None:
        """Empty the memos and break the matchers' reference cycles (rules refer to each other
        through cells): the parse tree's nodes then go with their last reference instead of
        waiting, a million of them for a 10,000-line program, for the cyclic collector."""
        for memo in self.memos:
            memo.clear()
        for cell in self.cells.values():
            cell.clear()
        self.built.clear()

    def _operator_guard(self, expr: Expression) -> tuple[Matcher | None, frozenset[str] | None]:
        """For ``expr`` = ``skipper op …`` with the first characters of ``op`` known: the
        skipper's matcher and those characters; else ``(None, None)``."""
        if type(expr) is not Sequence or len(expr.members) < 2 or not _skipper(expr.members[0]):
            return None, None
        first = _first_chars(expr.members[1], set())
        if not first:
            return None, None
        return self.get(expr.members[0]), first

    def _guarded(self, expr: Expression, matcher: Matcher) -> Matcher:
        """``matcher`` of ``expr``, or when ``expr`` is ``skipper op …`` with the first characters
        of ``op`` known, a matcher that fails without calling it when the character after the
        skipped text is none of them (an operand followed by no operator of this level)."""
        skip, first = self._operator_guard(expr)
        if skip is None or first is None:
            return matcher
        text, size = self.text, len(self.text)

        def match(pos: int) -> Node | None:
            skipped = skip(pos)
            if skipped is None:
                return None
            at = skipped.end
            if at >= size or text[at] not in first:
                return None
            return matcher(pos)

        return match

    def _levels(self, expr: Sequence) -> Matcher:
        """The matcher of a collapsed precedence level fused with the levels below it, while the
        first member is again one (:func:`_level_chain`). With every rule memoised (``budget``
        None, the bounded run) each level keeps its own memoised matcher instead."""
        chain = [expr]
        while self.budget is not None and _collapsed_level(chain[-1].members[0], self.collapse):
            chain.append(chain[-1].members[0])  # type: ignore[arg-type]
        steps = []
        for level in reversed(chain):  # innermost first
            repeated = level.members[1].members[0]
            member = self.get(repeated)
            skip, first = self._operator_guard(repeated)
            guarded = self._guarded(repeated, member)
            steps.append(_Step(level, level.members[1], member, guarded, skip, first))
        return _level_chain(self.text, self.get(chain[-1].members[0]), tuple(steps))

    def make(self, expr: Expression) -> Matcher:
        """The unmemoised matcher of ``expr``: the answering parser's when it has one (falling
        back on this one), else by kind."""
        parse = self.answered.get(expr.name) if expr.name else None
        if parse is not None:
            return _answered(parse, self.text, self.make_by_kind(expr), self.declines)
        return self.make_by_kind(expr)

    def make_by_kind(self, expr: Expression) -> Matcher:
        """The unmemoised matcher of ``expr``, by kind."""
        if expr.name in self.text_rules:
            whole = _whole_regex(expr)
            if whole is not None:
                return _text_rule(expr, self.text, whole)
        kind = type(expr)
        if kind is Literal:
            return _literal(expr, self.text)
        if kind is Regex:
            fast = expr.stdlib() if self.plain else None
            return _regex(expr, self.text, fast or expr.re)
        members = [self.get(m) for m in getattr(expr, "members", ())]
        collapsed = expr.name in self.collapse
        if kind is Sequence and collapsed and _is_level(expr):
            return self._levels(expr)  # type: ignore[arg-type]
        if kind is Sequence:
            return (_collapsing_sequence if collapsed else _sequence)(expr, self.text, members)
        if kind is OneOf:
            skipper = _leading_skipper(expr) if self.plain else None
            alternatives = _dispatch(expr, members, skipper, self.plain)
            if skipper is not None and alternatives.by_char:
                alternatives.skip = self.get(skipper)
            return _choice(expr, self.text, alternatives, own_node=not collapsed)
        if kind is Lookahead:
            return _lookahead(expr, self.text, members[0])
        if kind is Quantifier:
            return _quantifier(expr, self.text, members[0])
        raise _Unsupported(kind.__name__)


def _skipper(expr: Expression) -> bool:
    """A regex that matches the empty text (the whitespace-and-comments rule ``_``): every level
    of a precedence chain tries it at the same position, so it is worth memoising, unlike other
    terminals (one regex call is cheaper than a memo look-up that mostly misses)."""
    return isinstance(expr, Regex) and (expr.stdlib() or expr.re).match("") is not None


def _memoised(matcher: Matcher, memos: list[dict[int, Node | None]], budget: int | None) -> Matcher:
    """``matcher`` memoised; with a ``budget``, raising :class:`_OverBudget` at the memo hit
    past it."""
    memo: dict[int, Node | None] = {}
    memos.append(memo)
    get = memo.get
    if budget is None:

        def match(pos: int) -> Node | None:
            node = get(pos, _MISSING)
            if node is _MISSING:
                node = memo[pos] = matcher(pos)
            return node

        return match
    left = [budget]

    def budgeted(pos: int) -> Node | None:
        node = get(pos, _MISSING)
        if node is _MISSING:
            node = memo[pos] = matcher(pos)
        else:
            left[0] -= 1
            if left[0] < 0:
                raise _OverBudget
        return node

    return budgeted


_WHOLE: dict[int, tuple[Expression, re.Pattern[str] | None]] = {}


def _whole_regex(expr: Expression) -> re.Pattern[str] | None:
    """:func:`~compiler.parse.regular.as_regex` of ``expr``, memoised per rule (the memo keeps
    the rule alive, so its id is not reused)."""
    found = _WHOLE.get(id(expr))
    if found is None:
        from .regular import as_regex  # a short program's build never needs it

        found = _WHOLE[id(expr)] = (expr, as_regex(expr))
    return found[1]


class BuiltNode(Node):
    """A rule's node built by an answering parser (see :func:`fast_match`): no children, its
    visited ``value`` already made; :func:`fast_visit` gives that value."""

    __slots__ = ("value",)


class _Answered:
    """The ``expr`` of every :class:`BuiltNode` (a name no grammar rule has)."""

    name = "<answered>"


ANSWERED = _Answered()
Answers = dict[str, Callable[[int], tuple[Any, int]]]


ANSWER_DECLINES = 32
"""How often an answering parser may leave a rule to the grammar (plus one per 1,000 characters)
before the grammar parses the rest alone: each time, the grammar's rule re-parses what the parser
read, and the parser is asked again at each answered rule inside it, so a construct it leaves
to the grammar deep inside nested rules costs about its depth times its extent (bounded so)."""


def _answered(
    parse: Callable[[int], tuple[Any, int]], text: str, grammar: Matcher, declines: list[int]
) -> Matcher:
    """``parse``'s node where it answers, None where it fails, ``grammar``'s where it does not
    decide (and once it declined too often, see :data:`ANSWER_DECLINES`)."""

    def match(pos: int) -> Node | None:
        if declines[0] <= 0:
            return grammar(pos)
        try:
            value, end = parse(pos)
        except Fail:
            return None
        except Unsupported:
            declines[0] -= 1
            return grammar(pos)
        node = _new(BuiltNode)
        node.expr, node.full_text, node.start, node.end = ANSWERED, text, pos, end
        node.children, node.value = LEAF, value
        return node

    return match


def _text_rule(expr: Expression, text: str, whole: re.Pattern[str]) -> Matcher:
    """A text rule matched by its one regex: its node, without children."""
    search = whole.match

    def match(pos: int) -> Node | None:
        found = search(text, pos)
        if found is None:
            return None
        return _node(expr, text, pos, found.end(), LEAF)

    return match


def _literal(expr: Literal, text: str) -> Matcher:
    literal, size = expr.literal, len(expr.literal)
    startswith = text.startswith

    def match(pos: int) -> Node | None:
        if startswith(literal, pos):
            return _node(expr, text, pos, pos + size, LEAF)
        return None

    return match


def _regex(expr: Regex, text: str, compiled: Any) -> Matcher:
    search = compiled.match

    def match(pos: int) -> Node | None:
        found = search(text, pos)
        if found is None:
            return None
        node = _new(RegexNode)
        node.expr = expr
        node.full_text = text
        node.start = pos
        node.end = found.end()  # the match starts at pos
        node.children = LEAF
        node.match = None  # no visitor reads it: the node's span is the match
        return node

    return match


def _sequence(expr: Sequence, text: str, members: list[Matcher]) -> Matcher:
    def match(pos: int) -> Node | None:
        children = []
        end = pos
        for member in members:
            node = member(end)
            if node is None:
                return None
            children.append(node)
            end = node.end
        return _node(expr, text, pos, end, children)

    return match


def _collapsing_sequence(expr: Sequence, text: str, members: list[Matcher]) -> Matcher:
    """:func:`_sequence`, but the first child itself when the others matched nothing."""
    first, rest = members[0], members[1:]

    def match(pos: int) -> Node | None:
        head = first(pos)
        if head is None:
            return None
        children = [head]
        end = head.end
        for member in rest:
            node = member(end)
            if node is None:
                return None
            children.append(node)
            end = node.end
        if end == head.end:
            return head
        return _node(expr, text, pos, end, children)

    return match


def _first_chars(expr: Expression, seen: set[int]) -> frozenset[str] | None:
    """The characters a match of ``expr`` can start with, when they are known and it cannot
    match the empty text; None otherwise (unknown kinds, lookaheads, repetitions, regexes that
    do not start with a plain character, cycles)."""
    if id(expr) in seen:
        return None
    seen.add(id(expr))
    kind = type(expr)
    if kind is Literal:
        return frozenset(expr.literal[0]) if expr.literal else None
    if kind is Regex:
        pattern = expr.pattern
        plain = (
            pattern[:1].isalnum()
            and pattern[1:2] not in ("*", "?", "+", "{")
            and "|" not in pattern
            and not expr.flags & re.IGNORECASE  # the same bit in ``regex``
        )
        return frozenset(pattern[0]) if plain else None
    if kind is OneOf:
        found = [_first_chars(member, seen) for member in expr.members]
        return None if any(f is None for f in found) else frozenset().union(*found)
    if kind is Sequence and expr.members:
        return _first_chars(expr.members[0], seen)
    return None


def _is_level(expr: Sequence) -> bool:
    """``first (…)*``: a precedence level (an operand, then operators and operands)."""
    rest = expr.members[1:]
    return (
        len(rest) == 1
        and type(rest[0]) is Quantifier
        and (rest[0].min, rest[0].max) == (0, float("inf"))
        and not rest[0].name
    )


def _collapsed_level(expr: Expression, collapse: frozenset[str]) -> bool:
    """A precedence level (:func:`_is_level`) whose node is collapsed."""
    return type(expr) is Sequence and expr.name in collapse and _is_level(expr)


class _Step(NamedTuple):
    """One level of a :func:`_level_chain`: the level, its ``(…)*`` repetition, the repeated
    member's matcher plain and guarded, and the guard's skipper and operator characters (None:
    no guard)."""

    level: Sequence
    repeat: Expression
    member: Matcher
    guarded: Matcher
    skip: Matcher | None
    first: frozenset[str] | None


def _level_chain(text: str, bottom: Matcher, steps: tuple[_Step, ...]) -> Matcher:
    """Collapsed precedence levels ``L0 = L1 (…)*``, ``L1 = L2 (…)*``, … ``Lk = bottom (…)*`` as
    one matcher (``steps`` innermost first): the operand is matched once by ``bottom``, then
    each level, from the innermost out, tries its repetition after what the levels inside
    matched. Each level gives what :func:`_collapsing_sequence` gives: the node below it when
    its repetition matches nothing (no node built), else its own node over that node and the
    repetition's (a :func:`_quantifier` node). The nested calls of one matcher per level are
    gone, and so are all but one of the whitespace look-ups after an operand that no operator
    follows (the levels share its position)."""
    size = len(text)

    def match(pos: int) -> Node | None:
        head = bottom(pos)
        if head is None:
            return None
        seen_at, seen_skip, after = -1, None, 0
        for level, repeat, member, guarded, skip, first in steps:
            start = head.end
            if start >= size:
                return head
            if first is not None:
                if start != seen_at or skip is not seen_skip:
                    skipped = skip(start)  # type: ignore[misc]
                    seen_at, seen_skip = start, skip
                    after = size if skipped is None else skipped.end
                if after >= size or text[after] not in first:
                    continue
            node = member(start)
            if node is None:
                continue
            children = [node]
            end = start
            while node.end != node.start:
                end = node.end
                if end >= size:
                    break
                node = guarded(end)
                if node is None:
                    break
                children.append(node)
            else:
                end = node.end
            if end != start:
                head = Node(level, text, pos, end, [head, Node(repeat, text, start, end, children)])
        return head

    return match


class _Dispatch:
    """A choice's alternatives by the character at the position: only those that can start
    with it (or match the empty text), in the grammar's order (a character not in ``by_char``
    keeps ``everywhere``: all of them); ``at_end``: those that can match at the end of the text
    (see :mod:`compiler.parse.start_sets`). With ``skip`` (every alternative starts with that
    whitespace rule): by the character after the whitespace."""

    __slots__ = ("by_char", "everywhere", "at_end", "skip")

    def __init__(
        self,
        by_char: dict[str, tuple[Matcher, ...]],
        everywhere: tuple[Matcher, ...],
        at_end: tuple[Matcher, ...],
    ):
        self.by_char = by_char
        self.everywhere = everywhere
        self.at_end = at_end
        self.skip: Matcher | None = None


def _leading_skipper(expr: OneOf) -> Expression | None:
    """The whitespace rule every alternative of ``expr`` starts with (a sequence whose first
    member it is), or None."""
    first = [
        m.members[0] if type(m) is Sequence and len(m.members) > 1 else None for m in expr.members
    ]
    skipper = first[0]
    if skipper is None or not _skipper(skipper) or any(f is not skipper for f in first):
        return None
    return skipper


def _dispatch(
    expr: OneOf, members: list[Matcher], skipper: Expression | None, plain: bool
) -> _Dispatch:
    """The :class:`_Dispatch` of ``members``: by character on a ``plain`` text when that
    leaves some alternative out somewhere (with ``skipper``, see :func:`_leading_skipper`, the
    character after it), else every alternative everywhere."""
    everywhere = tuple(members)
    layout = _layout(expr, skipper is not None) if plain else None
    if layout is None:
        return _Dispatch({}, everywhere, everywhere)
    groups, group_of, at_end = layout
    tuples = [tuple(members[i] for i in group) for group in groups]
    return _Dispatch(
        {char: tuples[k] for char, k in group_of.items()},
        everywhere,
        tuple(members[i] for i in at_end),
    )


_Layout = tuple[list[tuple[int, ...]], dict[str, int], tuple[int, ...]]


def _layout(expr: OneOf, skipped: bool) -> _Layout | None:
    """Which alternatives of ``expr`` each plain character leaves in, as indices: the distinct
    index tuples, each character's tuple (its position among them), and the alternatives that
    may match at the end of the text; None when every character keeps every alternative.
    ``skipped``: of the character after each alternative's leading whitespace rule. Kept on
    the choice (``expr.layouts``, stored with the grammar cache: see
    :func:`precompute_layouts`), so a parse only maps indices to matchers."""
    found = expr.layouts.get(skipped, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[no-any-return]
    if skipped:
        sets = [sequence_starts(member.members[1:]) for member in expr.members]
    else:
        sets = [starts(member) for member in expr.members]
    everywhere = tuple(range(len(sets)))

    def kept(char: str) -> tuple[int, ...]:
        return tuple(i for i, f in enumerate(sets) if f is None or f[1] or char in f[0])

    groups: list[tuple[int, ...]] = []
    group_of: dict[str, int] = {}
    for char in PLAIN_CHARS:
        group = kept(char)
        if group not in groups:
            groups.append(group)
        group_of[char] = groups.index(group)
    at_end = tuple(i for i, f in enumerate(sets) if f is None or f[1])
    layout: _Layout | None = (groups, group_of, at_end)
    if groups == [everywhere] and at_end == everywhere:
        layout = None
    expr.layouts[skipped] = layout
    return layout


def precompute_layouts(roots: Iterable[Expression]) -> None:
    """Fill ``layouts`` of every choice reachable from ``roots`` as :func:`_dispatch` reads them
    (done before a grammar cache is written: a build then computes none)."""
    for expr in all_expressions(roots):
        if type(expr) is OneOf:
            _layout(expr, False)
            if _leading_skipper(expr) is not None:
                _layout(expr, True)


def _choice(expr: OneOf, text: str, alternatives: _Dispatch, own_node: bool) -> Matcher:
    """The first alternative that matches (only those :class:`_Dispatch` keeps are tried): its
    node under the choice's own (``own_node``), or its node itself (a collapsed choice)."""
    by_char, everywhere, at_end = alternatives.by_char, alternatives.everywhere, alternatives.at_end
    skip, size = alternatives.skip, len(text)

    def match(pos: int) -> Node | None:
        at = pos if skip is None else skip(pos).end  # type: ignore[union-attr]
        for member in by_char.get(text[at], everywhere) if at < size else at_end:
            node = member(pos)
            if node is not None:
                if not own_node:
                    return node
                return _node(expr, text, pos, node.end, [node])
        return None

    return match


def _lookahead(expr: Lookahead, text: str, member: Matcher) -> Matcher:
    negative = expr.negativity

    def match(pos: int) -> Node | None:
        if (member(pos) is None) == negative:
            return _node(expr, text, pos, pos, LEAF)
        return None

    return match


def _quantifier(expr: Quantifier, text: str, member: Matcher) -> Matcher:
    low, high, size = expr.min, expr.max, len(text)

    def match(pos: int) -> Node | None:
        children: list[Node] = []
        end = pos
        while end < size and len(children) < high:
            node = member(end)
            if node is None:
                break
            children.append(node)
            if node.end == node.start and len(children) >= low:
                break
            end = node.end
        if len(children) >= low:
            return _node(expr, text, pos, end, children or LEAF)
        return None

    return match


#: :func:`childless` value: a node without children visits to the node itself.
SELF: Any = object()


def childless(value: Any) -> Callable[[Any], Any]:
    """Declare what a visit method returns for a node without children: :data:`SELF` (the node)
    or a constant. :func:`fast_visit` then gives that value without calling the method (the
    whitespace, punctuation and lookahead leaves: 40% of a program's nodes)."""

    def mark(method: Any) -> Any:
        method.childless = value
        return method

    return mark


def _built_value(node: BuiltNode, _children: list[Any]) -> Any:
    return node.value


def fast_visit(visitor: Any, root: Node) -> Any:
    """``visitor.visit(root)``: the same result, the methods looked up once per rule name. A
    visitor may have ``generic_for(name)``: what its ``generic_visit`` does with nodes of rule
    ``name`` (it must agree with ``generic_visit``), so the dispatch on the name runs once; a
    method marked :func:`childless` is not called for a node without children."""
    table: dict[str, tuple[Callable[[Node, list[Any]], Any], Any]] = {
        ANSWERED.name: (_built_value, _MISSING)
    }
    generic = visitor.generic_visit
    generic_for = getattr(visitor, "generic_for", None)

    def lookup(name: str) -> tuple[Callable[[Node, list[Any]], Any], Any]:
        """The method of rule ``name`` and its :func:`childless` value (or ``_MISSING``)."""
        method = getattr(visitor, "visit_" + name, None)
        if method is None:
            method = generic_for(name) if generic_for is not None else generic
        entry = table[name] = (method, getattr(method, "childless", _MISSING))
        return entry

    def visit(node: Node, method: Callable[[Node, list[Any]], Any]) -> Any:
        """``method`` on ``node`` and its children's values; a leaf child's value is found here
        (no call of its own: most nodes are leaves)."""
        values = []
        append = values.append
        for child in node.children:
            name = child.expr.name
            entry = table.get(name) or lookup(name)
            if child.children:
                append(visit(child, entry[0]))
            elif entry[1] is _MISSING:
                append(entry[0](child, []))
            else:
                append(child if entry[1] is SELF else entry[1])
        return method(node, values)

    def visit_root(root: Node) -> Any:
        if type(root) is BuiltNode:
            return root.value
        method, leaf = lookup(root.expr.name)
        if not root.children and leaf is not _MISSING:
            return root if leaf is SELF else leaf
        return visit(root, method)

    try:
        return visit_root(root)
    except visitor.unwrapped_exceptions:
        raise
    except Exception:  # noqa: BLE001 - parsimonious' own visit words the internal error
        from parsimonious import NodeVisitor

        return NodeVisitor.visit(visitor, root)
