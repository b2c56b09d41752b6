"""Lower tremor-script boolean tests over ``event`` to the three-valued native IR.

The IR (interpreted by ``runtime_support.spark.prefilter``) is nested tuples of plain values, so a
job embeds it with ``repr()``. Every IR predicate evaluates per event to TRUE or FALSE only when the
Python backend provably gives that boolean (no error), and to NULL ("unknown") otherwise; a
caller may act natively on TRUE/FALSE and must send NULL rows to the Python backend.

IR forms:
    ("const", bool)
    ("eq", segs, literal)        Tremor ``==`` of the value at ``segs`` and a str/int/bool/null
    ("present", segs)            ``present event<segs>`` (last segment a key)
    ("is_record", segs)
    ("defined", segs)            the path resolves (reading it is no error)
    ("and", p, q) / ("or", p, q) Tremor's short-circuit: an unknown left side stays unknown
    ("not", p)
    ("first", ((m, d), ...))     the ``d`` of the first ``m`` that is TRUE (FALSE when none)
    ("truth", value)             a value IR that must be a bool (anything else: unknown)
    ("eqv", value, literal)      Tremor ``==`` of a value IR and a str/int/bool/null

Value IR forms (VARIANT-valued; NULL = unknown, e.g. a missing path or an inexact call):
    ("path", segs)               the value at ``event<segs>``
    ("lit", literal)             a str/int/bool/null literal
    ("call", name, (value, ...)) a std function that has an exact native lowering (registry)

``segs`` is a tuple of keys (str) and indexes (non-negative int) below ``event``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..ast import script as S

if TYPE_CHECKING:
    from runtime_support.tremor.stdlib import registry

IR = tuple
I64 = (-(2**63), 2**63 - 1)
# parse_json reads the JSON number 1e400 as the *string* "Infinity": never trust these strings.
VARIANT_AMBIGUOUS_STRINGS = frozenset({"Infinity", "-Infinity", "NaN"})


class NotNative(Exception):
    """The construct has no exact native lowering; ``reason`` says why (shown in reports)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Lowered:
    """A lowered predicate."""

    ir: IR


def event_segments(expr: S.Expr) -> tuple[str | int, ...]:
    """``event.a[0]["b"]`` → ``("a", 0, "b")``; raises NotNative for anything else."""
    if not isinstance(expr, S.Path):
        raise NotNative(f"{type(expr).__name__} is not an event path")
    if expr.root != "event":
        raise NotNative(f"reads `{expr.root}` (only `event` is a native column)")
    segs: list[str | int] = []
    for seg in expr.segments:
        if isinstance(seg, S.FieldSeg):
            segs.append(_key(seg.name))
        elif isinstance(seg, S.IndexSeg) and isinstance(seg.index, S.Literal):
            value = seg.index.value
            if isinstance(value, str):
                segs.append(_key(value))
            elif type(value) is int and 0 <= value <= I64[1]:
                segs.append(value)
            else:
                raise NotNative("index is not a non-negative integer or string literal")
        else:
            raise NotNative("computed index or range segment")
    return tuple(segs)


def _key(name: str) -> str:
    """A key usable in a variant path ``$['key']`` (Spark has no escape for quotes there)."""
    if "'" in name or "\\" in name:
        raise NotNative("key holds a quote or backslash (no variant path for it)")
    return name


def literal(expr: S.Expr) -> str | int | bool | None:
    """The value of a literal native comparisons support; NotNative otherwise."""
    if not isinstance(expr, S.Literal):
        raise NotNative(f"compares with a {type(expr).__name__}, not a literal")
    value = expr.value
    if isinstance(value, float):
        raise NotNative("float literal (VARIANT reads 1.0 as a decimal: float-ness is lost)")
    if type(value) is int and not I64[0] <= value <= I64[1]:
        raise NotNative("integer literal outside i64")
    if isinstance(value, str) and value in VARIANT_AMBIGUOUS_STRINGS:
        raise NotNative("string literal parse_json also produces for numbers")
    return value


def lower_expr(expr: S.Expr) -> IR:
    """A boolean tremor-script expression → IR predicate (NotNative when not exact)."""
    if isinstance(expr, S.Literal) and isinstance(expr.value, bool):
        return ("const", expr.value)
    if isinstance(expr, S.Unary) and expr.op == "not":
        return ("not", lower_expr(expr.operand))
    if isinstance(expr, S.Binary) and expr.op in ("and", "or"):
        return (expr.op, lower_expr(expr.left), lower_expr(expr.right))
    if isinstance(expr, S.Binary) and expr.op in ("==", "!="):
        test = _equality(expr.left, expr.right)
        return test if expr.op == "==" else ("not", test)
    if isinstance(expr, S.Present):
        test = ("present", _present_segments(expr.path))
        return ("not", test) if expr.negated else test
    if isinstance(expr, S.Call):
        return ("truth", lower_value(expr))
    raise NotNative(f"{_describe(expr)} has no native boolean lowering")


def _equality(left: S.Expr, right: S.Expr) -> IR:
    if isinstance(left, S.Literal) and not isinstance(right, S.Literal):
        left, right = right, left
    if isinstance(left, S.Call):
        return ("eqv", lower_value(left), literal(right))
    return ("eq", event_segments(left), literal(right))


def lower_value(expr: S.Expr) -> IR:
    """An argument or call → value IR: event paths, literals, and calls of std functions with
    an exact native lowering whose arguments lower (NotNative otherwise)."""
    if isinstance(expr, S.Path):
        return ("path", event_segments(expr))
    if isinstance(expr, S.Literal):
        return ("lit", literal(expr))
    if not isinstance(expr, S.Call):
        raise NotNative(f"{_describe(expr)} is not a native value")
    fn = native_function(expr)
    return ("call", fn.name, tuple(lower_value(arg) for arg in expr.args))


def native_function(call: S.Call) -> registry.Function:
    """The registry entry of a resolved std call that lowers natively (NotNative otherwise).
    The registry is imported here, not with the module: most builds lower no call."""
    import runtime_support.spark.std_native  # noqa: F401  (attaches the lowerings)
    from runtime_support.tremor.stdlib import registry

    fn = registry.lookup("::".join((*call.module, call.name)))
    if fn is None or fn.aggregate:
        raise NotNative("call of a user-defined function or aggregate")
    if fn.lowering is None:
        raise NotNative(f"std-lib function without native lowering ({fn.fallback})")
    if not fn.min_arity <= len(call.args) <= (fn.max_arity or len(call.args)):
        raise NotNative("call with a bad arity (an error in Tremor)")
    return fn


def _present_segments(path: S.Path) -> tuple[str | int, ...]:
    segs = event_segments(path)
    if not segs or not isinstance(segs[-1], str):
        raise NotNative("`present` of a whole event or an array index")
    return segs


def lower_pattern(segs: tuple[str | int, ...], pattern: S.Pattern) -> IR:
    """Does ``pattern`` match the value at ``segs``? (IR predicate; NotNative if not exact)."""
    if isinstance(pattern, S.AnyPattern):
        return ("const", True)
    if isinstance(pattern, S.ExprPattern):
        return ("eq", segs, literal(pattern.expr))
    if isinstance(pattern, S.RecordPattern):
        test: IR = ("is_record", segs)
        for field in pattern.fields:
            test = ("and", test, _field(segs, field))
        return test
    raise NotNative(f"{type(pattern).__name__} has no native lowering")


def _field(segs: tuple[str | int, ...], field: S.FieldPredicate) -> IR:
    """One ``%{...}`` field test: a missing key is "no match", never an error."""
    key = (*segs, _key(field.key))
    if field.alias is not None:
        raise NotNative("field predicate binds an alias")
    if field.kind == "present":
        return ("present", key)
    if field.kind == "absent":
        return ("not", ("present", key))
    if field.kind == "cmp" and field.op in ("==", "!=") and field.expr is not None:
        equal = ("eq", key, literal(field.expr))
        return ("and", ("present", key), equal if field.op == "==" else ("not", equal))
    raise NotNative(f"record-pattern field test `{field.kind} {field.op or ''}`".strip())


def _describe(expr: S.Node) -> str:
    if isinstance(expr, (S.Binary, S.Unary)):
        return f"operator `{expr.op}`"
    if isinstance(expr, S.Call):
        return f"call {'::'.join((*expr.module, expr.name))}"
    return type(expr).__name__
