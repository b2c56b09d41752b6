"""Tremor's operators on Python values, with Tremor's exact error messages.

Integers follow Tremor's two-kind model: a non-negative int is a u64, a negative one an i64.
Arithmetic first tries u64 (both operands >= 0), then i64 (both within i64), then f64 (any
number, which is where a mixed huge-u64/negative pair ends up, as in Tremor). ``+ - *`` are
checked; ``/`` always yields a float; ``%`` is integer-only with the dividend's sign.

>>> binary("/", 4, 2), binary("%", -7, 2), binary(">>>", -42, 2), unary("!", 12)
(2.0, -1, 4611686018427387893, 18446744073709551603)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from runtime_support.tremor.errors import TremorError
from runtime_support.tremor.values import I64_MAX, I64_MIN, U64_MAX, tremor_eq, type_name

__all__ = [
    "add",
    "band",
    "binary",
    "bxor",
    "check_bool",
    "check_bool_rhs",
    "div",
    "eq",
    "ge",
    "gt",
    "le",
    "lshr",
    "lt",
    "mod",
    "mul",
    "ne",
    "shl",
    "shr",
    "sub",
    "unary",
    "xor_bool",
]

_TWO64 = 2**64


def invalid_binary(op: str, a: Any, b: Any, site: int) -> TremorError:
    """The error for an operator applied to operand types it is not defined for."""
    return TremorError(
        f"The binary operation `{op}` is not defined for the type "
        f"`{type_name(a)}` and `{type_name(b)}`",
        site,
    )


def _overflow(op: str, site: int) -> TremorError:
    return TremorError(f"The binary operation `{op}` caused an over- or underflow", site)


def _div_zero(op: str, site: int) -> TremorError:
    return TremorError(f"The binary operation `{op}` must have a non zero RHS", site)


def _bad_shift(site: int) -> TremorError:
    return TremorError("RHS value is larger than or equal to the number of bits in LHS value", site)


def _is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def _kind(a: Any, b: Any) -> int:
    """0: both u64, 1: both i64, 2: numbers needing f64, -1: not both numbers."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a >= 0 and b >= 0:
            return 0
        if a <= I64_MAX and b <= I64_MAX:
            return 1
        return 2
    if (ta is int or ta is float) and (tb is int or tb is float):
        return 2
    return -1


def _i64(r: int, op: str, site: int) -> int:
    if r < I64_MIN or r > I64_MAX:
        raise _overflow(op, site)
    return r


def add(a: Any, b: Any, site: int = -1) -> Any:
    """``a + b``: checked integer add, float add, or string/array concat or record union.

    Record union keeps the right side's entries first, then left-only keys (as Tremor does).

    >>> add({"a": 1, "b": 2}, {"b": 3, "c": 4})
    {'b': 3, 'c': 4, 'a': 1}
    """
    k = _kind(a, b)
    if k == 0:
        r = a + b
        if r > U64_MAX:
            raise _overflow("+", site)
        return r
    if k == 1:
        return _i64(a + b, "+", site)
    if k == 2:
        return float(a) + float(b)
    ta = type(a)
    if ta is type(b):
        if ta is str or ta is list:
            return a + b
        if ta is dict:
            out = dict(b)
            for key, v in a.items():
                if key not in out:
                    out[key] = v
            return out
    raise invalid_binary("+", a, b, site)


def sub(a: Any, b: Any, site: int = -1) -> Any:
    """``a - b``: a u64 difference may go negative only if it fits an i64 (not i64::MIN)."""
    k = _kind(a, b)
    if k == 0:
        if a >= b:
            return a - b
        if b - a > I64_MAX:
            raise _overflow("-", site)
        return a - b
    if k == 1:
        return _i64(a - b, "-", site)
    if k == 2:
        return float(a) - float(b)
    raise invalid_binary("-", a, b, site)


def mul(a: Any, b: Any, site: int = -1) -> Any:
    """``a * b`` with checked integer overflow."""
    k = _kind(a, b)
    if k == 0:
        r = a * b
        if r > U64_MAX:
            raise _overflow("*", site)
        return r
    if k == 1:
        return _i64(a * b, "*", site)
    if k == 2:
        return float(a) * float(b)
    raise invalid_binary("*", a, b, site)


def _fdiv(x: float, y: float) -> float:
    if y == 0.0:
        if x == 0.0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def div(a: Any, b: Any, site: int = -1) -> float:
    """``a / b``: always a float; integer division by zero is an error, float gives inf/NaN."""
    k = _kind(a, b)
    if k == 0 or k == 1:
        if b == 0:
            raise _div_zero("/", site)
        return float(a) / float(b)
    if k == 2:
        return _fdiv(float(a), float(b))
    raise invalid_binary("/", a, b, site)


def mod(a: Any, b: Any, site: int = -1) -> int:
    """``a % b``: integers only; the result takes the dividend's sign (Rust remainder)."""
    k = _kind(a, b)
    if k == 0 or k == 1:
        if b == 0:
            raise _div_zero("%", site)
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    raise invalid_binary("%", a, b, site)


def eq(a: Any, b: Any, site: int = -1) -> bool:
    """``a == b`` (never fails)."""
    return tremor_eq(a, b)


def ne(a: Any, b: Any, site: int = -1) -> bool:
    """``a != b`` (never fails)."""
    return not tremor_eq(a, b)


def _cmp_operands(op: str, a: Any, b: Any, site: int) -> tuple[Any, Any]:
    """Coerce comparable operands to a common Python type, or raise Tremor's error."""
    ta, tb = type(a), type(b)
    if ta is str or ta is bytes:
        if tb is ta:
            return a, b
        if tb is str or tb is bytes:
            return (a.encode() if ta is str else a), (b.encode() if tb is str else b)
        raise invalid_binary(op, a, b, site)
    k = _kind(a, b)
    if k == 0 or k == 1:
        return a, b
    if k == 2:
        return float(a), float(b)
    raise invalid_binary(op, a, b, site)


def lt(a: Any, b: Any, site: int = -1) -> bool:
    """``a < b`` on numbers, strings and binaries."""
    x, y = _cmp_operands("<", a, b, site)
    return x < y


def le(a: Any, b: Any, site: int = -1) -> bool:
    """``a <= b`` on numbers, strings and binaries."""
    x, y = _cmp_operands("<=", a, b, site)
    return x <= y


def gt(a: Any, b: Any, site: int = -1) -> bool:
    """``a > b`` on numbers, strings and binaries."""
    x, y = _cmp_operands(">", a, b, site)
    return x > y


def ge(a: Any, b: Any, site: int = -1) -> bool:
    """``a >= b`` on numbers, strings and binaries."""
    x, y = _cmp_operands(">=", a, b, site)
    return x >= y


def band(a: Any, b: Any, site: int = -1) -> Any:
    """``a & b``: bitwise on integers (both u64 or both i64), logical on bools."""
    if type(a) is bool and type(b) is bool:
        return a and b
    k = _kind(a, b)
    if k == 0 or k == 1:
        return a & b
    raise invalid_binary("&", a, b, site)


def bxor(a: Any, b: Any, site: int = -1) -> Any:
    """``a ^ b``: bitwise on integers (both u64 or both i64), logical xor on bools."""
    if type(a) is bool and type(b) is bool:
        return a is not b
    k = _kind(a, b)
    if k == 0 or k == 1:
        return a ^ b
    raise invalid_binary("^", a, b, site)


def _shift_operands(op: str, a: Any, b: Any, site: int) -> int:
    """Validate shift operands; return the kind (0 u64, 1 i64)."""
    k = _kind(a, b)
    if k != 0 and k != 1:
        raise invalid_binary(op, a, b, site)
    if b < 0 or b > 63:
        raise _bad_shift(site)
    return k


def _to_i64(n: int) -> int:
    n &= U64_MAX
    return n - _TWO64 if n > I64_MAX else n


def shl(a: Any, b: Any, site: int = -1) -> int:
    """``a << b``: bits shifted out are lost; the amount must be in 0..63."""
    k = _shift_operands("<<", a, b, site)
    if k == 0:
        return (a << b) & U64_MAX
    return _to_i64(a << b)


def shr(a: Any, b: Any, site: int = -1) -> int:
    """``a >> b``: arithmetic shift (sign-extending for negative values)."""
    _shift_operands(">>", a, b, site)
    return a >> b


def lshr(a: Any, b: Any, site: int = -1) -> int:
    """``a >>> b``: logical shift; a negative i64 is shifted as its u64 bit pattern."""
    k = _shift_operands(">>>", a, b, site)
    if k == 0:
        return a >> b
    return _to_i64((a & U64_MAX) >> b)


BINARY: dict[str, Callable[[Any, Any, int], Any]] = {
    "+": add,
    "-": sub,
    "*": mul,
    "/": div,
    "%": mod,
    "==": eq,
    "!=": ne,
    "<": lt,
    "<=": le,
    ">": gt,
    ">=": ge,
    "&": band,
    "^": bxor,
    "<<": shl,
    ">>": shr,
    ">>>": lshr,
}


def binary(op: str, a: Any, b: Any, site: int = -1) -> Any:
    """Apply the (non-logical) binary operator written ``op``."""
    return BINARY[op](a, b, site)


def _invalid_unary(op: str, v: Any, site: int) -> TremorError:
    return TremorError(
        f"The unary operation `{op}` is not defined for the type `{type_name(v)}`", site
    )


def _neg(v: Any, site: int) -> Any:
    t = type(v)
    if t is float:
        return -v
    if t is int:
        if v == 2**63:
            return I64_MIN
        if I64_MIN < v <= I64_MAX:
            return -v
    raise _invalid_unary("-", v, site)


def _bitnot(v: Any, site: int) -> Any:
    t = type(v)
    if t is bool:
        return not v
    if t is int:
        return U64_MAX ^ v if v >= 0 else ~v
    raise _invalid_unary("!", v, site)


def unary(op: str, v: Any, site: int = -1) -> Any:
    """Apply unary ``-``, ``+``, ``not`` or ``!``.

    >>> unary("-", 2**63), unary("!", -1), unary("!", True)
    (-9223372036854775808, 0, False)
    """
    if op == "-":
        return _neg(v, site)
    if op == "!":
        return _bitnot(v, site)
    if op == "+":
        if _is_num(v):
            return v
    elif op == "not" and type(v) is bool:
        return not v
    raise _invalid_unary(op, v, site)


def _invalid_bool(op: str, left: Any, right: str, site: int) -> TremorError:
    return TremorError(
        f"The binary operation `{op}` is not defined for the type `{type_name(left)}` "
        f"and `{right}`",
        site,
    )


def check_bool(v: Any, op: str, site: int = -1) -> bool:
    """Return the left operand of ``and``/``or``/``xor`` if it is a bool, else raise.

    >>> try:
    ...     check_bool(1, "and")
    ... except TremorError as e:
    ...     print(e.message)
    The binary operation `and` is not defined for the type `integer` and `<not executed>`
    """
    if type(v) is bool:
        return v
    raise _invalid_bool(op, v, "<not executed>", site)


def check_bool_rhs(left: Any, v: Any, op: str, site: int = -1) -> bool:
    """Return the right operand of ``and``/``or``/``xor`` if it is a bool, else raise."""
    if type(v) is bool:
        return v
    raise _invalid_bool(op, left, type_name(v), site)


def xor_bool(a: Any, b: Any, site: int = -1, right_site: int | None = None) -> bool:
    """``a xor b``: both operands are evaluated and must be bools (``right_site`` locates an
    error in ``b``; it defaults to ``site``)."""
    rsite = site if right_site is None else right_site
    return check_bool(a, "xor", site) is not check_bool_rhs(a, b, "xor", rsite)
