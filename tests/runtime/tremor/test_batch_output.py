"""``generic::batch`` events reach outputs as their contained events, as at Tremor's sinks."""

from __future__ import annotations

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events

PROGRAM = """\
define operator b from generic::batch with count = 2 end;
create operator b;
select event from in into b;
select event from b into out;
"""


def test_batches_are_unpacked_at_outputs() -> None:
    graph = load_job(compile_source(Source("b.trickle", PROGRAM), "query").job, "b").GRAPH
    events = [("in", i, {"n": i}, i, None) for i in range(5)]
    out = [(seq, sub, port, value) for seq, sub, port, value in run_events(graph, events)]
    # the batch closes on the 2nd and 4th event; the 5th waits for a batch-mate
    assert out == [
        (1, 0, "out", {"n": 0}),
        (1, 1, "out", {"n": 1}),
        (3, 0, "out", {"n": 2}),
        (3, 1, "out", {"n": 3}),
    ]
