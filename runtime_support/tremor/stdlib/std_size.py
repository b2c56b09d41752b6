"""``std::size``: binary size units (Tremor-defined: ``x * 1024^k`` with checked overflow)."""

from __future__ import annotations

from typing import Any

from runtime_support.tremor import value_ops as ops
from runtime_support.tremor.stdlib._table import tremor_fn

M = "std::size"


def _unit(name: str, factor: int) -> None:
    @tremor_fn(f"{M}::{name}", 1)
    def impl(x: Any) -> Any:
        return ops.mul(x, factor)

    impl.__doc__ = f"``x * {factor}`` (float in, float out)."


for _i, _name in enumerate(("kiB", "MiB", "GiB", "TiB", "PiB", "EiB"), start=1):
    _unit(_name, 1024**_i)
