"""The typed differential's programs (each construct the typed native path lowers) and its
runner: a job's outputs on an input DataFrame as exact text, in emission order."""

from __future__ import annotations

from compiler.testing.loader import load_job

SCHEMA = "m STRING, a BIGINT, o STRUCT<x: BIGINT>, t ARRAY<STRING>, f BOOLEAN"
PROGRAMS = {
    "let": 'let event.merged = "true";\nevent',
    "let_existing": "let event.a = 10;\nevent",
    "patch": 'patch event of insert "n" => 1; upsert "m" => "x"; erase "a" end',
    "patch_update": 'patch event of update "a" => 2 end',
    "patch_insert_existing": 'patch event of insert "a" => 2 end',
    "merge": 'merge event of {"z": true, "m": "y"} end',
    "match": 'match event of case %{m == "info"} => drop '
    'case %{present a} when event.a > 1 => emit {"big": event.a} '
    "case _ => event end",
    "match_value": 'match event.m of case "warn" => {"w": event.a} case "x" => emit event => '
    '"other" case _ => {"other": event.m} end',
    "arith": "let event.b = event.a * 3 + 1;\nevent",
    "mod": '{"r": event.a % 3, "n": (0 - event.a) % 4, "z": 7 % event.a, "m": event.a % -1}',
    "ops": '{"s": event.m + "!", "eq": event.a == 1, "ne": event.m != "x", "lt": event.a < 3, '
    '"bad": event.m == 1, "and": event.f and event.a >= 1, "not": not event.f}',
    "locals": 'let x = event.a;\nlet y = {"k": x};\n{"x": x, "neg": -x, "y": y}',
    "nested": "let event.o.y = 2;\nevent",
    "present": '{"p": present event.o.x, "q": present event.zz, "r": absent event.m}',
    "pattern": 'match event of case %{absent m} => {"no": 1} case %{present o, a == 7} => '
    '{"seven": true} case %{a != 1} => event case _ => drop end',
    "passthrough": "event",
    "contains": 'use std::array;\nmatch array::contains(event.t, "p") of '
    'case true => emit event => "other" case _ => {"no": event.m} end',
    "ingest": "use tremor::system;\nlet event.t = system::ingest_ns();\n"
    "match event.t > system::ingest_ns() + 3600 of case true => drop case _ => event end",
    "bounds": '{"p": event.a + 9223372036854775000, "q": event.a - 10, "r": -5 + event.a, '
    '"s": event.a - -3}',
    "glob": "match event of "
    'case %{m ~= glob|in*|} => emit event => "other" '
    'case %{m ~= glob|*a|} => {"suffix": event.m} '
    'case %{m ~= glob|w*n|} => {"both": event.m} '
    'case %{m ~= glob|*"*|} => {"quote": event.m} '
    'case %{m ~= glob|x|} => {"exact": event.m} '
    "case _ => event end",
    "record_pattern": 'match event of case %{o ~= %{x == 3}} => {"x3": event.a} '
    'case %{o ~= %{absent x}} => {"no_x": true} case _ => event end',
    "same_leaf": 'match event of case %{m == "info"} => let x = 1 case %{a == 5} => let x = 2 '
    "case _ => let x = 3 end;\nlet event.seen = event.m;\nevent",
}


def frame_outputs(spark, job: str, df) -> list[tuple]:
    """``(port, value text, seq, sub)`` of every output of ``job`` run on the DataFrame ``df``,
    in emission order: the exact text."""
    from pyspark.sql import functions as F

    module = load_job(job, "typed_case")
    outputs = module.run_pipeline(spark, {"in": df}, flush_at_end=False)
    frames = [frame.withColumn("port", F.lit(port)) for port, frame in outputs.items()]
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    got = [(r.port, r.value, r.seq, list(r.sub)) for r in union.collect()]
    spark.catalog.clearCache()
    return sorted(got, key=lambda r: (r[2], r[3], r[0]))
