"""Parse trickle text into :mod:`compiler.ast.query` nodes.

``parse_query`` = lexer (lexical errors first, as in Tremor) + ``query.ppeg`` over
``script.ppeg`` + :class:`QueryVisitor`, which reuses every expression/script visit of
:class:`~compiler.parse.script.ScriptVisitor`. The visitor only builds the tree; duplicate names,
unknown streams, args and window checks are later passes.

Syntax errors name the token Tremor's parser would stop at and the tokens it would accept there.
Tremor is LALR over tokens; here the accepted set is read off the PEG itself: every keyword,
punctuation or token-class terminal that failed at the furthest position reached (terminals
inside lookaheads excluded). :func:`parse_with` is shared with the troy parser.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..ast import query as q
from ..ast.script import Expr, Script
from ..diagnostics import CompileError
from ..grammar import load_grammar, load_peg
from ..lex import Token, lexes_cleanly, tokenize
from ..source import Source, Span
from .errors import lexical_error, outer_span, run_guarded, unrecognized_hint
from .fastpeg import fast_match
from .peg import Node as PNode
from .peg import all_expressions
from .script import ScriptVisitor, lifted, span_of

if TYPE_CHECKING:
    from parsimonious import Grammar
    from parsimonious.expressions import Expression

# --------------------------------------------------------------------------------------------
# Expected-token reporting

_CLASS_TOKENS = {
    "int_lit": "int",
    "float_lit": "float",
    "ident": "<ident>",
    "plain_ident": "<ident>",
    "quoted_ident": "<ident>",
}
# Keyword rules are ``word(?!\w)`` regexes; parsimonious may rename them after an aliasing rule
# (``event_root = kw_event``), so they are recognised by pattern, not by name.
_KEYWORD = re.compile(r"([a-z]+)\(\?!\\w\)")
_KEYWORD_TOKENS = {"true": "bool", "false": "bool", "null": "nil"}
# Tremor's grammar lets a doc comment precede these statements.
_DOC_STARTS = {"define", "deploy", "const", "fn", "intrinsic"}
# Tremor orders expected tokens by terminal name; only the heredoc's differs from its text.
_SORT_NAME = {'"""': "heredoc"}


class FailureRecorder:
    """Stands in for parsimonious' ``ParseError`` during matching and keeps every terminal that
    failed at the furthest position (parsimonious only keeps one expression).

    Invariant: ``furthest`` is the greatest position at which a reportable terminal failed, and
    ``tokens`` the Tremor names of all terminals that failed there.
    """

    def __init__(self, excluded: frozenset[int]) -> None:
        from parsimonious.expressions import Literal, Regex

        self._kinds = Literal, Regex
        self.excluded = excluded
        self.furthest = -1
        self.tokens: set[str] = set()
        self._pending: Expression | None = None

    # parsimonious records a failure as ``error.expr = e; error.pos = p`` whenever
    # ``p >= error.pos``; reporting -1 and no expr makes it tell us about every failure.
    @property
    def pos(self) -> int:
        return -1

    @pos.setter
    def pos(self, value: int) -> None:
        if value < self.furthest:  # most failures: behind the furthest, nothing to name
            return
        name = self._token_name(self._pending)
        if name is None:
            return
        if value > self.furthest:
            self.furthest, self.tokens = value, set()
        self.tokens.add(name)

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
        if expr.name in _CLASS_TOKENS:
            return _CLASS_TOKENS[expr.name]
        keyword = _KEYWORD.fullmatch(expr.re.pattern) if isinstance(expr, regex) else None
        if keyword is not None:
            return _KEYWORD_TOKENS.get(keyword[1], keyword[1])
        return None

    def expected(self) -> list[str]:
        """The expected tokens, back-ticked and in Tremor's order."""
        names = set(self.tokens)
        if names & _DOC_STARTS:
            names.add("<doc-comment>")
        ordered = sorted(names, key=lambda n: _SORT_NAME.get(n, n))
        return [f"`{n}`" for n in ordered]


_EXCLUDED: dict[int, frozenset[int]] = {}


def lookahead_terminals(grammar: Grammar) -> frozenset[int]:
    """Ids of the unnamed terminals inside lookaheads (``!"="``): their failures are not tokens
    the parser expects."""
    from parsimonious.expressions import Lookahead

    key = id(grammar)
    if key not in _EXCLUDED:
        found: set[int] = set()
        for expr in all_expressions(grammar.values()):
            if isinstance(expr, Lookahead):
                found.update(id(t) for t in _unnamed_inside(expr.members[0]))
        _EXCLUDED[key] = frozenset(found)
    return _EXCLUDED[key]


def _unnamed_inside(expr: Expression) -> Iterator[Expression]:
    if expr.name:
        return
    yield expr
    for member in getattr(expr, "members", ()):  # a parsimonious Compound's
        yield from _unnamed_inside(member)


def syntax_error(text: str, recorder: FailureRecorder, tokens: list[Token]) -> CompileError:
    """``Found the token `x` but expected …`` at the furthest failure, Tremor-style."""
    expected = recorder.expected()
    index = next((k for k, t in enumerate(tokens) if t.end > recorder.furthest), None)
    wanted = expected[0] if len(expected) == 1 else "one of " + ", ".join(expected)
    if index is None:
        return CompileError(f"Found the end of the file but expected {wanted}")
    tok = tokens[index]
    shown = tok.text if tok.kind != "str" else '"'
    span = Span(tok.start, tok.end)
    return CompileError(
        f"Found the token `{shown}` but expected {wanted}",
        span,
        outer=outer_span(text, span),
        hint=unrecognized_hint(shown, expected),
    )


def parse_with(
    names: tuple[str, ...], rule: str | None, source: Source, visitor: ScriptVisitor
) -> Any:
    """Lex, parse all of ``source`` with ``rule`` (default rule if None) of the grammar of
    ``names`` (:func:`~compiler.grammar.load_grammar`), then build the AST with ``visitor``.
    The fast matcher parses; when it gives no tree, parsimonious parses with a
    :class:`FailureRecorder` (its tree is visited if the text parses after all).

    Raises:
        CompileError: lexical or syntax error (``source`` attached); nothing else escapes.
    """

    def run() -> Any:
        text = source.text
        tokens = None
        if not lexes_cleanly(text):  # else the tokens are only needed to word a syntax error
            try:
                tokens = tokenize(text)
            except CompileError as err:
                raise lexical_error(err, text) from None
        fast_rules = load_peg(*names)
        fast = fast_rules.default_rule if rule is None else fast_rules[rule]
        node = fast_match(
            fast, text, visitor.collapsible(), visitor.text_rules(), visitor.answers()
        )
        if node is None:  # the slow path names the failure
            grammar = load_grammar(*names)
            expr = grammar.default_rule if rule is None else grammar[rule]
            recorder = FailureRecorder(lookahead_terminals(grammar))
            node = expr.match_core(text, 0, defaultdict(dict), recorder)
            if node is None or node.end < len(text):
                raise syntax_error(text, recorder, tokenize(text) if tokens is None else tokens)
        return visitor.build(node)

    return run_guarded(run, source)


# --------------------------------------------------------------------------------------------
# Visitor helpers


def opt(value: Any) -> Any:
    """The content of an optional (``x?``) child, or None."""
    return value[0] if isinstance(value, list) and value else None


def many(value: Any) -> list[Any]:
    """The visited items of a ``x*`` child (parsimonious gives a bare node when empty)."""
    return value if isinstance(value, list) else []


def first_and_rest(children: list[Any], index: int = 3) -> list[Any]:
    """``[first, [(_ sep _ x)...]...]`` flattened into ``[first, x, ...]``."""
    return [children[0], *(group[index] for group in many(children[1]))]


def flatten(items: list[Any]) -> tuple[Any, ...]:
    """Items with ``use`` groups (lists of :class:`Use`) spliced in place."""
    out: list[Any] = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
    return tuple(out)


def ident(node: PNode) -> q.Ident:
    """An :class:`Ident` for the parse node of an ``ident`` rule (back-ticks removed)."""
    text = node.text
    name = text[1:-1] if text.startswith("`") else text
    return q.Ident(name=name, span=span_of(node))


def idents(node: PNode) -> tuple[q.Ident, ...]:
    """The idents of an ``ident (_ "," _ ident)* …`` parse node."""
    rest = node.children[1].children if node.children[1].children else []
    return (ident(node.children[0]), *(ident(group.children[3]) for group in rest))


def implied_target(name: q.Ident) -> q.Target:
    """The target of ``create x`` without ``from``: ``x`` itself."""
    return q.Target(module=(), name=name.name, explicit=False, span=name.span)


_LIFTED = frozenset(
    "query_stmt window_kind deploy_stmt flow_stmt connect_route module_item".split()
)


class QueryVisitor(ScriptVisitor):
    """Build trickle AST nodes from a parse of ``query.ppeg`` + ``script.ppeg``."""

    def generic_for(self, name: str) -> Callable[[PNode, list[Any]], Any]:
        return lifted if name in _LIFTED else super().generic_for(name)

    def script_of(self, node: PNode, items: list[Any]) -> Script:
        """An embedded script from a ``script_items`` parse node and its visited items."""
        return Script(items=flatten(items), span=span_of(node))

    # -- root and shared clauses ----------------------------------------------------------------

    def visit_query(self, node: PNode, ch: list[Any]) -> q.Query:
        return q.Query(config=tuple(ch[1]), stmts=ch[2], span=span_of(node))

    def visit_query_config(self, node: PNode, ch: list[Any]) -> list[q.ConfigDirective]:
        return [group[0] for group in ch]

    def visit_query_stmts(self, node: PNode, ch: list[Any]) -> tuple[Any, ...]:
        return flatten(first_and_rest(ch))

    def visit_config_directive(self, node: PNode, ch: list[Any]) -> q.ConfigDirective:
        return q.ConfigDirective(key=ident(node.children[2]), value=ch[6], span=span_of(node))

    def visit_script_args(self, node: PNode, ch: list[Any]) -> tuple[q.ArgDef, ...]:
        return ch[1]

    def visit_args_clause(self, node: PNode, ch: list[Any]) -> tuple[q.ArgDef, ...]:
        return tuple(opt(ch[2]) or ())

    def visit_arg_defs(self, node: PNode, ch: list[Any]) -> list[q.ArgDef]:
        return first_and_rest(ch)

    def visit_arg_def(self, node: PNode, ch: list[Any]) -> q.ArgDef:
        return q.ArgDef(name=ident(node.children[0]), default=opt(ch[1]), span=span_of(node))

    def visit_arg_default(self, node: PNode, ch: list[Any]) -> Expr:
        return ch[4]

    def visit_args_with_end(self, node: PNode, ch: list[Any]) -> tuple[tuple[Any, ...], ...]:
        return (opt(ch[0]) or ()), ch[2]

    def visit_with_end(self, node: PNode, ch: list[Any]) -> tuple[q.WithEntry, ...]:
        return ch[0]

    def visit_with_clause(self, node: PNode, ch: list[Any]) -> tuple[q.WithEntry, ...]:
        return tuple(opt(ch[2]) or ())

    def visit_with_entries(self, node: PNode, ch: list[Any]) -> list[q.WithEntry]:
        return first_and_rest(ch)

    def visit_with_entry(self, node: PNode, ch: list[Any]) -> q.WithEntry:
        return q.WithEntry(key=ident(node.children[0]), value=ch[5], span=span_of(node))

    def visit_modular_target(self, node: PNode, ch: list[Any]) -> q.Target:
        names = first_and_rest(ch)
        return q.Target(module=tuple(names[:-1]), name=names[-1], span=span_of(node))

    def visit_create_from(self, node: PNode, ch: list[Any]) -> q.Target:
        return ch[3]

    def visit_creation_with(self, node: PNode, ch: list[Any]) -> tuple[q.WithEntry, ...]:
        return ch[1]

    # -- definitions ----------------------------------------------------------------------------

    def visit_define_window(self, node: PNode, ch: list[Any]) -> q.DefineWindow:
        return q.DefineWindow(
            name=ident(node.children[4]),
            kind=q.Ident(name=ch[8], span=span_of(node.children[8])),
            config=opt(ch[9]) or (),
            state=opt(ch[10]),
            named=tuple(many(ch[11])),
            script=opt(ch[12]),
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_window_with(self, node: PNode, ch: list[Any]) -> tuple[q.WithEntry, ...]:
        return ch[1]

    def visit_window_script(self, node: PNode, ch: list[Any]) -> Script:
        return self.script_of(node.children[3], ch[3])

    def visit_script_state(self, node: PNode, ch: list[Any]) -> Expr:
        return ch[3]

    def visit_named_script(self, node: PNode, ch: list[Any]) -> q.NamedScript:
        script = self.script_of(node.children[7], ch[7])
        return q.NamedScript(port=ident(node.children[5]), script=script, span=span_of(node))

    def visit_define_operator(self, node: PNode, ch: list[Any]) -> q.DefineOperator:
        args, config = opt(ch[9]) or ((), ())
        return q.DefineOperator(
            name=ident(node.children[4]),
            kind=ch[8],
            args=args,
            config=config,
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_operator_kind(self, node: PNode, ch: list[Any]) -> q.Target:
        return q.Target(module=(ch[0],), name=ch[4], span=span_of(node))

    def visit_define_script(self, node: PNode, ch: list[Any]) -> q.DefineScript:
        return q.DefineScript(
            name=ident(node.children[4]),
            args=opt(ch[5]) or (),
            state=opt(ch[6]),
            named=tuple(many(ch[7])),
            script=self.script_of(node.children[11], ch[11]),
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_define_pipeline(self, node: PNode, ch: list[Any]) -> q.DefinePipeline:
        return q.DefinePipeline(
            name=ident(node.children[4]),
            from_ports=opt(ch[5]) or (),
            into_ports=opt(ch[6]) or (),
            args=opt(ch[7]) or (),
            config=tuple(ch[11]),
            stmts=ch[12],
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_pipeline_from(self, node: PNode, ch: list[Any]) -> tuple[q.Ident, ...]:
        return idents(node.children[3])

    visit_pipeline_into = visit_pipeline_from

    # -- creation -------------------------------------------------------------------------------

    def visit_create_stream(self, node: PNode, ch: list[Any]) -> q.CreateStream:
        return q.CreateStream(name=ident(node.children[4]), span=span_of(node))

    def create(self, cls: type[q.Create], node: PNode, ch: list[Any]) -> q.Create:
        """A ``create <kind> alias [from target] [with … end]`` node of class ``cls``."""
        name = ident(node.children[4])
        target = opt(ch[5]) or implied_target(name)
        return cls(name=name, target=target, params=opt(ch[6]) or (), span=span_of(node))

    def visit_create_operator(self, node: PNode, ch: list[Any]) -> q.Create:
        return self.create(q.CreateOperator, node, ch)

    def visit_create_script(self, node: PNode, ch: list[Any]) -> q.Create:
        return self.create(q.CreateScript, node, ch)

    def visit_create_pipeline(self, node: PNode, ch: list[Any]) -> q.Create:
        return self.create(q.CreatePipeline, node, ch)

    # -- select ---------------------------------------------------------------------------------

    def visit_select_stmt(self, node: PNode, ch: list[Any]) -> q.Select:
        return q.Select(
            target=ch[2],
            from_=ch[6],
            windows=opt(ch[7]) or (),
            where=opt(ch[8]),
            group_by=opt(ch[9]),
            into=ch[13],
            having=opt(ch[14]),
            span=span_of(node),
        )

    def visit_stream_port(self, node: PNode, ch: list[Any]) -> q.StreamRef:
        return q.StreamRef(stream=ident(node.children[0]), port=opt(ch[1]), span=span_of(node))

    def visit_stream_port_name(self, node: PNode, ch: list[Any]) -> q.Ident:
        return ident(node.children[3])

    def visit_window_clause(self, node: PNode, ch: list[Any]) -> tuple[q.Target, ...]:
        return ch[3]

    def visit_window_refs(self, node: PNode, ch: list[Any]) -> tuple[q.Target, ...]:
        return tuple(first_and_rest(ch))

    def visit_where_clause(self, node: PNode, ch: list[Any]) -> Expr:
        return ch[3]

    visit_having_clause = visit_where_clause

    def visit_group_clause(self, node: PNode, ch: list[Any]) -> q.GroupBy:
        return ch[5]

    def visit_group_set(self, node: PNode, ch: list[Any]) -> q.GroupSet:
        return q.GroupSet(items=tuple(opt(ch[4]) or ()), span=span_of(node))

    def visit_group_defs(self, node: PNode, ch: list[Any]) -> list[q.GroupBy]:
        return first_and_rest(ch)

    def visit_group_each(self, node: PNode, ch: list[Any]) -> q.GroupEach:
        return q.GroupEach(expr=ch[4], span=span_of(node))

    def visit_group_def(self, node: PNode, ch: list[Any]) -> q.GroupBy:
        value = ch[0]
        if isinstance(value, q.GroupBy):
            return value
        return q.GroupExpr(expr=value, span=span_of(node))


def parse_query(source: Source) -> q.Query:
    """Parse a whole ``.trickle`` file.

    Raises:
        CompileError: for lexical and syntax errors (Tremor's messages and spans); nothing else
            escapes, whatever the input.
    """
    return parse_with(("query", "script"), None, source, QueryVisitor(source.text))
