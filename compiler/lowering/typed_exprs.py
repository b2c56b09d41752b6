"""Expressions of the typed lowering: paths, literals, operators, records, ``patch``, ``merge``.

Each returns a ``Val`` (typed IR) or a ``Rec``; nullable reads and overflow-checked arithmetic
append checks to the state (see ``typed.py``). Anything without an exact native equivalent
raises ``NotNative`` with the reason.
"""

from __future__ import annotations

from typing import Any

from ..ast import script as S
from .predicate import I64, NotNative
from .records import AlwaysPython, Rec, Val, field_of, rec_of
from .typed_values import ARITH, CMP, as_bool, compare, literal_value, offset, seg_key


def evaluate(expr: S.Expr, st: Any) -> Val | Rec:
    """The typed value of ``expr`` in state ``st``."""
    if isinstance(expr, S.Literal):
        return literal_value(expr)
    if isinstance(expr, S.Path):
        return path(expr, st)
    if isinstance(expr, S.RecordLit):
        return record(expr, st)
    if isinstance(expr, S.Binary):
        return binary(expr, st)
    if isinstance(expr, S.Unary):
        return unary(expr, st)
    if isinstance(expr, S.Present):
        return Val(present(expr.path, st, expr.negated), "boolean")
    if isinstance(expr, S.Patch):
        return patch(expr, st)
    if isinstance(expr, S.Call):
        return call(expr, st)
    if isinstance(expr, S.StringInterp):
        return interpolation(expr, st)
    if isinstance(expr, S.Merge):
        target, spec = _record(evaluate(expr.target, st)), evaluate(expr.spec, st)
        if not isinstance(spec, Rec):
            raise NotNative("merge with a value that is not a record")
        target.merge(spec, st.checks)
        return target
    raise NotNative(f"{type(expr).__name__} has no typed lowering yet")


#: Element types whose equality with a literal of the same type is Spark's ``=`` exactly.
_CONTAINED = ("string", "bigint", "boolean")


def call(expr: S.Call, st: Any) -> Val:
    """The std functions with an exact native equivalent: ``array::contains(array, literal)``
    of an array whose elements have the literal's type (a NULL element is unequal), and
    ``system::ingest_ns()`` (the event's ``ingest_ns`` column, as the Python path reads it)."""
    if expr.module == ("tremor", "system") and expr.name == "ingest_ns" and not expr.args:
        st.checks.append(("isnull", ("ingest",)))  # the Python path reads a missing one as 0
        return Val(("ingest",), "bigint")
    if expr.module == ("std", "array") and expr.name == "contains" and len(expr.args) == 2:
        array, item = evaluate(expr.args[0], st), evaluate(expr.args[1], st)
        if (
            isinstance(array, Val)
            and isinstance(item, Val)
            and isinstance(array.typ, tuple)
            and array.typ[0] == "array"
            and item.ir[0] == "lit"
            and item.typ == array.typ[1]
            and item.typ in _CONTAINED
        ):
            return Val(("array_contains", array.ir, item.ir), "boolean")
    raise NotNative(f"{'::'.join((*expr.module, expr.name))} has no typed lowering yet")


def path(expr: S.Path, st: Any) -> Val | Rec:
    """``event.a.b`` or ``x.a``: a missing key is Tremor's error (the Python path reports it)."""
    if expr.root == "event":
        base: Val | Rec = st.event
    elif expr.root == "local" and expr.name in st.local:
        base = st.local[expr.name]
    else:
        raise NotNative(f"reads `{expr.name or expr.root}` (only `event` and `let` locals)")
    for seg in expr.segments:
        base = _step(base, seg_key(seg), st)
    return base


def _step(base: Val | Rec, key: str, st: Any) -> Val | Rec:
    if isinstance(base, Rec):
        return base.get(key, st.checks)
    if not (isinstance(base.typ, tuple) and base.typ[0] == "struct"):
        raise AlwaysPython(key)
    return rec_of(base).get(key, st.checks)


def present(p: S.Path, st: Any, negated: bool) -> tuple:
    """``present event.a.b``: every step present (never an error)."""
    if p.root != "event" or not p.segments:
        raise NotNative("`present` of something other than a key below `event`")
    base: Val | Rec = st.event
    cond: tuple = ("lit", True)
    for seg in p.segments:
        key = seg_key(seg)
        if not isinstance(base, Rec):
            if not (isinstance(base.typ, tuple) and base.typ[0] == "struct"):
                raise NotNative("`present` through a value that is not a record")
            base = rec_of(base)
        cond = ("and", cond, base.present_ir(key))
        if key not in base.entries:
            break
        base = base.entries[key]
    return ("not", cond) if negated else cond


def record(expr: S.RecordLit, st: Any) -> Rec:
    rec = Rec()
    for fld in expr.fields:
        if not isinstance(fld.key, S.Literal) or not isinstance(fld.key.value, str):
            raise NotNative("a record literal with a computed key")
        key = field_of(fld.key.value)
        if key in rec.entries:
            raise NotNative("a record literal with a duplicate key")
        rec.entries[key] = evaluate(fld.value, st)
    return rec


def binary(expr: S.Binary, st: Any) -> Val:
    left, right = evaluate(expr.left, st), evaluate(expr.right, st)
    if expr.op in ("and", "or"):
        return Val((expr.op, as_bool(left, "operand"), as_bool(right, "operand")), "boolean")
    if expr.op in CMP:
        return Val(compare(left, right, CMP[expr.op]), "boolean")
    if not (isinstance(left, Val) and isinstance(right, Val)):
        raise NotNative(f"operator `{expr.op}` on records")
    if expr.op in ARITH and left.typ == right.typ == "bigint":
        ir = (ARITH[expr.op], left.ir, right.ir)
        st.checks.extend(overflow_checks(ir))
        return Val(ir, "bigint")
    if expr.op == "+" and left.typ == right.typ == "string":
        return Val(("concat", left.ir, right.ir), "string")
    raise NotNative(f"operator `{expr.op}` on {left.typ} and {right.typ}")


def overflow_checks(ir: tuple) -> list[tuple]:
    """The checks that send a row where ``ir`` (integer arithmetic) fails to Python: NULL is an
    i64 overflow or ``% 0`` (Tremor's error; ``%`` is Rust's remainder, as Spark's). Adding or
    subtracting a literal overflows exactly when the other operand is past a bound: that range
    test is cheaper, and a source's statistics can prune it (Parquet, Spark's cache)."""
    base, step = offset(ir)
    if base is not ir:
        return [_past_bound(base, step)] if step else []
    return [("isnull", ir)]


def _past_bound(value: tuple, step: int) -> tuple:
    """``value + step`` (``step`` a non-zero int) leaves the i64 range."""
    if step > 0:
        return ("gt", value, ("lit", I64[1] - step))
    return ("lt", value, ("lit", I64[0] - step))


def interpolation(expr: S.StringInterp, st: Any) -> Val:
    """``"a#{s}b"`` of string values: their concatenation (one literal when every part is)."""
    parts: list[tuple] = []
    for part in expr.parts:
        value = evaluate(S.Literal(value=part) if isinstance(part, str) else part, st)
        if not isinstance(value, Val) or value.typ != "string":
            raise NotNative("interpolation of a value that is not statically a string")
        if parts and parts[-1][0] == "lit" and value.ir[0] == "lit":
            parts[-1] = ("lit", parts[-1][1] + value.ir[1])
        elif value.ir != ("lit", ""):
            parts.append(value.ir)
    if not parts:
        return Val(("lit", ""), "string")
    ir = parts[0]
    for part in parts[1:]:
        ir = ("concat", ir, part)
    return Val(ir, "string")


def unary(expr: S.Unary, st: Any) -> Val:
    value = evaluate(expr.operand, st)
    if expr.op == "not":
        return Val(("not", as_bool(value, "operand")), "boolean")
    if expr.op == "-" and isinstance(value, Val) and value.typ == "bigint":
        ir = ("neg", value.ir)
        st.checks.append(("isnull", ir))
        return Val(ir, "bigint")
    raise NotNative(f"unary `{expr.op}`")


def _record(value: Val | Rec) -> Rec:
    if isinstance(value, Rec):
        return value.copy()
    if isinstance(value.typ, tuple) and value.typ[0] == "struct":
        return rec_of(value)
    raise AlwaysPython("patch or merge of a value that is not a record")


def patch(expr: S.Patch, st: Any) -> Rec:
    """``patch`` with literal keys: insert, upsert, update, erase, merge."""
    rec = _record(evaluate(expr.target, st))
    for op in expr.ops:
        value = evaluate(op.value, st) if op.value is not None else None
        if op.kind == "merge_record" or (op.kind == "merge" and op.key is None):
            if not isinstance(value, Rec):
                raise AlwaysPython("merge with a value that is not a record")
            rec.merge(value, st.checks)
            continue
        key = _op_key(op)
        if op.kind == "erase":
            rec.erase(key)
        elif op.kind in ("insert", "upsert", "update") and value is not None:
            getattr(rec, op.kind)(key, value, st.checks)
        else:
            raise NotNative(f"patch operation `{op.kind}`")
    return rec


def _op_key(op: S.PatchOp) -> str:
    if not isinstance(op.key, S.Literal) or not isinstance(op.key.value, str):
        raise NotNative("a patch key that is not a string literal")
    return field_of(op.key.value)
