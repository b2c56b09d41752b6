"""Tremor's value model on plain Python objects.

Mapping: ``null`` = None, bool = bool, integer = int (range i64::MIN..u64::MAX), float = float,
string = str, binary = bytes, array = list, record = dict (insertion ordered, string keys).
``bool`` is a subclass of ``int`` in Python, so every check here tests ``type(v) is bool``
before any integer test.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "I64_MAX",
    "I64_MIN",
    "U64_MAX",
    "is_int",
    "is_number",
    "structural_eq",
    "total_cmp",
    "tremor_eq",
    "type_name",
]

I64_MIN = -(2**63)
I64_MAX = 2**63 - 1
U64_MAX = 2**64 - 1
EPSILON = 2.220446049250313e-16  # f64::EPSILON

_TYPE_NAMES: dict[type, str] = {
    type(None): "null",
    bool: "bool",
    int: "integer",
    float: "float",
    str: "string",
    list: "array",
    dict: "record",
    bytes: "bytes",
}


def type_name(v: Any) -> str:
    """The Tremor name of a value's type, as used in error messages and ``type::as_string``.

    >>> [type_name(x) for x in (None, True, 1, 1.0, "s", [], {}, b"")]
    ['null', 'bool', 'integer', 'float', 'string', 'array', 'record', 'bytes']
    """
    name = _TYPE_NAMES.get(type(v))
    if name is None:
        raise TypeError(f"not a Tremor value: {type(v).__name__}")
    return name


def is_int(v: Any) -> bool:
    """True for integers (and never for bools).

    >>> is_int(1), is_int(True), is_int(1.0)
    (True, False, False)
    """
    return type(v) is int


def is_number(v: Any) -> bool:
    """True for integers and floats (never for bools)."""
    t = type(v)
    return t is int or t is float


def tremor_eq(a: Any, b: Any) -> bool:
    """Tremor's ``==``: structural, numbers across int/float with absolute ``f64::EPSILON``.

    Different types are unequal (never an error); strings and binaries compare by bytes.

    >>> tremor_eq(1, 1.0), tremor_eq(1e-17, 0.0), tremor_eq("a", b"a"), tremor_eq(True, 1)
    (True, True, True, False)
    """
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is float:
            return abs(a - b) < EPSILON
        if ta is dict:
            return _record_eq(a, b)
        if ta is list:
            return len(a) == len(b) and all(map(tremor_eq, a, b))
        return a == b
    if ta is int and tb is float:
        return abs(float(a) - b) < EPSILON
    if ta is float and tb is int:
        return abs(a - float(b)) < EPSILON
    if ta is str and tb is bytes:
        return a.encode() == b
    if ta is bytes and tb is str:
        return a == b.encode()
    return False


def _record_eq(a: dict, b: dict) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        if k not in b or not tremor_eq(v, b[k]):
            return False
    return True


def structural_eq(a: Any, b: Any) -> bool:
    """Exact per-type equality (Rust ``PartialEq`` on values, as ``array::contains`` uses).

    >>> structural_eq(1, 1.0), structural_eq([1, {"a": 2}], [1, {"a": 2}])
    (False, True)
    """
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is list:
        return len(a) == len(b) and all(map(structural_eq, a, b))
    if ta is dict:
        if len(a) != len(b):
            return False
        return all(k in b and structural_eq(v, b[k]) for k, v in a.items())
    return a == b


# Rank of each type in Tremor's total order (array::sort): lower sorts first.
_RANK: dict[type, int] = {
    dict: 0,
    list: 1,
    str: 2,
    bytes: 2,
    int: 3,
    float: 3,
    bool: 4,
    type(None): 5,
}


def _sign(x: Any, y: Any) -> int:
    return (x > y) - (x < y)


def total_cmp(a: Any, b: Any) -> int:
    """Tremor's total order as ``-1``/``0``/``1``.

    record < array < string/binary (bytewise) < numbers < bool < null; records order by size,
    then sorted key lists, then values (in sorted key order).

    >>> total_cmp({}, []), total_cmp(2, 1.5), total_cmp(True, None), total_cmp("b", b"a")
    (-1, 1, -1, 1)
    """
    ra, rb = _RANK[type(a)], _RANK[type(b)]
    if ra != rb:
        return _sign(ra, rb)
    if ra == 2:
        return _sign(_as_bytes(a), _as_bytes(b))
    if ra == 3:
        if type(a) is int and type(b) is int:
            return _sign(a, b)
        return _sign(float(a), float(b))
    if ra == 1:
        return _cmp_arrays(a, b)
    if ra == 0:
        return _cmp_records(a, b)
    return _sign(a, b) if ra == 4 else 0


def _as_bytes(v: str | bytes) -> bytes:
    return v.encode() if type(v) is str else v


def _cmp_arrays(a: list, b: list) -> int:
    for x, y in zip(a, b, strict=False):
        c = total_cmp(x, y)
        if c:
            return c
    return _sign(len(a), len(b))


def _cmp_records(a: dict, b: dict) -> int:
    if len(a) != len(b):
        return _sign(len(a), len(b))
    ka, kb = sorted(a), sorted(b)
    if ka != kb:
        return _sign(ka, kb)
    for k in ka:
        c = total_cmp(a[k], b[k])
        if c:
            return c
    return 0
