"""Required literals of a regex: strings every match must contain, so a text without one of
them cannot match and the (backtracking, unanchored) search can be skipped.

Invariant: for a compiled pattern ``rx`` and any text ``t``, if ``rx.search(t)`` matches then
every string of :func:`required_literals` ``(rx)`` occurs in ``t``. Only literal characters on
the pattern's mandatory path count: the top-level sequence, groups on it and the bodies of
repeats with a minimum of at least one; alternations, classes, optional parts and
look-arounds contribute nothing. A case-insensitive pattern (or group) contributes nothing.

>>> import re
>>> required_literals(re.compile(r"%(\\d+)\\s+HTTP/(?:1|2)x?"))
('HTTP/', '%')
>>> required_literals(re.compile(r"(?i)abc"))
()
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["required_literals"]


def required_literals(rx: re.Pattern[str]) -> tuple[str, ...]:
    """The literals every match of ``rx`` contains (see the module), longest first."""
    if rx.flags & re.IGNORECASE or not isinstance(rx.pattern, str):
        return ()
    try:
        from re import _constants as C  # type: ignore[attr-defined]
        from re import _parser

        parsed = _parser.parse(rx.pattern, rx.flags)
    except Exception:  # noqa: BLE001 - another Python's internals: no prefilter, same result
        return ()
    if parsed.state.flags & re.IGNORECASE:
        return ()
    runs: list[str] = []
    _collect(list(parsed), runs, C)
    found = sorted(dict.fromkeys(run for run in runs if run), key=len, reverse=True)
    return tuple(found)


def _collect(items: list[Any], runs: list[str], C: Any) -> None:
    current: list[str] = []

    def cut() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    for op, av in items:
        if op is C.LITERAL:
            current.append(chr(av))
            continue
        cut()
        if op is C.SUBPATTERN:
            _, add_flags, _, body = av
            if not add_flags & re.IGNORECASE:
                _collect(list(body), runs, C)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, _, body = av
            if low >= 1:
                _collect(list(body), runs, C)
        elif op is getattr(C, "ATOMIC_GROUP", None):
            _collect(list(av), runs, C)
    cut()
