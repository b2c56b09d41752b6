"""Compile-time values of troy ``args`` defaults, ``with`` values and connector configs.

Needs: expressions straight from the parser (``args.x`` is ``Path(root="args")``).
Establishes: :meth:`ConstEval.value` returns the plain value (``None``/bool/int/float/str/list/
dict) of an expression after substituting ``args`` and running the script passes (resolve, then
constant folding), or raises a :class:`CompileError` when the value is not a compile-time constant
(Tremor requires args and ``with`` values to be constants).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime_support.errors import TremorError
from runtime_support.jsonio import interp_str
from runtime_support.ops import binary, unary

from ..ast import script as S
from ..ast.common import Node, transform
from ..diagnostics import CompileError
from ..source import Source

NOT_CONSTANT = "Argument and `with` values must be compile-time constants"


def _evaluate(node: Node) -> Any:
    """The value of a folded expression: literals, plus what folding leaves to run time but
    Tremor runs at deploy time (std functions such as ``nanos::from_millis``); ValueError when
    the expression depends on an event."""
    if isinstance(node, S.Literal):
        return node.value
    if isinstance(node, S.ArrayLit):
        return [_evaluate(item) for item in node.items]
    if isinstance(node, S.RecordLit):
        out: dict[str, Any] = {}
        for field in node.fields:
            key = _evaluate(field.key)
            if type(key) is not str:
                raise ValueError("record key is not a string")
            out[key] = _evaluate(field.value)
        return out
    if isinstance(node, S.Call):
        return _call(node)
    if isinstance(node, S.Binary) and node.op not in ("and", "or"):
        return binary(node.op, _evaluate(node.left), _evaluate(node.right))
    if isinstance(node, S.Unary):
        return unary(node.op, _evaluate(node.operand))
    if isinstance(node, S.StringInterp):
        return "".join(p if type(p) is str else interp_str(_evaluate(p)) for p in node.parts)
    raise ValueError("not a constant")


def _call(node: S.Call) -> Any:
    """Run a std-library function on constant arguments."""
    from runtime_support.stdlib import registry

    fn = registry.lookup("::".join((*node.module, node.name)))
    if fn is None or fn.needs_ctx or fn.aggregate:
        raise ValueError("not a constant function")
    return registry.call(fn, tuple(_evaluate(a) for a in node.args))


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
        from .const_fold import fold_constants
        from .resolve import resolve

        bound = self._bind_args(expr, args or {})
        script = S.Script(items=(*self.uses, bound))
        folded = fold_constants(resolve(script, self.source, self.modules), self.source)
        try:
            return _evaluate(folded.items[-1])
        except TremorError as err:
            raise CompileError(err.message, expr.span, source=self.source) from None
        except ValueError:
            raise CompileError(NOT_CONSTANT, expr.span, source=self.source) from None

    def _bind_args(self, expr: S.Expr, args: dict[str, Any]) -> S.Expr:
        """Replace every ``args…`` path by an indexed literal of the bound args."""
        from .const_fold import value_to_ast

        def visit(node: Node) -> Node:
            if isinstance(node, S.Path) and node.root == "args":
                try:
                    record = value_to_ast(args, node.span)
                except Exception:  # noqa: BLE001 - a value without literal form
                    raise CompileError(NOT_CONSTANT, node.span, source=self.source) from None
                return dataclasses.replace(node, root="expr", expr=record)
            return node

        return transform(expr, visit)  # type: ignore[return-value]
