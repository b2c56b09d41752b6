"""Tremor's aggregate functions (``aggr::stats::*``, ``aggr::win::*``) for windowed selects.

Each aggregate is an object with ``accumulate(args)``, ``merge(other)`` (tilt frames),
``emit()`` and ``init()`` (reset after an emission). Quirks copied from Tremor: ``stats::min``
merging into an empty frame keeps "none" (so higher frames report 0.0), ``stats::var`` adds the
shift values on merge.

>>> s = make("aggr::stats::sum"); s.accumulate((1,)); s.accumulate((2.5,)); s.emit()
3.5
>>> c = make("aggr::stats::count"); c.accumulate(()); c.emit()
1
"""

from __future__ import annotations

import math
import re
from typing import Any

from runtime_support.tremor.errors import TremorError

__all__ = ["AGGREGATES", "Aggregate", "make"]


def _number(value: Any, name: str, site: int = -1) -> float:
    """The float of a numeric argument, or Tremor's bad-type error."""
    if type(value) in (int, float):
        return float(value)
    raise TremorError(f"Bad type passed to function {name}/1", site)


class Aggregate:
    """Base: subclasses set ``NAME`` (``stats::sum``) and implement the four operations."""

    NAME = ""

    def __init__(self) -> None:
        self.init()

    def init(self) -> None:
        raise NotImplementedError

    def accumulate(self, args: tuple[Any, ...]) -> None:
        raise NotImplementedError

    def merge(self, other: Aggregate) -> None:
        raise NotImplementedError

    def emit(self) -> Any:
        raise NotImplementedError


class Count(Aggregate):
    NAME = "stats::count"

    def init(self) -> None:
        self.n = 0

    def accumulate(self, args: tuple[Any, ...]) -> None:
        self.n += 1

    def merge(self, other: Aggregate) -> None:
        self.n += other.n  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return self.n


class Sum(Aggregate):
    NAME = "stats::sum"

    def init(self) -> None:
        self.total = 0.0

    def accumulate(self, args: tuple[Any, ...]) -> None:
        self.total += _number(args[0], self.NAME)

    def merge(self, other: Aggregate) -> None:
        self.total += other.total  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return self.total


class Mean(Aggregate):
    NAME = "stats::mean"

    def init(self) -> None:
        self.n = 0
        self.total = 0.0

    def accumulate(self, args: tuple[Any, ...]) -> None:
        self.total += _number(args[0], self.NAME)
        self.n += 1

    def merge(self, other: Aggregate) -> None:
        self.n += other.n  # type: ignore[attr-defined]
        self.total += other.total  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return None if self.n == 0 else self.total / self.n


class Min(Aggregate):
    NAME = "stats::min"

    def init(self) -> None:
        self.value: float | None = None

    def accumulate(self, args: tuple[Any, ...]) -> None:
        v = _number(args[0], self.NAME)
        if self.value is None or v < self.value:
            self.value = v

    def merge(self, other: Aggregate) -> None:
        # Tremor compares Options: None < Some(x), so an empty frame stays empty (quirk).
        theirs = other.value  # type: ignore[attr-defined]
        if self.value is not None and theirs is not None and theirs < self.value:
            self.value = theirs

    def emit(self) -> Any:
        return 0.0 if self.value is None else self.value


class Max(Aggregate):
    NAME = "stats::max"

    def init(self) -> None:
        self.value: float | None = None

    def accumulate(self, args: tuple[Any, ...]) -> None:
        v = _number(args[0], self.NAME)
        if self.value is None or v > self.value:
            self.value = v

    def merge(self, other: Aggregate) -> None:
        theirs = other.value  # type: ignore[attr-defined]
        if theirs is not None and (self.value is None or theirs > self.value):
            self.value = theirs

    def emit(self) -> Any:
        return 0.0 if self.value is None else self.value


class Var(Aggregate):
    """Sample variance from shifted sums (``k`` = first value)."""

    NAME = "stats::var"

    def init(self) -> None:
        self.n = 0
        self.k = 0.0
        self.ex = 0.0
        self.ex2 = 0.0

    def accumulate(self, args: tuple[Any, ...]) -> None:
        v = _number(args[0], self.NAME)
        if self.n == 0:
            self.k = v
        self.n += 1
        self.ex += v - self.k
        self.ex2 += (v - self.k) ** 2

    def merge(self, other: Aggregate) -> None:
        self.n += other.n  # type: ignore[attr-defined]
        self.k += other.k  # type: ignore[attr-defined]  # quirk: shifts are added
        self.ex += other.ex  # type: ignore[attr-defined]
        self.ex2 += other.ex2  # type: ignore[attr-defined]

    def emit(self) -> Any:
        if self.n == 0:
            return 0.0
        n = float(self.n)
        if n == 1.0:
            return math.nan
        return (self.ex2 - (self.ex * self.ex) / n) / (n - 1.0)


class Stdev(Var):
    NAME = "stats::stdev"

    def emit(self) -> Any:
        return math.sqrt(super().emit())


_DEFAULT_PERCENTILES = ("0.5", "0.9", "0.95", "0.99", "0.999", "0.9999", "0.99999")


class Hdr(Aggregate):
    """Histogram summary; exact values are kept (Tremor quantises to 2 significant digits)."""

    NAME = "stats::hdr"

    def init(self) -> None:
        self.values: list[int] = []
        self.percentiles: tuple[str, ...] | None = None

    def accumulate(self, args: tuple[Any, ...]) -> None:
        if self.percentiles is None:
            self.percentiles = _percentiles(args, self.NAME)
        v = args[0] if args else None
        if type(v) in (int, float) and v >= 0:  # Tremor skips non-numbers and negatives
            self.values.append(int(v))

    def merge(self, other: Aggregate) -> None:
        self.values.extend(other.values)  # type: ignore[attr-defined]
        if self.percentiles is None:
            self.percentiles = other.percentiles  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return _summary(
            sorted(self.values),
            _DEFAULT_PERCENTILES if self.percentiles is None else self.percentiles,
            hdr=True,
        )


class Dds(Hdr):
    NAME = "stats::dds"

    def emit(self) -> Any:
        return _summary(
            sorted(self.values),
            _DEFAULT_PERCENTILES if self.percentiles is None else self.percentiles,
            hdr=False,
        )


_RUST_F64 = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))"
)


def _percentiles(args: tuple[Any, ...], name: str) -> tuple[str, ...]:
    """Tremor's rule: a non-array second argument keeps the defaults, non-strings in it are
    skipped, a string that is not an f64 is a runtime error (worded per function, as Tremor)."""
    if len(args) < 2 or type(args[1]) is not list:
        return _DEFAULT_PERCENTILES
    found = tuple(p for p in args[1] if type(p) is str)
    for p in found:
        if not _RUST_F64.fullmatch(p):
            if name == "stats::dds":
                why = "cannot parse float from empty string" if not p else "invalid float literal"
            else:
                why = "ParseFloatError { kind: %s }" % ("Empty" if not p else "Invalid")
            detail = f"Provided percentile '{p}' isn't a float: {why}"
            raise TremorError(f"Runtime error in function {name}/2: {detail}")
    return found


def _summary(values: list[int], percentiles: tuple[str, ...], *, hdr: bool) -> dict[str, Any]:
    count = len(values)
    result: dict[str, Any] = {"count": count}
    if not count:
        result.update({"min": 0, "max": 0, "mean": 0.0})
        result["percentiles"] = {p: 0 for p in percentiles}
        return result
    mean = sum(values) / count
    result.update({"min": values[0], "max": values[-1], "mean": mean})
    if hdr:
        var = sum((v - mean) ** 2 for v in values) / count
        result.update({"stdev": math.sqrt(var), "var": var})
    else:
        result["sum"] = sum(values)
    pct = {}
    for p in percentiles:
        q = float(p)
        index = max(0, min(count - 1, math.ceil(q * count) - 1))
        pct[p] = values[index]
    result["percentiles"] = pct
    return result


class First(Aggregate):
    NAME = "win::first"

    def init(self) -> None:
        self.set = False
        self.value: Any = None

    def accumulate(self, args: tuple[Any, ...]) -> None:
        if not self.set:
            self.set, self.value = True, args[0]

    def merge(self, other: Aggregate) -> None:
        if not self.set and other.set:  # type: ignore[attr-defined]
            self.set, self.value = True, other.value  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return self.value


class Last(First):
    NAME = "win::last"

    def accumulate(self, args: tuple[Any, ...]) -> None:
        self.set, self.value = True, args[0]

    def merge(self, other: Aggregate) -> None:
        if other.set:  # type: ignore[attr-defined]
            self.set, self.value = True, other.value  # type: ignore[attr-defined]


class CollectFlattened(Aggregate):
    NAME = "win::collect_flattened"

    def init(self) -> None:
        self.items: list[Any] = []

    def accumulate(self, args: tuple[Any, ...]) -> None:
        self.items.append(args[0])

    def merge(self, other: Aggregate) -> None:
        self.items.extend(other.items)  # type: ignore[attr-defined]

    def emit(self) -> Any:
        return list(self.items)


class CollectNested(CollectFlattened):
    NAME = "win::collect_nested"

    def merge(self, other: Aggregate) -> None:
        self.items.append(list(other.items))  # type: ignore[attr-defined]


AGGREGATES: dict[str, type[Aggregate]] = {
    f"aggr::{cls.NAME}": cls
    for cls in (
        Count, Sum, Mean, Min, Max, Var, Stdev, Hdr, Dds,
        First, Last, CollectFlattened, CollectNested,
    )
}  # fmt: skip


def make(path: str) -> Aggregate:
    """A fresh aggregate for the fully qualified ``path`` (``aggr::stats::sum``)."""
    return AGGREGATES[path]()
