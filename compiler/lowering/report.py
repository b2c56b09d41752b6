"""``tremorc dbg lowering FILE``: per expression, native or fallback, and why.

Two questions are answered for each expression node of a checked tree:

* **lowerable** — does the construct have an exact native Spark equivalent over a VARIANT event
  (``classify``)? Event paths, str/int/bool/null literals, ``==``/``!=`` with a literal,
  ``and``/``or``/``not``, ``present``, ``match`` on literal/record patterns, and calls of std
  functions that have an exact native lowering in the registry (``Function.lowering``) do.
  Anything that builds or re-encodes values does not: ``to_json`` sorts keys and VARIANT turns
  ``1.0`` into a decimal, so output text would change (see docs/representation.md).
* **used** — is it part of the native pre-filter's drop plan (``native_drop_plan``), and does the
  build add that pre-filter (``default_drop_plan``: today never, it measured slower)?

Both read the job graph IR (its checked scripts), never the AST behind it.

Invariant: ``classify`` is conservative — "native" only for the forms ``predicate.py`` lowers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ..ast import script as S
from ..ast.common import Node
from ..ir import Deployment, PipelineGraph, ScriptGraph
from ..ir.graph import Embedded
from ..source import Source
from .predicate import NotNative, event_segments, literal, native_function
from .prefilter import default_drop_plan, native_drop_plan

NATIVE = "native"


def expressions(tree: Node) -> Iterator[S.Expr]:
    """Every expression node of ``tree`` (scripts, and the scripts embedded in queries)."""
    for node in tree.walk():
        if isinstance(node, S.Expr):
            yield node


def classify(expr: S.Expr) -> str:
    """``"native"`` or the reason the construct falls back to the Python backend."""
    try:
        _check(expr)
    except NotNative as err:
        return err.reason
    return NATIVE


def _check(expr: S.Expr) -> None:
    if isinstance(expr, S.Literal):
        literal(expr)
    elif isinstance(expr, S.Path):
        event_segments(expr)
    elif isinstance(expr, S.Binary):
        if expr.op not in ("==", "!=", "and", "or"):
            raise NotNative(f"operator `{expr.op}` (int/float, overflow and string rules)")
    elif isinstance(expr, S.Unary):
        if expr.op != "not":
            raise NotNative(f"unary `{expr.op}`")
    elif isinstance(expr, S.Match):
        for case in expr.cases:
            if not isinstance(case.pattern, (S.AnyPattern, S.ExprPattern, S.RecordPattern)):
                raise NotNative(f"{type(case.pattern).__name__} in a match")
    elif isinstance(expr, S.Drop):
        return
    elif isinstance(expr, S.Call):
        try:
            native_function(expr)
        except NotNative as err:
            if err.reason.startswith("std-lib"):
                raise NotNative("std-lib call without an exact native lowering") from None
            raise NotNative("call of a user-defined function or aggregate") from None
    elif not isinstance(expr, S.Present):
        raise NotNative(_construct_reason(expr))


def _construct_reason(expr: S.Expr) -> str:
    """Why a non-predicate construct stays in Python (grouped for the totals)."""
    if isinstance(expr, (S.RecordLit, S.ArrayLit, S.Patch, S.Merge, S.Let)):
        return "builds or changes a value (output text must keep Tremor's key order/floats)"
    if isinstance(expr, (S.StringInterp, S.BinaryLit)):
        return "string/binary construction"
    if isinstance(expr, S.Emit):
        return "emit (routing runs in the graph executor)"
    if isinstance(expr, (S.For, S.Recur)):
        return "comprehension/recursion"
    return f"{type(expr).__name__} has no native lowering"


def ir_scripts(ir: ScriptGraph | PipelineGraph | Deployment) -> Iterator[Embedded]:
    """Every checked script of a job graph (a flow: of each deployed pipeline)."""
    if isinstance(ir, ScriptGraph):
        yield from (ir.body,) if ir.body is not None else ()
    elif isinstance(ir, PipelineGraph):
        yield from ir.embedded()
    else:
        for flow in ir.flows:
            for pipeline in flow.pipelines:
                yield from pipeline.graph.embedded()


def lowering_report(
    ir: ScriptGraph | PipelineGraph | Deployment, schema: tuple | None = None
) -> str:
    """The text report over the job graph ``ir``: one line per expression (``line:col``), then
    totals, the top fallback reasons, and with a declared ``schema`` the typed plan's verdict."""
    lines: list[str] = []
    reasons: Counter[str] = Counter()
    total = native = 0
    for code in ir_scripts(ir):
        for expr in expressions(code.script):
            verdict = classify(expr)
            total += 1
            native += verdict == NATIVE
            if verdict != NATIVE:
                reasons[verdict] += 1
            where = _where(expr, code.source)
            shown = "native" if verdict == NATIVE else f"fallback: {verdict}"
            lines.append(f"{where:>8}  {type(expr).__name__:<12} {shown}")
    plan = native_drop_plan(ir)
    lines.append("")
    lines.append(f"expressions: {total}, lowerable natively: {native} ({_pct(native, total)})")
    lines.append(f"native pre-filter: {_prefilter_state(ir, plan)}")
    for reason, count in reasons.most_common(5):
        lines.append(f"  fallback {count:4d}  {reason}")
    lines.append(typed_verdict(ir, schema))
    return "\n".join(lines) + "\n"


def _prefilter_state(ir: ScriptGraph | PipelineGraph | Deployment, plan: object) -> str:
    if plan is None:
        return "no"
    if default_drop_plan(ir) is not None:
        return "yes"
    return "a drop plan, not built (it measured slower than Python: docs/representation.md)"


def typed_verdict(ir: ScriptGraph | PipelineGraph | Deployment, schema: tuple | None) -> str:
    """One line: does the whole program run natively over ``schema`` (per program: the first
    construct that does not lower sends the whole program to Python), and if not, why."""
    from .typed_graph import typed_job_plan

    if schema is None:
        return "typed plan: no schema declared (--schema DDL)"
    try:
        typed_job_plan(ir, schema)
    except NotNative as err:
        return f"typed plan: no, the program runs in Python: {err.reason}"
    return (
        "typed plan: yes, events that fit the schema run natively; the rest (not fitting, or "
        "a missing key, overflow, or key order to keep) go to the Python path per event"
    )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _where(expr: Node, source: Source | None) -> str:
    if source is None or expr.span.end == 0:
        return "-"
    line, col = source.line_col(expr.span.start)
    return f"{line}:{col}"
