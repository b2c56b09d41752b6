"""Parse troy text (and module files) into :mod:`compiler.ast.deploy` nodes.

``parse_deploy`` reads a ``.troy`` file with ``deploy.ppeg`` over ``query.ppeg`` and
``script.ppeg``; ``parse_module`` reads a module file (``.tremor``, ``.trickle`` or ``.troy``
reached through ``use``), whose items may be script, trickle or troy definitions. Both report
syntax errors with :func:`compiler.parse.errors.parse_with`. No semantic checks here.
"""

from __future__ import annotations

from typing import Any

from parsimonious.nodes import Node as PNode

from ..ast import deploy as d
from ..ast import query as q
from ..source import Source
from .errors import parse_with
from .query import QueryVisitor, first_and_rest, flatten, ident, opt
from .script import span_of

_GRAMMAR = ("deploy", "query", "script")


class DeployVisitor(QueryVisitor):
    """Build troy AST nodes from a parse of ``deploy.ppeg`` + ``query.ppeg`` + ``script.ppeg``."""

    def visit_deploy(self, node: PNode, ch: list[Any]) -> d.Deploy:
        return d.Deploy(config=tuple(ch[1]), stmts=ch[3], doc=self.module_doc(), span=span_of(node))

    def visit_deploy_stmts(self, node: PNode, ch: list[Any]) -> tuple[Any, ...]:
        return flatten(first_and_rest(ch))

    visit_flow_stmts = visit_deploy_stmts
    visit_module_items = visit_deploy_stmts

    def visit_module_file(self, node: PNode, ch: list[Any]) -> d.Module:
        return d.Module(items=opt(ch[1]) or (), doc=self.module_doc(), span=span_of(node))

    def visit_define_flow(self, node: PNode, ch: list[Any]) -> d.DefineFlow:
        return d.DefineFlow(
            name=ident(node.children[4]),
            args=opt(ch[5]) or (),
            stmts=opt(ch[9]) or (),
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_define_connector(self, node: PNode, ch: list[Any]) -> d.DefineConnector:
        args, config = opt(ch[9]) or ((), ())
        return d.DefineConnector(
            name=ident(node.children[4]),
            kind=ident(node.children[8]),
            args=args,
            config=config,
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_create_connector(self, node: PNode, ch: list[Any]) -> q.Create:
        return self.create(d.CreateConnector, node, ch)

    def visit_connect_stmt(self, node: PNode, ch: list[Any]) -> d.Connect:
        source, dest = ch[4]
        return d.Connect(from_=source, to=dest, span=span_of(node))

    def visit_connect_from_connector(self, node: PNode, ch: list[Any]) -> tuple[Any, Any]:
        return ch[0], ch[6]

    def visit_connect_from_pipeline(self, node: PNode, ch: list[Any]) -> tuple[Any, Any]:
        dest = ch[6]
        return ch[0], dest[0] if isinstance(dest, list) else dest

    def endpoint(self, kind: str, node: PNode, ch: list[Any]) -> d.Endpoint:
        """``/kind/alias[/port]`` (the span starts at ``kind``, after the leading ``/``)."""
        return d.Endpoint(
            kind=kind, alias=ident(node.children[4]), port=opt(ch[5]), span=span_of(node)
        )

    def visit_connector_endpoint(self, node: PNode, ch: list[Any]) -> d.Endpoint:
        return self.endpoint("connector", node, ch)

    def visit_pipeline_endpoint(self, node: PNode, ch: list[Any]) -> d.Endpoint:
        return self.endpoint("pipeline", node, ch)

    def visit_endpoint_port(self, node: PNode, ch: list[Any]) -> q.Ident:
        return ident(node.children[3])

    def visit_deploy_flow(self, node: PNode, ch: list[Any]) -> d.DeployFlow:
        name = ident(node.children[4])
        target = opt(ch[5]) or q.Target(module=(), name=name.name, explicit=False, span=name.span)
        return d.DeployFlow(
            name=name,
            target=target,
            params=opt(ch[6]) or (),
            doc=self.doc_before(node.start),
            span=span_of(node),
        )


def parse_deploy(source: Source) -> d.Deploy:
    """Parse a whole ``.troy`` file.

    Raises:
        CompileError: for lexical and syntax errors (Tremor's messages and spans).
    """
    return parse_with(_GRAMMAR, None, source, DeployVisitor(source.text))


def parse_module(source: Source) -> d.Module:
    """Parse a module file: ``use``/``const``/``fn``/``intrinsic`` and every ``define``.

    Raises:
        CompileError: for lexical and syntax errors (Tremor's messages and spans).
    """
    return parse_with(_GRAMMAR, "module_file", source, DeployVisitor(source.text))


__all__ = ["DeployVisitor", "parse_deploy", "parse_module"]
