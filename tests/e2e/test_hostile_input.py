"""Nothing lost on hostile input (issue 10): the built job of ``fixtures/hostile/hostile.trickle``
run as a user runs it (``-i``/``-o``, real Spark, several partitions) over labelled hostile lines
(:mod:`tests.support.hostile_events`): every input line is accounted for, in = out + err + dropped,
each line with the fate its label says, every err record with a reason and the original event, and
no traceback on stderr (the run and the accounting: :mod:`tests.support.hostile_run`).

The run takes the mode: ``batch``, and ``stream`` (issue 10's ``--stream --checkpoint DIR -i FOLDER
-o DIR --trigger available-now``, the lines as several files); the two modes' counts must agree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.hostile_events import generate
from tests.support.hostile_run import ERROR_KINDS, MODES, account, run_job

EVENTS = 20_000


#: Each mode's counts from :func:`test_every_hostile_event_is_accounted_for` (the same events),
#: which :func:`test_the_modes_agree` compares instead of running both jobs again.
COUNTED: dict[str, dict[str, int]] = {}


@pytest.mark.spark
@pytest.mark.parametrize("mode", MODES)
def test_every_hostile_event_is_accounted_for(mode: str, tmp_path: Path) -> None:
    events = list(generate(EVENTS, seed=10))
    assert {e.kind for e in events} >= {"valid", "deep", "drop", "runtime", *ERROR_KINDS}
    counts = account(events, run_job(mode, events, tmp_path))
    assert counts["out"] and counts["err"] and counts["dropped"]
    COUNTED[mode] = counts


@pytest.mark.spark
@pytest.mark.skipif(len(MODES) < 2, reason="one mode: the job has no --stream yet")
def test_the_modes_agree(tmp_path: Path) -> None:
    """Both modes account for the same events alike (each mode's run is reused when the test
    above ran in this session; otherwise it runs here)."""
    events = list(generate(EVENTS, seed=10))
    counts = [
        COUNTED.get(mode) or account(events, run_job(mode, events, tmp_path / mode))
        for mode in MODES
    ]
    assert all(c == counts[0] for c in counts)


def test_generator_is_deterministic_and_really_hostile() -> None:
    first, again = list(generate(2000, seed=3)), list(generate(2000, seed=3))
    assert first == again
    lines = [e.line for e in first]
    undecodable = 0
    for line in lines:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            undecodable += 1
    assert undecodable == sum(e.kind == "invalid_utf8" for e in first) > 0
    assert any(line.count(b"[") > 1000 or line.count(b"{") > 1000 for line in lines)
