"""``grouper::bucket``'s sliding-window limiter (runtime_support/tremor/builtin_operators.py
``_Limiter``, kept incrementally) against a direct reading of the rule: an event at ``now`` is
allowed when the events allowed in the ``windows`` slots of ``time_range / windows`` ms ending at
its slot are fewer than ``rate``. Times go forward, stand still and go back."""

from __future__ import annotations

import random

import pytest

from runtime_support.tremor.builtin_operators import _Limiter


def _reference(rate: int, time_range: int, windows: int, times: list[int]) -> list[bool]:
    slot_ms = max(1, time_range // max(1, windows))
    windows = max(1, windows)
    counts: dict[int, int] = {}
    allowed = []
    for now in times:
        current = now // slot_ms
        counts = {s: n for s, n in counts.items() if s > current - windows}
        ok = sum(counts.values()) < rate
        if ok:
            counts[current] = counts.get(current, 0) + 1
        allowed.append(ok)
    return allowed


@pytest.mark.parametrize("seed", range(40))
def test_limiter_is_the_sliding_window_rule(seed: int) -> None:
    rng = random.Random(seed)
    rate, time_range, windows = rng.randint(0, 6), rng.choice([10, 100, 1000]), rng.randint(1, 12)
    now, times = rng.randint(0, 5000), []
    for _ in range(300):
        now = max(0, now + rng.choice([0, 0, 1, 3, 9, 40, 300, -5, -200]))
        times.append(now)
    limiter = _Limiter(rate, time_range, windows)
    assert [limiter.allow(t) for t in times] == _reference(rate, time_range, windows, times)
