"""Typed values of the typed plan: literals, comparisons, bool operands and path keys.

Invariant: each helper returns a value IR only when its Columns compute exactly Tremor's result
for every non-null input; anything else raises ``NotNative``.
"""

from __future__ import annotations

from ..ast import script as S
from .predicate import I64, NotNative
from .records import Rec, Val, field_of

TRUE, FALSE = ("lit", True), ("lit", False)
CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
ARITH = {"+": "add", "-": "sub", "*": "mul", "%": "mod"}  # NULL: overflow, or `% 0`


def equal(a: Val | Rec, b: Val | Rec, op: str) -> tuple:
    """Tremor ``==``/``!=`` of two typed values: different scalar types are unequal."""
    if isinstance(a, Rec) or isinstance(b, Rec) or not is_scalar(a) or not is_scalar(b):
        raise NotNative("`==` of records or arrays")
    if a.typ != b.typ:
        return ("lit", op == "ne")
    if a.ir[0] == b.ir[0] == "lit":
        return ("lit", (a.ir[1] == b.ir[1]) == (op == "eq"))
    return (op, a.ir, b.ir)


def glob_test(text: tuple, rule: str) -> tuple:
    """Boolean IR: the string ``text`` matches the whole-string glob ``rule`` made of literal
    characters and ``*`` (any run) with at most two of them, as ``lit``, ``a*``, ``*b``,
    ``a*b`` or ``*a*`` (prefix, suffix and length tests: Spark compares code points, as the
    Python path's regex does)."""
    if "?" in rule or "[" in rule:
        raise NotNative("a glob with `?` or `[...]` (only literal text and `*`)")
    parts = rule.split("*")
    if len(parts) == 1:
        return ("eq", text, ("lit", rule))
    first, *middle, last = parts
    if len(middle) > 1 or (middle and (first or last)):
        raise NotNative("a glob with more than two `*` or a `*` between literal text")
    if middle:
        return ("contains", text, ("lit", middle[0])) if middle[0] else TRUE
    tests = [("startswith", text, ("lit", first))] if first else []
    tests += [("endswith", text, ("lit", last))] if last else []
    if first and last:
        tests.append(("ge", ("length", text), ("lit", len(first) + len(last))))
    result = tests[0] if tests else TRUE
    for test in tests[1:]:
        result = ("and", result, test)
    return result


def compare(a: Val | Rec, b: Val | Rec, op: str) -> tuple:
    """A comparison: ``==``/``!=`` of any scalars; ordering of two ints or two strings."""
    if op in ("eq", "ne"):
        return equal(a, b, op)
    if isinstance(a, Val) and isinstance(b, Val) and a.typ == b.typ in ("bigint", "string"):
        return _known_order(a.ir, b.ir, op) or (op, a.ir, b.ir)
    raise NotNative("ordering of values that are not both ints or both strings")


_ORDER = {"lt": int.__lt__, "le": int.__le__, "gt": int.__gt__, "ge": int.__ge__}


def _known_order(a: tuple, b: tuple, op: str) -> tuple | None:
    """``x + c1 <op> x + c2`` of the same deterministic ``x`` is known: rows where an addition
    overflows went to Python first (its check), so both sides are exact integers."""
    (base_a, step_a), (base_b, step_b) = offset(a), offset(b)
    if base_a != base_b or base_a[0] == "lit" or (step_a == step_b == 0):
        return None
    return ("lit", _ORDER[op](step_a, step_b))


def offset(ir: tuple) -> tuple[tuple, int]:
    """``ir`` as ``(x, c)`` with ``ir = x + c`` (``c`` an int literal); ``(ir, 0)`` itself when
    ``ir`` adds or subtracts no literal."""
    if ir[0] in ("add", "sub") and ir[2][0] == "lit" and type(ir[2][1]) is int:
        return ir[1], ir[2][1] if ir[0] == "add" else -ir[2][1]
    if ir[0] == "add" and ir[1][0] == "lit" and type(ir[1][1]) is int:
        return ir[2], ir[1][1]
    return ir, 0


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
