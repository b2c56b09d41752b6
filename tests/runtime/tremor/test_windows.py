"""Windows, tilt frames and aggregates of the trickle select runtime (no Spark)."""

from __future__ import annotations

from typing import Any

import pytest

from runtime_support.tremor.aggregates import make
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.graph import Event
from runtime_support.tremor.select import GroupSpec, SelectOperator, SelectSpec
from runtime_support.tremor.windows import Code, WindowSpec


def _entry(fn):  # a hand-written "generated" entry
    def entry(event: Any, meta: Any, state: Any, ctx: EventContext):
        return "out", fn(event, state, ctx), meta, state

    return entry


def _code(fn) -> Code:
    return Code(_entry(fn), (), "")


def _collect(windows: tuple[WindowSpec, ...], events: list[Any]) -> list[Any]:
    spec = SelectSpec(
        target=_code(lambda e, s, c: s[0]),
        windows=windows,
        aggregates=("aggr::win::collect_flattened",),
        aggr_args=_code(lambda e, s, c: [[e]]),
    )
    op = SelectOperator(spec)
    out = []
    for i, value in enumerate(events):
        out += [ev.value for _, ev in op.process("in", Event(value, {}, i))]
    return out


def test_size_window_emits_including_event() -> None:
    assert _collect((WindowSpec(name="w", kind="size", amount=2),), [0, 1, 2, 3, 4]) == [
        [0, 1],
        [2, 3],
    ]


def test_tilt_frames_smallest_first() -> None:
    windows = (
        WindowSpec(name="a", kind="size", amount=2),
        WindowSpec(name="b", kind="size", amount=3),
    )
    got = _collect(windows, list(range(6)))
    assert got == [[0, 1], [2, 3], [4, 5], [0, 1, 2, 3, 4, 5]]


def test_interval_window_excludes_trigger() -> None:
    got = _collect((WindowSpec(name="t", kind="interval", amount=2),), [0, 1, 2, 3, 4])
    assert got == [[0, 1], [2, 3]]


def test_min_merge_quirk_and_sum_float() -> None:
    low, high = make("aggr::stats::min"), make("aggr::stats::min")
    low.accumulate((3,))
    high.merge(low)
    assert high.emit() == 0.0
    total = make("aggr::stats::sum")
    total.accumulate((2,))
    assert total.emit() == 2.0 and isinstance(total.emit(), float)


def test_group_values_and_where_error_goes_to_error_port() -> None:
    spec = SelectSpec(target=_code(lambda e, s, c: c.group), where=_code(lambda e, s, c: 1))
    out = SelectOperator(spec).process("in", Event(1, {}, 0))
    assert [port for port, _ in out] == ["error"]
    spec = SelectSpec(target=_code(lambda e, s, c: c.group))
    out = SelectOperator(spec).process("in", Event(1, {}, 0))
    assert out[0][1].value == [None, "[null]"]


GROUPS = [
    None,
    GroupSpec("expr", code=_code(lambda e, s, c: e["a"])),
    GroupSpec("each", code=_code(lambda e, s, c: e["tags"])),
    GroupSpec(
        "set",
        items=(
            GroupSpec("each", code=_code(lambda e, s, c: e["tags"])),
            GroupSpec("expr", code=_code(lambda e, s, c: e["a"])),
            GroupSpec("each", code=_code(lambda e, s, c: e["b"])),
        ),
    ),
]
EVENTS = [
    {"a": 1, "tags": ["x", "y", "x"], "b": [1, 2]},
    {"a": 2, "tags": [], "b": [1]},
    {"a": 3, "tags": ["z"], "b": "not an array"},  # each() of a non-array: an error
    {"a": 4, "tags": "no", "b": []},
]


@pytest.mark.parametrize("group", GROUPS)
def test_a_select_of_event_emits_what_its_target_would(group) -> None:
    """``target_is_event`` (the compiler's mark for ``select event``) skips running the target
    per group: same outputs, same errors, as running the target ``event`` once per group."""
    where = _code(lambda e, s, c: e["a"] != 2)
    for event in EVENTS:
        outs = []
        for fast in (False, True):
            spec = SelectSpec(
                target=_code(lambda e, s, c: e), where=where, group=group, target_is_event=fast
            )
            out = SelectOperator(spec).process("in", Event(event, {}, 0))
            outs.append([(port, ev.value) for port, ev in out])
        assert outs[0] == outs[1]
