"""Parse tremor-script text into :mod:`compiler.ast.script` nodes.

``parse_script`` = :func:`~compiler.parse.errors.parse_with` (lexer first, as in Tremor, then the
``script.ppeg`` grammar) + the :class:`ScriptVisitor` below. The visitor only builds the tree: no
semantic checks. Layered precedence rules fold into left-associative
:class:`~compiler.ast.script.Binary` nodes.

Helper values passed between visit methods (never in the final tree): ``str`` for identifiers and
operators, lists for repeated groups and path segments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parsimonious import NodeVisitor
from parsimonious.nodes import Node as PNode

from ..ast import script as ast
from ..diagnostics import CompileError
from ..lex import extractor_rule
from ..source import Source, Span
from .errors import parse_with

_ESCAPES = {'"': '"', "\\": "\\", "#": "#", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

_LIFTED = frozenset(
    (
        "item primary_base path_root literal str_part hd_part fn_body use_tail field_pred "
        "pattern_top elem_pattern fn_case_pattern patch_op expr"
    ).split()
)

_BINARY_LEVELS = frozenset(
    (
        "expr_or expr_xor expr_and expr_bxor expr_band expr_eq expr_cmp expr_shift expr_add "
        "expr_mul"
    ).split()
)

_OPS = frozenset(
    "op_bxor op_band op_eq op_cmp op_shift op_add op_mul op_sign op_not fold_op pred_op".split()
)


def lifted(_node: PNode, visited_children: list[Any]) -> Any:
    """A rule that only wraps one alternative: its visited child."""
    return visited_children[0]


def _stripped_text(node: PNode, _children: list[Any]) -> str:
    return node.text.strip()


def _children_or_node(node: PNode, visited_children: list[Any]) -> Any:
    return visited_children or node


def span_of(node: PNode) -> Span:
    """The span of a parsimonious node."""
    return Span(node.start, node.end)


def _opt(value: Any) -> Any:
    """The content of an optional (``x?``) child, or None."""
    return value[0] if isinstance(value, list) and value else None


def _rest(groups: Any, index: int) -> list[Any]:
    """From ``(_ sep _ item)*`` visited children, the item at ``index`` of each group."""
    return [g[index] for g in groups] if isinstance(groups, list) else []


def _first_and_rest(children: list[Any], index: int = 3) -> list[Any]:
    """``[first, [(_ sep _ x)...]...]`` flattened into ``[first, x, ...]``."""
    return [children[0], *_rest(children[1], index)]


class ScriptVisitor(NodeVisitor):
    """Build tremor-script AST nodes from a parse of ``script.ppeg`` (parsimonious' nodes).

    Subclasses (trickle/troy visitors) reuse every ``visit_*`` for the shared rules.
    """

    unwrapped_exceptions = (CompileError,)

    def __init__(self, text: str) -> None:
        self.text = text

    # -- generic --------------------------------------------------------------------------------

    def generic_visit(self, node: PNode, visited_children: list[Any]) -> Any:
        return self.generic_for(node.expr_name)(node, visited_children)

    def generic_for(self, name: str) -> Callable[[PNode, list[Any]], Any]:
        """What :meth:`generic_visit` does with a node of rule ``name`` (a rule without its own
        ``visit_`` method)."""
        if name in _LIFTED:
            return lifted
        if name in _OPS or name.startswith("kw_"):
            return _stripped_text
        if name in _BINARY_LEVELS:
            return self._fold_visited
        return _children_or_node

    def _fold_visited(self, _node: PNode, visited_children: list[Any]) -> ast.Expr:
        return self.fold_binary(visited_children)

    def visit_(self, node: PNode, visited_children: list[Any]) -> Any:
        """An unnamed subexpression (``visit_`` + its empty name): what :meth:`generic_visit`
        gives one, its visited children or, if none, the node itself."""
        return visited_children or node

    def visit__(self, node: PNode, _children: list[Any]) -> None:
        return None

    def fold_binary(self, children: list[Any]) -> ast.Expr:
        """``first (_ op _ operand)*`` folded left-associatively."""
        left: ast.Expr = children[0]
        for _, op, _, right in children[1] if isinstance(children[1], list) else []:
            left = ast.Binary(op=op, left=left, right=right, span=left.span.to(right.span))
        return left

    # -- top level ------------------------------------------------------------------------------

    def visit_script(self, node: PNode, children: list[Any]) -> ast.Script:
        items = _opt(children[2]) or []
        return ast.Script(items=tuple(items), doc=self.module_doc(), span=span_of(node))

    def visit_script_items(self, node: PNode, children: list[Any]) -> list[Any]:
        items: list[Any] = []
        for item in _first_and_rest(children):
            items.extend(item if isinstance(item, list) else [item])
        return items

    def visit_use_stmt(self, node: PNode, children: list[Any]) -> list[ast.Use]:
        span = span_of(node)
        return [
            ast.Use(path=path, alias=alias, path_span=pspan, span=span)
            for path, alias, pspan in children[2]
        ]

    def visit_use_tree(self, node: PNode, children: list[Any]) -> list[tuple[Any, str, Span]]:
        prefix = tuple(_first_and_rest(children[:2]))
        pspan = Span(node.start, node.children[1].end)
        tail = _opt(children[2])
        if tail is None:
            return [(prefix, prefix[-1], pspan)]
        if isinstance(tail, str):
            return [(prefix, tail, pspan)]
        return [(prefix + path, alias, span) for path, alias, span in tail]

    def visit_use_group(self, node: PNode, children: list[Any]) -> list[Any]:
        trees = [children[5], *_rest(children[6], 3)]
        return [entry for tree in trees for entry in tree]

    def visit_use_alias(self, node: PNode, children: list[Any]) -> str:
        return children[3]

    def visit_const_stmt(self, node: PNode, children: list[Any]) -> ast.Const:
        return ast.Const(
            name=children[2], value=children[6], doc=self.doc_before(node.start), span=span_of(node)
        )

    def visit_fn_def(self, node: PNode, children: list[Any]) -> ast.FnDef:
        params, varargs = _opt(children[6]) or ((), False)
        body = children[10]
        doc = self.doc_before(node.start)
        if body[0] == "with":
            return ast.FnDef(
                name=children[2],
                params=params,
                varargs=varargs,
                body=body[1],
                doc=doc,
                span=span_of(node),
            )
        return ast.FnDef(
            name=children[2],
            params=params,
            varargs=varargs,
            cases=body[1],
            doc=doc,
            span=span_of(node),
        )

    def visit_fn_params(self, node: PNode, children: list[Any]) -> tuple[tuple[str, ...], bool]:
        inner = children[0]
        if inner == "...":
            return (), True
        names = _first_and_rest(inner[:2])
        return tuple(names), bool(_opt(inner[2]))

    def visit_varargs(self, node: PNode, _children: list[Any]) -> str:
        return "..."

    def visit_fn_with(self, node: PNode, children: list[Any]) -> tuple[str, tuple[ast.Expr, ...]]:
        return "with", tuple(children[2])

    def visit_fn_of(self, node: PNode, children: list[Any]) -> tuple[str, tuple[Any, ...]]:
        cases = list(children[2]) if isinstance(children[2], list) else []
        default = _opt(children[3])
        return "of", tuple(cases + ([default] if default is not None else []))

    def visit_fn_default(self, node: PNode, children: list[Any]) -> ast.MatchCase:
        return ast.MatchCase(
            pattern=children[0], guard=None, body=tuple(children[4]), span=span_of(node)
        )

    def visit_fn_case(self, node: PNode, children: list[Any]) -> ast.MatchCase:
        return ast.MatchCase(
            pattern=children[2],
            guard=_opt(children[4]),
            body=tuple(children[7]),
            span=span_of(node),
        )

    def visit_fn_tuple(self, node: PNode, children: list[Any]) -> ast.TuplePattern:
        elems, open_ = _opt(children[2]) or ((), False)
        return ast.TuplePattern(elements=elems, open=open_, span=span_of(node))

    def visit_intrinsic_def(self, node: PNode, children: list[Any]) -> ast.Intrinsic:
        params, varargs = _opt(children[8]) or ((), False)
        return ast.Intrinsic(
            name=children[4],
            params=params,
            varargs=varargs,
            target=tuple(children[14]),
            doc=self.doc_before(node.start),
            span=span_of(node),
        )

    def visit_module_path(self, node: PNode, children: list[Any]) -> list[str]:
        return _first_and_rest(children)

    def visit_config_directive(self, node: PNode, children: list[Any]) -> tuple[str, ast.Expr]:
        return children[2], children[6]

    # -- docs -----------------------------------------------------------------------------------

    def doc_before(self, offset: int) -> str | None:
        """The ``##`` lines directly above ``offset`` (blank lines between are allowed). Lines are
        read backwards from ``offset``, so a lookup costs the doc it finds, not the file before it.
        """
        text = self.text
        end = text.rfind("\n", 0, offset)
        if text[end + 1 : offset].strip():
            return None
        docs: list[str] = []
        while end >= 0:
            start = text.rfind("\n", 0, end)
            stripped = text[start + 1 : end].strip()
            if stripped.startswith("##") and not stripped.startswith("###"):
                docs.append(stripped[2:][1:] if stripped[2:3] == " " else stripped[2:])
            elif stripped or docs:
                break
            end = start
        return "\n".join(reversed(docs)) if docs else None

    def module_doc(self) -> str | None:
        """The leading ``###`` lines of the file (computed once per visitor: one text)."""
        if not hasattr(self, "_module_doc"):
            self._module_doc = self._leading_module_doc()
        return self._module_doc

    def _leading_module_doc(self) -> str | None:
        docs = []
        for line in self.text.split("\n"):
            stripped = line.strip()
            if stripped.startswith("###"):
                docs.append(stripped[3:][1:] if stripped[3:4] == " " else stripped[3:])
            elif stripped:
                break
        return "\n".join(docs) if docs else None

    # -- statements -----------------------------------------------------------------------------

    def visit_exprs(self, node: PNode, children: list[Any]) -> list[ast.Expr]:
        return _first_and_rest(children)

    def visit_let_expr(self, node: PNode, children: list[Any]) -> ast.Let:
        return ast.Let(target=children[2], value=children[8], span=span_of(node))

    def visit_let_target(self, node: PNode, children: list[Any]) -> ast.Path:
        return children[0]

    def visit_expr_path(self, node: PNode, children: list[Any]) -> ast.Path:
        (base,), segs = children
        return ast.Path(root="expr", expr=base, segments=tuple(segs), span=span_of(node))

    def visit_emit_expr(self, node: PNode, children: list[Any]) -> ast.Emit:
        return ast.Emit(value=_opt(children[1]), port=_opt(children[2]), span=span_of(node))

    def visit_emit_value(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[2]

    def visit_emit_port(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[3]

    def visit_drop_expr(self, node: PNode, _children: list[Any]) -> ast.Drop:
        return ast.Drop(span=span_of(node))

    def _match(self, node: PNode, children: list[Any], mutable: bool) -> ast.Match:
        return ast.Match(
            target=children[2], cases=tuple(children[6]), mutable=mutable, span=span_of(node)
        )

    def visit_match_mut(self, node: PNode, children: list[Any]) -> ast.Match:
        return self._match(node, children, True)

    def visit_match_imut(self, node: PNode, children: list[Any]) -> ast.Match:
        return self._match(node, children, False)

    def _case(self, node: PNode, children: list[Any]) -> ast.MatchCase:
        return ast.MatchCase(
            pattern=children[2],
            guard=_opt(children[4]),
            body=tuple(children[7]),
            span=span_of(node),
        )

    visit_match_case_mut = _case
    visit_match_case_imut = _case

    def visit_imut_exprs(self, node: PNode, children: list[Any]) -> list[ast.Expr]:
        return _first_and_rest(children)

    def visit_guard(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[2]

    def _for(self, node: PNode, children: list[Any], mutable: bool) -> ast.For:
        into, op = _opt(children[7]) or (None, None)
        return ast.For(
            target=children[2],
            cases=tuple(children[6]),
            into=into,
            fold_op=op,
            mutable=mutable,
            span=span_of(node),
        )

    def visit_for_mut(self, node: PNode, children: list[Any]) -> ast.For:
        return self._for(node, children, True)

    def visit_for_imut(self, node: PNode, children: list[Any]) -> ast.For:
        return self._for(node, children, False)

    def _for_case(self, node: PNode, children: list[Any]) -> ast.ForCase:
        key, value = children[2]
        return ast.ForCase(
            key=key,
            value=value,
            guard=_opt(children[4]),
            body=tuple(children[7]),
            span=span_of(node),
        )

    visit_for_case_mut = _for_case
    visit_for_case_imut = _for_case

    def visit_for_key_value(self, node: PNode, children: list[Any]) -> tuple[str, str]:
        return children[2], children[6]

    def visit_for_into(self, node: PNode, children: list[Any]) -> tuple[ast.Expr, str | None]:
        return children[2], _opt(children[4])

    def visit_fold_use(self, node: PNode, children: list[Any]) -> str:
        return children[2]

    # -- operators ------------------------------------------------------------------------------

    def visit_unary_sign(self, node: PNode, children: list[Any]) -> ast.Unary:
        return ast.Unary(op=children[0], operand=children[2], span=span_of(node))

    visit_unary_not = visit_unary_sign

    def visit_expr_unary(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[0]

    visit_expr_not = visit_expr_unary
    visit_expr_present = visit_expr_unary
    visit_expr_imut = visit_expr_unary

    def visit_presence(self, node: PNode, children: list[Any]) -> ast.Present:
        return ast.Present(path=children[2], negated=children[0][0] == "absent", span=span_of(node))

    # -- primaries and paths --------------------------------------------------------------------

    def visit_primary(self, node: PNode, children: list[Any]) -> ast.Expr:
        base, segs = children
        if not segs:
            return base
        span = span_of(node)
        if isinstance(base, ast.Path) and base.root != "expr":
            return ast.Path(
                root=base.root,
                segments=base.segments + tuple(segs),
                name=base.name,
                module=base.module,
                span=span,
            )
        return ast.Path(root="expr", expr=base, segments=tuple(segs), span=span)

    def visit_paren(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[2]

    def visit_segments(self, node: PNode, children: list[Any]) -> list[ast.Segment]:
        return list(children) if isinstance(children, list) else []

    def visit_segment(self, node: PNode, children: list[Any]) -> ast.Segment:
        return children[0]

    def visit_field_seg(self, node: PNode, children: list[Any]) -> ast.FieldSeg:
        return ast.FieldSeg(name=children[3], span=Span(node.children[3].start, node.end))

    def visit_index_seg(self, node: PNode, children: list[Any]) -> ast.IndexSeg:
        return ast.IndexSeg(index=children[3], span=Span(node.children[1].start, node.end))

    def visit_range_seg(self, node: PNode, children: list[Any]) -> ast.RangeSeg:
        return ast.RangeSeg(
            start=children[3], end=children[8], span=Span(node.children[1].start, node.end)
        )

    def visit_path(self, node: PNode, children: list[Any]) -> ast.Path:
        root, segs = children
        return ast.Path(
            root=root.root,
            segments=root.segments + tuple(segs),
            name=root.name,
            module=root.module,
            span=span_of(node),
        )

    def visit_event_root(self, node: PNode, _c: list[Any]) -> ast.Path:
        return ast.Path(root="event", span=span_of(node))

    def visit_state_root(self, node: PNode, _c: list[Any]) -> ast.Path:
        return ast.Path(root="state", span=span_of(node))

    def visit_args_root(self, node: PNode, _c: list[Any]) -> ast.Path:
        return ast.Path(root="args", span=span_of(node))

    def visit_group_root(self, node: PNode, _c: list[Any]) -> ast.Path:
        return ast.Path(root="group", span=span_of(node))

    def visit_window_root(self, node: PNode, _c: list[Any]) -> ast.Path:
        return ast.Path(root="window", span=span_of(node))

    def visit_meta_root(self, node: PNode, children: list[Any]) -> ast.Path:
        name = _opt(children[1])
        if name is None:
            return ast.Path(root="meta", span=span_of(node))
        name_node = node.children[1].children[0].children[1]
        seg = ast.FieldSeg(name=name, span=span_of(name_node))
        return ast.Path(root="meta", segments=(seg,), span=span_of(node))

    def visit_meta_name(self, node: PNode, children: list[Any]) -> str:
        return children[1]

    def visit_const_root(self, node: PNode, children: list[Any]) -> ast.Path:
        parts = _first_and_rest(children[:2])
        return ast.Path(root="const", name=parts[-1], module=tuple(parts[:-1]), span=span_of(node))

    def visit_local_root(self, node: PNode, children: list[Any]) -> ast.Path:
        return ast.Path(root="local", name=children[0], span=span_of(node))

    def visit_call(self, node: PNode, children: list[Any]) -> ast.Call:
        parts = _first_and_rest(children[:2])
        args = _opt(children[5]) or []
        return ast.Call(
            module=tuple(parts[:-1]), name=parts[-1], args=tuple(args), span=span_of(node)
        )

    def visit_call_args(self, node: PNode, children: list[Any]) -> list[ast.Expr]:
        return _first_and_rest(children)

    def visit_recur(self, node: PNode, children: list[Any]) -> ast.Recur:
        return ast.Recur(args=tuple(_opt(children[4]) or []), span=span_of(node))

    # -- patch / merge --------------------------------------------------------------------------

    def visit_patch_expr(self, node: PNode, children: list[Any]) -> ast.Patch:
        return ast.Patch(target=children[2], ops=tuple(_opt(children[6]) or []), span=span_of(node))

    def visit_patch_ops(self, node: PNode, children: list[Any]) -> list[ast.PatchOp]:
        return _first_and_rest(children)

    def visit_patch_keyed(self, node: PNode, children: list[Any]) -> ast.PatchOp:
        return ast.PatchOp(
            kind=children[0][0], key=children[2], value=children[6], span=span_of(node)
        )

    def visit_patch_erase(self, node: PNode, children: list[Any]) -> ast.PatchOp:
        return ast.PatchOp(kind="erase", key=children[2], span=span_of(node))

    def visit_patch_move(self, node: PNode, children: list[Any]) -> ast.PatchOp:
        return ast.PatchOp(kind=children[0][0], key=children[2], to=children[6], span=span_of(node))

    def visit_patch_merge_all(self, node: PNode, children: list[Any]) -> ast.PatchOp:
        return ast.PatchOp(kind="merge_record", value=children[4], span=span_of(node))

    def visit_patch_default_all(self, node: PNode, children: list[Any]) -> ast.PatchOp:
        return ast.PatchOp(kind="default_record", value=children[4], span=span_of(node))

    def visit_merge_expr(self, node: PNode, children: list[Any]) -> ast.Merge:
        return ast.Merge(target=children[2], spec=children[6], span=span_of(node))

    # -- literals -------------------------------------------------------------------------------

    def visit_float_lit(self, node: PNode, _c: list[Any]) -> ast.Literal:
        return ast.Literal(value=float(node.text.replace("_", "")), span=span_of(node))

    def visit_int_lit(self, node: PNode, _c: list[Any]) -> ast.Literal:
        text = node.text.replace("_", "")
        value = int(text[2:], 16) if text.startswith("0x") else int(text)
        return ast.Literal(value=value, span=span_of(node))

    def visit_kw_null(self, node: PNode, _c: list[Any]) -> ast.Literal:
        return ast.Literal(value=None, span=span_of(node))

    def visit_kw_true(self, node: PNode, _c: list[Any]) -> ast.Literal:
        return ast.Literal(value=True, span=span_of(node))

    def visit_kw_false(self, node: PNode, _c: list[Any]) -> ast.Literal:
        return ast.Literal(value=False, span=span_of(node))

    def visit_record_lit(self, node: PNode, children: list[Any]) -> ast.RecordLit:
        return ast.RecordLit(fields=tuple(_opt(children[2]) or []), span=span_of(node))

    def visit_record_fields(self, node: PNode, children: list[Any]) -> list[ast.RecordField]:
        return _first_and_rest(children)

    def visit_record_field(self, node: PNode, children: list[Any]) -> ast.RecordField:
        return ast.RecordField(key=children[0], value=children[4], span=span_of(node))

    def visit_array_lit(self, node: PNode, children: list[Any]) -> ast.ArrayLit:
        return ast.ArrayLit(items=tuple(_opt(children[2]) or []), span=span_of(node))

    def visit_array_items(self, node: PNode, children: list[Any]) -> list[ast.Expr]:
        return _first_and_rest(children)

    def _string(self, node: PNode, parts: Any) -> ast.Expr:
        merged: list[str | ast.Expr] = []
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            else:
                merged.append(part)
        if all(isinstance(p, str) for p in merged):
            return ast.Literal(value="".join(merged), span=span_of(node))  # type: ignore[arg-type]
        return ast.StringInterp(parts=tuple(merged), span=span_of(node))

    def visit_string_lit(self, node: PNode, children: list[Any]) -> ast.Expr:
        return self._string(node, children[1])

    def visit_heredoc(self, node: PNode, children: list[Any]) -> ast.Expr:
        return self._string(node, children[2])

    def visit_str_chars(self, node: PNode, _c: list[Any]) -> str:
        return node.text

    visit_hd_chars = visit_str_chars
    visit_str_hash = visit_str_chars

    def visit_str_escape(self, node: PNode, _c: list[Any]) -> str:
        esc = node.text[1:]
        if esc.startswith("u"):
            return chr(int(esc[1:], 16))
        return _ESCAPES.get(esc, esc)

    def visit_interp(self, node: PNode, children: list[Any]) -> ast.Expr:
        return children[2]

    def visit_binary_lit(self, node: PNode, children: list[Any]) -> ast.BinaryLit:
        return ast.BinaryLit(parts=tuple(_opt(children[2]) or []), span=span_of(node))

    def visit_bin_parts(self, node: PNode, children: list[Any]) -> list[ast.BinaryPart]:
        return _first_and_rest(children)

    def visit_bin_part(self, node: PNode, children: list[Any]) -> ast.BinaryPart:
        bits = _opt(children[1])
        kind = _opt(children[2])
        return ast.BinaryPart(
            data=children[0], bits=bits, kind=kind or "unsigned_big", span=span_of(node)
        )

    def visit_bin_bits(self, node: PNode, children: list[Any]) -> int:
        return int(children[3].value)

    def visit_bin_type(self, node: PNode, children: list[Any]) -> str:
        return "_".join([children[3], *_rest(children[4], 3)])

    # -- patterns -------------------------------------------------------------------------------

    def visit_assign_pattern(self, node: PNode, children: list[Any]) -> ast.AssignPattern:
        return ast.AssignPattern(name=children[0], pattern=children[6], span=span_of(node))

    visit_assign_elem = visit_assign_pattern

    def visit_any_pattern(self, node: PNode, _c: list[Any]) -> ast.AnyPattern:
        return ast.AnyPattern(span=span_of(node))

    def visit_pattern(self, node: PNode, children: list[Any]) -> ast.Pattern:
        inner = children[0]
        if isinstance(inner, ast.Expr):
            return ast.ExprPattern(expr=inner, span=inner.span)
        return inner

    def visit_extractor_pattern(self, node: PNode, children: list[Any]) -> ast.ExtractorPattern:
        return ast.ExtractorPattern(extractor=children[2], span=span_of(node))

    def visit_extractor(self, node: PNode, children: list[Any]) -> ast.Extractor:
        return ast.Extractor(
            name=children[0], rule=extractor_rule(node.children[3].text), span=span_of(node)
        )

    def visit_record_pattern(self, node: PNode, children: list[Any]) -> ast.RecordPattern:
        return ast.RecordPattern(fields=tuple(_opt(children[2]) or []), span=span_of(node))

    def visit_field_preds(self, node: PNode, children: list[Any]) -> list[ast.FieldPredicate]:
        return _first_and_rest(children)

    def visit_pred_present(self, node: PNode, children: list[Any]) -> ast.FieldPredicate:
        return ast.FieldPredicate(kind="present", key=children[2], span=span_of(node))

    def visit_pred_absent(self, node: PNode, children: list[Any]) -> ast.FieldPredicate:
        return ast.FieldPredicate(kind="absent", key=children[2], span=span_of(node))

    def visit_pred_alias(self, node: PNode, children: list[Any]) -> ast.FieldPredicate:
        return ast.FieldPredicate(
            kind="extract",
            key=children[5],
            extractor=children[9],
            alias=children[0],
            span=span_of(node),
        )

    def visit_pred_tilde(self, node: PNode, children: list[Any]) -> ast.FieldPredicate:
        target = children[4][0]
        span = span_of(node)
        if isinstance(target, ast.Extractor):
            return ast.FieldPredicate(kind="extract", key=children[0], extractor=target, span=span)
        kind = {ast.RecordPattern: "record", ast.ArrayPattern: "array"}.get(type(target), "tuple")
        return ast.FieldPredicate(kind=kind, key=children[0], pattern=target, span=span)

    def visit_pred_cmp(self, node: PNode, children: list[Any]) -> ast.FieldPredicate:
        return ast.FieldPredicate(
            kind="cmp", key=children[0], op=children[2], expr=children[4], span=span_of(node)
        )

    def visit_array_pattern(self, node: PNode, children: list[Any]) -> ast.ArrayPattern:
        return ast.ArrayPattern(elements=tuple(_opt(children[2]) or []), span=span_of(node))

    def visit_array_elems(self, node: PNode, children: list[Any]) -> list[ast.Pattern]:
        return _first_and_rest(children)

    def visit_tuple_pattern(self, node: PNode, children: list[Any]) -> ast.TuplePattern:
        elems, open_ = _opt(children[2]) or ((), False)
        return ast.TuplePattern(elements=elems, open=open_, span=span_of(node))

    def visit_tuple_elems(self, node: PNode, children: list[Any]) -> tuple[tuple[Any, ...], bool]:
        inner = children[0]
        if inner == "...":
            return (), True
        elems = _first_and_rest(inner[:2])
        rest = _opt(inner[2])
        return tuple(elems), rest == "..."

    def visit_tuple_rest(self, node: PNode, children: list[Any]) -> str:
        return "..." if "..." in node.text else ","

    def visit_tuple_open(self, node: PNode, _c: list[Any]) -> str:
        return "..."

    # -- lexical --------------------------------------------------------------------------------

    def visit_ident(self, node: PNode, children: list[Any]) -> str:
        return _unquoted(node.text)


def _unquoted(ident: str) -> str:
    """An identifier's name: its text without back-ticks."""
    return ident[1:-1] if ident.startswith("`") else ident


def parse_script(source: Source) -> ast.Script:
    """Parse a whole ``.tremor`` file.

    Raises:
        CompileError: for lexical and syntax errors (Tremor's messages and spans); nothing else
            escapes, whatever the input.
    """
    return parse_with(("script",), None, source, ScriptVisitor(source.text))
