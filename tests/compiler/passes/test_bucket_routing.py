"""A ``grouper::bucket`` whose ``out`` and ``overflow`` meet, fed by a script that always sets a
literal ``$class`` and ``$rate`` (compiler/passes/bucket_routing.py), runs without state: in
the source stage, on every partition, with the outputs the stateful bucket gives. In a
``.trickle`` job the input carries no metadata, which can be what proves it (the job then
refuses a ``meta`` column)."""

from __future__ import annotations

import dataclasses
import json
import lzma
from typing import Any

import pytest

from compiler.codegen.build import build_job
from compiler.ir import graph as G
from compiler.passes.bucket_routing import route_buckets
from compiler.pipeline import check_program, compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.plan import InputMetaError
from runtime_support.tremor.builtin_operators import Bucket, BucketRoute
from runtime_support.tremor.graph import Event
from tests.support.paths import ROOT, WORKLOADS

MATCH = ROOT / "benchmarks" / "workloads" / "suite" / "match.trickle"
MATCH_DATA = WORKLOADS / "data" / "match.json.xz"

PROGRAM = """
define script tag
script
  match event.app of
    case "none" => let $class = 5; let $rate = 1; emit event
    case "a" => let $class = "a"; let $rate = 1; emit event
    case _ => null
  end;
  let $class = "rest";
  let $rate = 2;
  event
end;
define operator limit from grouper::bucket;
create script tag;
create operator limit;
select event from in into tag;
select event from tag into limit;
select event from tag/err into err;
select event from limit into out;
select event from limit/overflow into out;
"""


def _metas() -> list[Any]:
    """Metadata shapes the proof admits: a string class with an int rate, or no string class."""
    shapes: list[Any] = [{}, {"class": 3}, {"class": None, "rate": "x"}, [1], None]
    for n in range(60):
        shapes.append({"class": f"c{n % 3}", "rate": n % 4, "dimensions": n % 5})
    return shapes


def test_route_agrees_with_the_stateful_bucket_when_out_and_overflow_meet() -> None:
    bucket, route = Bucket({}), BucketRoute({})
    for index, meta in enumerate(_metas()):
        event = Event({"n": index}, meta, 1_000_000 * (index // 7))
        [(port, out)] = bucket.process("in", event)
        [(routed, same)] = route.process("in", event)
        assert ("out" if port == "overflow" else port) == routed
        assert same is event and out is event


def test_the_program_builds_to_one_stateless_stage() -> None:
    job = compile_source(Source("bucket.trickle", PROGRAM), "query").job
    module = load_job(job, "bucket_routing")
    assert [(set(s.members), s.partitioning) for s in module.STAGES] == [
        ({"in", "err", "tag", "limit", "out"}, "source")
    ]
    assert "BucketRoute" in job and "bucket_key" not in job


@pytest.mark.spark
def test_every_event_leaves_once_in_input_order_from_every_partition(spark: Any) -> None:
    from pyspark.sql import functions as F

    apps = ["a", "b", "none", "a", "c"]
    lines = [json.dumps({"i": i, "app": apps[i % 5]}) for i in range(200)]
    lines[7] = json.dumps({"i": 7})  # `event.app` fails: the script's err
    rows = [(seq, line, 0) for seq, line in enumerate(lines)]  # one instant: rates overflow
    frame = spark.createDataFrame(rows, "seq long, value string, ingest_ns long").repartition(4)
    module = load_job(
        compile_source(Source("bucket.trickle", PROGRAM), "query").job, "bucket_routing"
    )
    outputs = module.run_pipeline(spark, {"in": frame})
    out = outputs["out"].orderBy("seq").select("value").collect()
    kept = [line for line in lines if json.loads(line).get("app") not in ("none", None)]
    assert [json.loads(r.value) for r in out] == [json.loads(line) for line in kept]
    errors = outputs["err"].select("value").collect()
    assert len(errors) == 1 and '"i":7' in errors[0].value
    assert outputs["out"].select(F.spark_partition_id()).distinct().count() > 1


def _match_checked(input_meta_empty: bool = True) -> Any:
    """match.trickle checked as ``tremorc build`` does, or with its buckets proven again
    without assuming the input carries no metadata (as a .troy flow's pipeline would be)."""
    checked = check_program(Source(MATCH.name, MATCH.read_text(encoding="utf-8")), "query")
    if input_meta_empty:
        return checked
    cleared = tuple(
        (
            dataclasses.replace(n, routes_only=False, always_out=False, assumes_no_input_meta=False)
            if isinstance(n, G.OperatorNode)
            else dataclasses.replace(n, meta_unread=False) if isinstance(n, G.ScriptNode) else n
        )
        for n in checked.ir.nodes
    )
    graph = route_buckets(dataclasses.replace(checked.ir, nodes=cleared))
    return dataclasses.replace(checked, ir=graph)


def _buckets(graph: G.PipelineGraph) -> dict[str, tuple[bool, bool]]:
    return {
        n.name: (n.routes_only, n.assumes_no_input_meta)
        for n in graph.nodes
        if isinstance(n, G.OperatorNode)
    }


def _match_job(input_meta_empty: bool = True) -> Any:
    checked = _match_checked(input_meta_empty)
    return load_job(build_job(checked, Source(MATCH.name, ""), "match.py"), "match")


def test_match_workload_routes_both_buckets_in_one_stage() -> None:
    """`emit => "out"` before `$class` is set is proven by the empty input metadata (bucket),
    `emit event => "#{ output_port }"` by the local's literals ("out" or "type2")."""
    checked = _match_checked()
    assert _buckets(checked.ir) == {"bucket": (True, True), "bucket2": (True, False)}
    job = build_job(checked, Source(MATCH.name, ""), "match.py")
    module = load_job(job, "match")
    assert [(set(s.members), s.partitioning) for s in module.STAGES] == [
        ({"in", "err", "runtime", "bucket", "bucket2", "out"}, "source")
    ]
    assert "BucketRoute" in job and "bucket_key" not in job
    assert 'refuse_input_meta(inputs, ("in",), ("bucket",))' in job


def test_match_workload_without_the_assumption_keeps_the_first_bucket() -> None:
    assert _buckets(_match_checked(False).ir) == {
        "bucket": (False, False),
        "bucket2": (True, False),
    }
    assert "refuse_input_meta" not in build_job(
        _match_checked(False), Source(MATCH.name, ""), "match.py"
    )


def _match_lines() -> list[str]:
    """Real events of the match workload: every 145th line (200 lines, 200 measurements: the
    class-setting cases of both ports and the default), one line 40 times at the same instant
    (rate 24: overflow), a record without `measurement` and a non-record (script errors)."""
    with lzma.open(MATCH_DATA, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    sample = lines[::145]
    return [*sample, *[lines[0]] * 40, json.dumps({"a": 1}), "[1, 2]"]


def _port_rows(outputs: Any) -> dict[str, list[tuple[int, str]]]:
    """Per port, its events in emission order (``sub`` only orders one input's outputs; its
    shape depends on the stages)."""
    return {
        port: [(r.seq, r.value) for r in frame.orderBy("seq", "sub").collect()]
        for port, frame in outputs.items()
    }


@pytest.mark.spark
def test_match_routing_only_agrees_with_the_stateful_bucket_on_real_events(spark: Any) -> None:
    lines = _match_lines()
    rows = [(seq, line, 0) for seq, line in enumerate(lines)]  # one instant: rates overflow
    frame = spark.createDataFrame(rows, "seq long, value string, ingest_ns long").repartition(3)
    routed = _port_rows(_match_job().run_pipeline(spark, {"in": frame}))
    stateful = _port_rows(_match_job(False).run_pipeline(spark, {"in": frame}))
    assert routed == stateful
    # the script's errors (no `measurement`, a non-record) are linked nowhere: all else is out
    assert [seq for seq, _ in routed["out"]] == list(range(len(lines) - 2))
    assert routed["err"] == []


@pytest.mark.spark
def test_match_job_refuses_input_with_metadata(spark: Any) -> None:
    frame = spark.createDataFrame(
        [(0, "{}", '{"class": "x"}')], "seq long, value string, meta string"
    )
    module = _match_job()
    with pytest.raises(InputMetaError) as info:
        module.run_pipeline(spark, {"in": frame})
    message = str(info.value)
    assert "input stream `in` has a `meta` column" in message
    assert "grouper::bucket `bucket` was compiled assuming its input events carry no metadata" in (
        message
    )
    assert info.traceback[-1].name == "refuse_input_meta"  # on the driver, before Spark runs
    module.run_pipeline(spark, {"in": frame.drop("meta")})  # without the column: accepted
