"""Flush-transparent ``generic::batch`` (compiler/passes/batch_flush.py): when the run flushes
and only sinks that do not read ``$`` see the batches, the batch's stage runs in parallel with
the batch as a passthrough and writes what the single-partition plan writes, row for row."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from compiler.codegen.build import build_job
from compiler.codegen.graph import NodeCode, output_node
from compiler.codegen.stages import job_graph
from compiler.ir import graph as G
from compiler.ir.scope import Global
from compiler.pipeline import check_program, compile_source
from compiler.plan.job_phases import flush_transparent
from compiler.plan.model import Single, Stage
from compiler.source import Source
from compiler.testing.loader import load_job
from tests.support.paths import ROOT

BATCH = ROOT / "benchmarks" / "workloads" / "suite" / "batch.trickle"
CALL = "passthroughs(GRAPH, "

AFTER_SCRIPT = """
define operator b from generic::batch with count = 700, timeout = 1000000000 end;
define script tag
script
  let event.tagged = true;
  event
end;
create operator b;
create script tag;
select event from in into tag;
select event from tag into b;
select event from b into out;
"""

FLOW = """
define flow main
flow
  use tremor::connectors;
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "in.json", "mode": "read"}
  end;
  define connector output from @SINK@;
  define pipeline p
  pipeline
    define operator b from generic::batch with count = 2, timeout = 5 end;
    create operator b;
    select event from in into b;
    select event from b into out;
  end;
  create connector input; create connector output; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p/out to /connector/output;
end;
deploy flow main;
"""
FILE_SINK = (
    'file with codec = "json", postprocessors = ["separate"], '
    'config = {"path": "out.json", "mode": "truncate"} end'
)
KV_SINK = 'kv with config = {"path": "kv"} end'  # reads `$kv` of every event


def _checked(transparent: bool = True) -> Any:
    """batch.trickle as ``tremorc build`` checks it, or with its batch kept single."""
    checked = check_program(Source(BATCH.name, BATCH.read_text(encoding="utf-8")), "query")
    if transparent:
        return checked
    nodes = tuple(
        dataclasses.replace(n, flush_transparent=False) if isinstance(n, G.OperatorNode) else n
        for n in checked.ir.nodes
    )
    return dataclasses.replace(checked, ir=dataclasses.replace(checked.ir, nodes=nodes))


def _job(transparent: bool = True) -> Any:
    return load_job(build_job(_checked(transparent), Source(BATCH.name, ""), "batch.py"), "batch")


def test_the_workload_batch_runs_unless_it_flushes_in_one_stage() -> None:
    job = build_job(_checked(), Source(BATCH.name, ""), "batch.py")
    assert CALL + '("my_batch",)), STAGES, 0, True)' in job
    assert "repartition(1)" not in job.split("if flush_at_end:")[1].split("else:")[0]
    assert "state_stage(events, GRAPH, STAGES, 0, streaming)" in job  # streaming: as before
    assert "flush_at_end (the default) batches" in job  # the plan comment says so
    module = load_job(job, "batch")
    assert [s.partitioning for s in module.STAGES] == ["single"]
    kept = build_job(_checked(False), Source(BATCH.name, ""), "batch.py")
    assert CALL not in kept and "events.repartition(1)" in kept


def test_a_second_stateful_member_keeps_the_stage_single() -> None:
    batch = NodeCode(name="b", factory="f", stateful=True, scope=Global(reason="batch"))
    batch = dataclasses.replace(batch, flush_transparent=True)
    counter = NodeCode(name="c", factory="f", stateful=True, scope=Global(reason="counter"))
    plain = NodeCode(name="c", factory="f", stateful=False)
    links = ((("in", "out"), ("c", "in")), (("c", "out"), ("b", "in")))
    links += ((("b", "out"), (output_node("out"), "in")),)
    stage = Stage(members=("in", "c", "b"), partitioning=Single(), ports=("out",))

    def transparent(nodes: tuple[NodeCode, ...]) -> tuple[str, ...]:
        graph = job_graph(streams=("in",), output_ports=("out",), nodes=nodes, links=links)
        return flush_transparent(dataclasses.replace(graph, stages=(stage,))).stages[0].transparent

    assert transparent((plain, batch)) == ("b",)
    assert transparent((counter, batch)) == ()


def test_a_batch_after_a_script_runs_in_parallel_in_its_own_stage() -> None:
    job = compile_source(Source("after.trickle", AFTER_SCRIPT), "query").job
    module = load_job(job, "after")
    assert [s.partitioning for s in module.STAGES] == ["source", "single"]
    assert 'batch_b = source_in.filter(F.col("stage") == 1).mapInArrow(' in job
    assert CALL + '("b",)), STAGES, 1, True)' in job


def test_a_flow_writing_the_batches_to_a_file_runs_them_unless_flushing() -> None:
    job = compile_source(Source("f.troy", FLOW.replace("@SINK@", FILE_SINK)), "deploy").job
    assert CALL in job


def test_a_sink_reading_metadata_sees_the_batches() -> None:
    job = compile_source(Source("f.troy", FLOW.replace("@SINK@", KV_SINK)), "deploy").job
    assert "meta_outputs=" in job
    assert CALL not in job and "events.repartition(1)" in job


def test_a_counted_flow_keeps_the_batch() -> None:
    """A flow with a ``metrics`` source counts every node's events (its own pipeline does not
    report: the batch is marked, the job keeps it)."""
    counted = FLOW.replace("@SINK@", FILE_SINK).replace(
        "  create connector input;",
        "  define pipeline r pipeline select event from in into out; end;\n"
        "  create connector metrics from connectors::metrics; create pipeline r;\n"
        "  create connector mout from output;\n"
        "  connect /connector/metrics to /pipeline/r; connect /pipeline/r/out to /connector/mout;\n"
        "  create connector input;",
    )
    job = compile_source(Source("f.troy", counted), "deploy").job
    assert "counted=True" in job
    assert CALL not in job and "events.repartition(1)" in job


def test_an_exit_sink_cuts_the_run_where_the_batch_flushed() -> None:
    """The run ends at the first event reaching ``exit``, by ``(seq, sub)``: batched events sit
    at the event that closed their batch, so a passthrough would move the cut."""
    flow = FLOW.replace("@SINK@", FILE_SINK).replace(
        "  create connector input;",
        "  define connector stop from exit; create connector stop;\n"
        "  connect /pipeline/p/out to /connector/stop;\n"
        "  create connector input;",
    )
    job = compile_source(Source("f.troy", flow), "deploy").job
    assert "exit" in job
    assert CALL not in job and "events.repartition(1)" in job


def _rows(frame: Any) -> list[Any]:
    return [json.loads(r.value) for r in frame.orderBy("seq", "sub").select("value").collect()]


def _partitions(frame: Any) -> int:
    from pyspark.sql import functions as F

    return frame.select(F.spark_partition_id()).distinct().count()


@pytest.mark.spark
def test_flushing_in_parallel_writes_what_the_single_plan_writes(spark: Any) -> None:
    lines = [json.dumps({"i": i, "v": "x" * (i % 7)}) for i in range(5000)]
    rows = [(seq, line, 0) for seq, line in enumerate(lines)]  # one instant: count closes them
    frame = spark.createDataFrame(rows, "seq long, value string, ingest_ns long").repartition(4)
    parallel, single = _job(), _job(False)
    flushed = parallel.run_pipeline(spark, {"in": frame})["out"]
    expected = single.run_pipeline(spark, {"in": frame})["out"]
    assert _rows(flushed) == _rows(expected) == [json.loads(line) for line in lines]
    assert _partitions(flushed) > 1 and _partitions(expected) == 1
    # Without the flush the single plan runs: the unfinished batch (the last 1,000) is lost.
    kept = parallel.run_pipeline(spark, {"in": frame}, flush_at_end=False)["out"]
    assert _rows(kept) == [json.loads(line) for line in lines[:4000]]
    assert _partitions(kept) == 1


@pytest.mark.spark
def test_a_batch_fed_by_a_stage_flushes_in_parallel_as_it_would_in_one_partition(
    spark: Any,
) -> None:
    lines = [json.dumps({"i": i}) for i in range(3000)]
    frame = spark.createDataFrame(
        [(seq, line, seq) for seq, line in enumerate(lines)],
        "seq long, value string, ingest_ns long",
    ).repartition(3)
    module = load_job(compile_source(Source("after.trickle", AFTER_SCRIPT), "query").job, "after")
    flushed = module.run_pipeline(spark, {"in": frame})["out"]
    tagged = [{**json.loads(line), "tagged": True} for line in lines]
    assert _rows(flushed) == tagged and _partitions(flushed) > 1
    kept = module.run_pipeline(spark, {"in": frame}, flush_at_end=False)["out"]
    assert _rows(kept) == tagged[:2800] and _partitions(kept) == 1
