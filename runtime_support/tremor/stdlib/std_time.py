"""``std::time::nanos``: nanosecond unit constants and conversions (Tremor-defined)."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor import value_ops as ops
from runtime_support.tremor.stdlib._table import constant, tremor_fn

M = "std::time::nanos"
UNITS = {
    "MICROSECOND": 1_000,
    "MILLISECOND": 1_000_000,
    "SECOND": 1_000_000_000,
    "MINUTE": 60_000_000_000,
    "HOUR": 3_600_000_000_000,
    "DAY": 86_400_000_000_000,
    "WEEK": 604_800_000_000_000,
}
_PLURAL = {
    "MICROSECOND": "micros",
    "MILLISECOND": "millis",
    "SECOND": "seconds",
    "MINUTE": "minutes",
    "HOUR": "hours",
    "DAY": "days",
    "WEEK": "weeks",
}

for _unit_name, _ns in UNITS.items():
    constant(f"{M}::NANOS_PER_{_unit_name}", _ns)


def _define(plural: str, unit: int) -> None:
    @tremor_fn(f"{M}::from_{plural}", 1)
    def from_unit(x: Any) -> Any:
        return ops.mul(x, unit)

    @tremor_fn(f"{M}::to_{plural}", 1)
    def to_unit(ns: Any) -> float:
        return ops.div(ns, unit)

    from_unit.__doc__ = f"``x * {unit}``."
    to_unit.__doc__ = f"``ns / {unit}`` (always a float)."
    if plural == "weeks":
        return

    @tremor_fn(f"{M}::truncate_{plural}", 1)
    def truncate(ns: Any) -> Any:
        if ops.ge(ns, 0):
            return ops.sub(ns, ops.mod(ns, unit))
        return ops.sub(ops.sub(ns, unit), ops.mod(ns, unit))

    truncate.__doc__ = f"Round down to a multiple of {unit} (negatives: one unit further)."


for _unit_name, _ns in UNITS.items():
    _define(_PLURAL[_unit_name], _ns)
