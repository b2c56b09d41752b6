"""``std::test``: the unit-test helpers."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor.stdlib._table import native, tremor_fn
from runtime_support.tremor.values import tremor_eq

M = "std::test"


@native(f"{M}::assert", 3, const=False)
def assert_(name: Any, expected: Any, got: Any) -> Any:
    """``true`` when equal (Tremor ``==``), else ``[expected, got]``.

    >>> assert_("t", 1, 1.0), assert_("t", 1, 2)
    (True, [1, 2])
    """
    return True if tremor_eq(expected, got) else [expected, got]


@tremor_fn(f"{M}::suite", (0, None))
def suite(*_args: Any) -> None:
    """Marks a test suite for ``tremor test unit``; returns ``null``."""
    return None


@tremor_fn(f"{M}::test", (0, None))
def test(*_args: Any) -> None:
    """Marks a test for ``tremor test unit``; returns ``null``."""
    return None
