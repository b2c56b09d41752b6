"""Parse trickle text into :mod:`compiler.ast.query` nodes.

``parse_query`` = :func:`~compiler.parse.errors.parse_with` over ``query.ppeg`` + ``script.ppeg``
and :class:`QueryVisitor`, which reuses every expression/script visit of
:class:`~compiler.parse.script.ScriptVisitor`. The visitor only builds the tree; duplicate names,
unknown streams, args and window checks are later passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parsimonious.nodes import Node as PNode

from ..ast import query as q
from ..ast.script import Expr, Script
from ..source import Source
from .errors import parse_with
from .script import ScriptVisitor, lifted, span_of

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
