"""A ``grouper::bucket`` whose ``out`` and ``overflow`` meet, fed by a script that always sets a
literal ``$class`` and ``$rate`` (compiler/passes/bucket_routing.py), runs without state: in
the source stage, on every partition, with the outputs the stateful bucket gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.graph import Event
from runtime_support.operators import Bucket, BucketRoute

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
