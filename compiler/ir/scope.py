"""The state scope of a job-graph node: what state it keeps and how that state is split.

A node is exactly one of:

- :class:`Stateless` — each event is processed on its own (any partitioning is correct);
- :class:`Keyed` — state is split by ``key`` (the source text of the group-by expression, or a
  metadata field for an operator) and no event of one key reads another key's state (hash
  partitioning on the key is correct);
- :class:`Global` — one state sees every event in order (a single, ordered partition).

``describe`` matches them exhaustively; the partitioner of the next issue does the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from ..source import NO_SPAN, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class Stateless:
    """No state: each event on its own."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Keyed:
    """State per value of ``key`` (source text); ``span`` is where the key is written."""

    key: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Global:
    """One state for all events, serial; ``reason`` says what state."""

    reason: str


StateScope = Stateless | Keyed | Global


def describe(scope: StateScope) -> str:
    """Stable one-line text: ``stateless``, ``keyed by <key>``, ``global (<reason>)``."""
    match scope:
        case Stateless():
            return "stateless"
        case Keyed(key=key):
            return f"keyed by {key}"
        case Global(reason=reason):
            return f"global ({reason})"
        case _:
            assert_never(scope)


def combine(scopes: list[StateScope]) -> StateScope:
    """The scope of nodes that share one stage: global wins, then keyed (same key), else none.

    Two different keys cannot share a hash partitioning, so they combine to global.
    """
    keyed = {s.key: s for s in scopes if isinstance(s, Keyed)}
    globals_ = [s for s in scopes if isinstance(s, Global)]
    if globals_:
        return globals_[0]
    if len(keyed) > 1:
        return Global(reason="state keyed by " + " and ".join(sorted(keyed)))
    return next(iter(keyed.values())) if keyed else Stateless()
