"""Repeated outputs (``StageSpec.repeats``, ``runtime_support.spark.stages.REPEAT_ROW_SCHEMA``): a
source stage whose windowless select emits an event's output once per group sends equal outputs in a
row as one row with a count, and the JVM expands it. Every port's ``(seq, sub, value)`` rows are
those of the same job without the mark, in batch and streaming, on events with duplicate, empty,
missing and non-array groups."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.stages import ROW_SCHEMA
from tests.support.paths import WORKLOADS
from tests.support.stream_harness import batch_rows, stream_rows

PROGRAMS = {
    # Tremor's group_by_each workload: the event once per element of `tags`.
    "each": "select event from in group by each(event.tags) into out;",
    # Some groups filtered out: the remaining outputs are still one run.
    "having": "select event from in group by each(event.tags) into out having event.n != 3;",
    # The output differs per group: nothing merges.
    "per_group": "select group[0] from in group by each(event.tags) into out;",
    # Two dimensions, one of them `each`; a script after the select in the same stage.
    "set_each": """
define script tag
script
  let event.tagged = true;
  event
end;
create script tag;
select event from in group by set(event.k, each(event.tags)) into tag;
select event from tag into out;
""",
    # A target that fails on some events: `err` rows between `out` runs.
    "errors": 'select {"t": event.t} from in group by each(event.tags) into out;',
}


def _lines() -> list[str]:
    tags = (["a", "b", "a"], [], ["x"], ["p", "q", "r", "s"], "not-an-array", None, [1, 1, 1])
    lines = []
    for i in range(60):
        event: dict[str, Any] = {"n": i % 5, "k": i % 3}
        if tags[i % len(tags)] is not None:
            event["tags"] = tags[i % len(tags)]
        if i % 4:
            event["t"] = i
        lines.append(json.dumps(event))
    return lines + ["{not json", '"a string"']


def _jobs(text: str, name: str) -> tuple[Any, Any]:
    """The job as built (its stage repeats) and the same job without the mark (one row per
    output: its stages and schema replaced in the loaded module, which ``run_pipeline`` reads)."""
    job = compile_source(Source(f"{name}.trickle", text), "query").job
    repeats, plain = load_job(job, f"{name}_repeats"), load_job(job, f"{name}_plain")
    assert [stage.repeats for stage in repeats.STAGES] == [True], "the select's stage repeats"
    plain.STAGES = tuple(dataclasses.replace(stage, repeats=False) for stage in plain.STAGES)
    plain.REPEAT_ROW_SCHEMA = ROW_SCHEMA  # (the job imports only the schema it uses)
    return repeats, plain


def test_the_group_by_each_workload_repeats() -> None:
    text = (WORKLOADS / "group_by_each" / "main.trickle").read_text(encoding="utf-8")
    job = compile_source(Source("main.trickle", text), "query").job
    assert "repeats=True" in job and "leave Python as one row with a repeat count" in job
    code = "".join(job.split())  # black may wrap the call
    assert "stage_mapper(GRAPH,STAGES,0,flush_at_end),REPEAT_ROW_SCHEMA)" in code


@pytest.mark.parametrize(
    "text",
    [
        # one group per event
        "select event from in group by set(event.k) into out;",
        # windowed: the select keeps state in a keyed stage
        "define window w from tumbling with size = 2 end;\n"
        "select aggr::stats::count() from in[w] group by each(event.tags) into out;",
        # the select's rows feed a keyed stage
        "define window w from tumbling with size = 2 end;\n"
        "create stream s;\n"
        "select event from in group by each(event.tags) into s;\n"
        "select aggr::stats::count() from s[w] group by set(event.k) into out;",
    ],
)
def test_other_selects_keep_one_row_per_output(text: str) -> None:
    job = compile_source(Source("p.trickle", text), "query").job
    assert "repeats=True" not in job and "REPEAT_ROW_SCHEMA" not in job


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_repeated_rows_expand_to_the_rows_of_the_plain_job(spark: Any, name: str) -> None:
    repeats, plain = _jobs(PROGRAMS[name], name)
    lines = _lines()
    got, expected = batch_rows(spark, repeats, lines), batch_rows(spark, plain, lines)
    assert got == expected
    assert len(got) > len(lines)  # events with several groups were in the input


@pytest.mark.spark
def test_a_streaming_run_expands_them_too(stream_spark: Any, tmp_path: Path) -> None:
    repeats, plain = _jobs(PROGRAMS["each"], "each_stream")
    lines = _lines()
    streamed = [row for _, row in stream_rows(stream_spark, repeats, lines, tmp_path / "r")]
    assert streamed == batch_rows(stream_spark, plain, lines)
