"""Typed values of the typed plan: literals, comparisons, bool operands and path keys.

Invariant: each helper returns a value IR only when its Columns compute exactly Tremor's result
for every non-null input; anything else raises ``NotNative``.
"""

from __future__ import annotations

from ..ast import script as S
from .predicate import I64, NotNative
from .records import Rec, Val, field_of

CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
ARITH = {"+": "add", "-": "sub", "*": "mul", "%": "mod"}  # NULL: overflow, or `% 0`


def equal(a: Val | Rec, b: Val | Rec, op: str) -> tuple:
    """Tremor ``==``/``!=`` of two typed values: different scalar types are unequal."""
    if isinstance(a, Rec) or isinstance(b, Rec) or not is_scalar(a) or not is_scalar(b):
        raise NotNative("`==` of records or arrays")
    if a.typ != b.typ:
        return ("lit", op == "ne")
    return (op, a.ir, b.ir)


def compare(a: Val | Rec, b: Val | Rec, op: str) -> tuple:
    """A comparison: ``==``/``!=`` of any scalars; ordering of two ints or two strings."""
    if op in ("eq", "ne"):
        return equal(a, b, op)
    if isinstance(a, Val) and isinstance(b, Val) and a.typ == b.typ in ("bigint", "string"):
        return (op, a.ir, b.ir)
    raise NotNative("ordering of values that are not both ints or both strings")


def as_bool(value: Val | Rec, what: str) -> tuple:
    if not isinstance(value, Val) or value.typ != "boolean":
        raise NotNative(f"a {what} that is not statically a bool (no truthiness in Tremor)")
    return value.ir


def is_scalar(value: Val) -> bool:
    return isinstance(value.typ, str)


def is_struct(value: Val) -> bool:
    return isinstance(value.typ, tuple) and value.typ[0] == "struct"


def seg_key(seg: S.Segment) -> str:
    if isinstance(seg, S.FieldSeg):
        return field_of(seg.name)
    if isinstance(seg, S.IndexSeg) and isinstance(seg.index, S.Literal):
        if isinstance(seg.index.value, str):
            return field_of(seg.index.value)
    raise NotNative("an array index or computed key in a path")


def literal_value(expr: S.Literal) -> Val:
    """A str (no control character), i64 int or bool literal."""
    value = expr.value
    if isinstance(value, bool):
        return Val(("lit", value), "boolean")
    if type(value) is int and I64[0] <= value <= I64[1]:
        return Val(("lit", value), "bigint")
    if isinstance(value, str) and all(ord(ch) >= 0x20 for ch in value):
        return Val(("lit", value), "string")
    raise NotNative(f"literal {value!r} (null, float, big int or control characters)")
