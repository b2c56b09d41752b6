"""``aggr::stats::hdr`` / ``aggr::stats::dds`` argument handling as Tremor's ``stats.rs``
(runtime_support/tremor/aggregates.py): a percentile that is no float is an error in Tremor's
words; the arguments Tremor ignores are ignored."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("name", "percentile", "why"),
    [
        ("hdr", "x", "ParseFloatError { kind: Invalid }"),
        ("hdr", "", "ParseFloatError { kind: Empty }"),
        ("dds", "0.5x", "invalid float literal"),
        ("dds", "", "cannot parse float from empty string"),
    ],
)
def test_percentile_that_is_not_a_float(name: str, percentile: str, why: str) -> None:
    from runtime_support.tremor.aggregates import make
    from runtime_support.tremor.errors import TremorError

    with pytest.raises(TremorError) as err:
        make(f"aggr::stats::{name}").accumulate((1, ["0.5", percentile]))
    assert str(err.value.args[0]) == (
        f"Runtime error in function stats::{name}/2: "
        f"Provided percentile '{percentile}' isn't a float: {why}"
    )


@pytest.mark.parametrize("name", ["hdr", "dds"])
def test_percentile_arguments_tremor_ignores(name: str) -> None:
    from runtime_support.tremor.aggregates import make

    aggr = make(f"aggr::stats::{name}")
    aggr.accumulate((1, "not an array"))  # defaults kept
    aggr.accumulate(("two", None))  # a non-number is skipped, as is a negative
    aggr.accumulate((-3,))
    out = aggr.emit()
    assert out["count"] == 1
    assert list(out["percentiles"]) == ["0.5", "0.9", "0.95", "0.99", "0.999", "0.9999", "0.99999"]
    only = make(f"aggr::stats::{name}")
    only.accumulate((1, [0.5, "0.9", None]))  # non-strings are filtered out
    assert list(only.emit()["percentiles"]) == ["0.9"]
