"""A forwarded stream's batch is made into rows at once (``runtime_support.spark.forward_rows``):
the rows are those of the chain loop (``stages._Runner._feed_chain``) for the same batch, and a
batch holding anything but events that decode is left to that loop."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.input_lines import SOURCE_ERROR
from runtime_support.spark.stages import _Runner, arrow_row_schema, stage_mapper

FORWARD = "select event from in into out;"
GOOD = [
    b'{"n": 1}',
    b'{ "s" : "caf\\u00e9 \\/", "f": 1.50, "e": 1e16 }',
    b'{"n": 18446744073709551615, "m": -9223372036854775808, "a": [1, 2.5, -0]}',
    b'{"n": 1, "n": 2}',
    b'"text"',
]
# What Tremor writes for each (its JSON: compact, ryu floats, the last duplicate key wins).
WRITTEN = [
    '{"n":1}',
    '{"s":"café /","f":1.5,"e":1e16}',
    '{"n":18446744073709551615,"m":-9223372036854775808,"a":[1,2.5,0]}',
    '{"n":2}',
    '"text"',
]


def _job() -> Any:
    return load_job(compile_source(Source("forward.trickle", FORWARD), "query").job, "forward")


def _batch(lines: list[Any], kind: Any = None, **columns: list[Any]) -> Any:
    """Input rows of stream ``in`` (``value`` of Arrow type ``kind``, binary by default)."""
    count = len(lines)
    data = {
        "stream": pa.array(["in"] * count),
        "seq": pa.array(range(100, 100 + count), pa.int64()),
        "value": pa.array(lines, kind or pa.binary()),
        "ingest_ns": pa.array([1000 + i for i in range(count)], pa.int64()),
        "origin": pa.nulls(count, pa.string()),
        "meta": pa.nulls(count, pa.string()),
    }
    data.update({name: pa.array(values) for name, values in columns.items()})
    return pa.RecordBatch.from_pydict(data)


def _looped(job: Any, batch: Any) -> dict[str, list[Any]]:
    """The rows of the chain loop for ``batch`` (the batch as ``feed_source`` reads it)."""
    from runtime_support.spark.input_lines import source_columns

    runner = _Runner(job.GRAPH, job.STAGES, 0)
    runner.feed_source(source_columns(batch), batch.column("value"))
    return runner.take().to_pydict()


def _mapped(job: Any, batches: list[Any]) -> dict[str, list[Any]]:
    mapper = stage_mapper(job.GRAPH, job.STAGES, 0, True)
    out = pa.Table.from_batches(list(mapper(iter(batches))), arrow_row_schema())
    return out.to_pydict()


@pytest.mark.parametrize("kind", [pa.binary(), pa.string(), pa.large_string()])
def test_a_batch_of_events_is_forwarded_as_the_loop_writes_it(kind: Any) -> None:
    job = _job()
    runner = _Runner(job.GRAPH, job.STAGES, 0)
    assert runner.forwards == {"in": "out"}
    batch = _batch([line.decode() for line in GOOD] if kind != pa.binary() else GOOD, kind)
    rows = runner.forwarded(batch)
    assert rows is not None and runner.seen
    got = rows.to_pydict()
    assert got["value"] == WRITTEN
    assert got["seq"] == [100, 101, 102, 103, 104]
    assert set(got["target"]) == {"out"} and set(got["stage"]) == {-1}
    assert got == _looped(job, batch)


def test_nesting_is_forwarded_up_to_tremorc_s_limit_and_refused_beyond() -> None:
    """Without a nesting screen the encoder's refusal decides: 254 levels are written, a
    batch with 255 takes the loop (which names the row)."""
    job = _job()
    runner = _Runner(job.GRAPH, job.STAGES, 0)
    deepest = b"[" * 254 + b"]" * 254
    rows = runner.forwarded(_batch([deepest]))
    assert rows is not None and rows.column("value").to_pylist() == [deepest.decode()]
    assert runner.forwarded(_batch([b"[" * 255 + b"]" * 255])) is None
    record = _looped(job, _batch([b"[" * 255 + b"]" * 255]))
    assert record["target"] == ["err"] and "254 levels" in record["value"][0]


@pytest.mark.parametrize(
    "batch",
    [
        _batch([*GOOD, b"not json"]),
        _batch([*GOOD, None]),  # a streaming job's end-of-input signal
        _batch([*GOOD, b'{"n": 18446744073709551616}']),  # out of Tremor's integers
        _batch([*GOOD, b"[" * 300 + b"]" * 300]),  # deeper than tremorc reads
        _batch(GOOD, origin=[None, None, SOURCE_ERROR, None, None]),
        _batch(GOOD, meta=[None, '{"$": {"k": 1}}', None, None, None]),
        _batch(GOOD, stream=["in", "in", "other", "in", "in"]),
        _batch(GOOD, stream=["in", "in", None, "in", "in"]),
    ],
    ids=[
        "bad line",
        "end signal",
        "big integer",
        "too deep",
        "source error",
        "meta",
        "streams",
        "no stream",
    ],  # fmt: skip
)
def test_a_batch_with_anything_but_events_that_decode_takes_the_loop(batch: Any) -> None:
    job = _job()
    assert _Runner(job.GRAPH, job.STAGES, 0).forwarded(batch) is None


def test_the_stage_writes_forwarded_and_looped_batches_in_order() -> None:
    """A batch the loop runs (its rows kept for the next take) then a forwarded one: every row
    once, the kept rows first; an unreadable line is an ``err`` record."""
    job = _job()
    first, second = _batch([b'{"a": 1}', b"nope"]), _batch(GOOD)
    got = _mapped(job, [first, second])
    assert got["value"][0] == '{"a":1}' and got["target"][:2] == ["out", "err"]
    assert "nope" in got["value"][1]
    assert got["value"][2:] == WRITTEN
    assert got["seq"] == [100, 101, 100, 101, 102, 103, 104]
