"""Compile-time values of troy ``args`` defaults, ``with`` values and connector configs.

Needs: expressions straight from the parser (``args.x`` is ``Path(root="args")``).
Establishes: :meth:`ConstEval.value` returns the plain value (``None``/bool/int/float/str/list/
dict) of an expression after substituting ``args`` and running the script passes (resolve, then
constant folding), evaluated by the one evaluator (:func:`.const_fold.constant_value`, the same
rule as trickle's), or raises a :class:`CompileError` when the value is not a compile-time
constant (Tremor requires args and ``with`` values to be constants) or calls an impure function.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..ast import script as S
from ..ast.common import Node, transform
from ..diagnostics import CompileError
from ..source import Source
from .const_fold import NotConstant, constant_value, fold_constants, value_to_ast
from .resolve import resolve

NOT_CONSTANT = "Argument and `with` values must be compile-time constants"


class ConstEval:
    """Evaluates constant expressions in a scope of ``use`` statements (flow and file level)."""

    def __init__(self, source: Source, uses: tuple[S.Use, ...] = (), modules: object = None):
        self.source = source
        self.uses = uses
        self.modules = modules

    def scoped(self, uses: tuple[S.Use, ...]) -> ConstEval:
        """The same evaluator with ``uses`` added to the scope."""
        return ConstEval(self.source, self.uses + uses, self.modules)

    def value(self, expr: S.Expr, args: dict[str, Any] | None = None) -> Any:
        """The compile-time value of ``expr`` with ``args`` bound (see the module docstring)."""
        bound = self._bind_args(expr, args or {})
        script = S.Script(items=(*self.uses, bound))
        folded = fold_constants(resolve(script, self.source, self.modules), self.source)
        try:
            return constant_value(folded.items[-1], self.source)  # type: ignore[arg-type]
        except NotConstant:
            raise CompileError(NOT_CONSTANT, expr.span, source=self.source) from None

    def _bind_args(self, expr: S.Expr, args: dict[str, Any]) -> S.Expr:
        """Replace every ``args…`` path by an indexed literal of the bound args."""

        def visit(node: Node) -> Node:
            if isinstance(node, S.Path) and node.root == "args":
                try:
                    record = value_to_ast(args, node.span)
                except Exception:  # noqa: BLE001 - a value without literal form
                    raise CompileError(NOT_CONSTANT, node.span, source=self.source) from None
                return dataclasses.replace(node, root="expr", expr=record)
            return node

        return transform(expr, visit)  # type: ignore[return-value]
