"""A keyed stage fed straight from the input, its shuffle key read by Spark's JSON reader
(runtime_support/spark/entry_keys.py): the reader's partition of an event is the one its decoded
group gives, a line the reader cannot read runs once in its group's partition, and the job's outputs
are one thread's, event for event."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.runner import ORIGINS
from runtime_support.spark.entry_keys import entry_rows, partition_values, pid_of, spark_hash_int
from runtime_support.tremor.jsonio import decode_json
from tests.support.partition_differential import differential

PAD = "1." + "0" * 1500  # a number Spark's reader refuses (over 1,000 digits); Tremor reads it
PROBES = [
    '{"k":"a","i":1}',
    '{"k":"\\u0061","i":2}',  # "a" escaped
    '{"k":"z","k":"a","i":3}',  # duplicate name: the last
    '{"k":{"x":1},"k":"a","i":4}',
    '{"k":"a","k":{"x":1},"i":5}',
    '{"k":"b","i":6}',
    '{"k":"","i":7}',
    '{"k":"1x","i":8}',  # a string starting like a number
    '{"k":"true","i":9}',
    '{"k":"[","i":10}',
    '{"k":"é\\ud83d\\ude00","i":11}',
    '{"k":1,"i":12}',
    '{"k":1.0,"i":13}',
    '{"k":1.00,"i":14}',
    '{"k":1e0,"i":15}',
    '{"k":-2,"i":16}',
    '{"k":true,"i":17}',
    '{"k":null,"i":18}',
    '{"k":[1,{"a":2}],"i":19}',
    '{"k":{"b":1,"a":2},"i":20}',
    '{"k":{"a":2,"b":1},"i":21}',
    f'{{"k":"a","i":22,"pad":{PAD}}}',
    f'{{"pad":{PAD},"k":"b","i":23}}',
    f'{{"k":1.0,"i":24,"pad":{PAD}}}',
    '{"i":25}',  # no group: `event.k` fails
    '{"k":"a"} trailing',  # the reader reads it, Tremor does not
    "not json",
    "[1, 2]",
    '{"k":"a","i":7}',  # `where` drops it
    '  {"k" : "c" , "i" : 26}  ',
    '{"K":"a","i":27}',
]
PROGRAM = """define window w from tumbling with size = 2 end;
select {"k": group[0], "n": aggr::stats::count(), "i": aggr::win::collect_flattened(event.i)}
from in[w] where event.i != 7 group by event.k into out;
"""


def _events(spark: Any, lines: list[str]) -> Any:
    rows = [(seq, line) for seq, line in enumerate(lines)]
    return spark.createDataFrame(rows, "seq long, value string")


@pytest.mark.spark
def test_spark_hash_int_is_spark_hash(spark: Any) -> None:
    from pyspark.sql import functions as F

    values = [-(2**31), -7, -1, 0, 1, 2, 3, 41, 12345, 2**31 - 1]
    frame = spark.createDataFrame([(v,) for v in values], "v int")
    found = {r.v: r.h for r in frame.select("v", F.hash("v").alias("h")).collect()}
    assert found == {v: spark_hash_int(v) for v in values}


@pytest.mark.spark
@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_each_pid_has_its_own_partition(spark: Any, parts: int) -> None:
    from pyspark.sql import functions as F

    values = partition_values(parts)
    frame = spark.createDataFrame(list(enumerate(values)), "pid int, part int")
    placed = frame.repartition(parts, "part").select("pid", F.spark_partition_id().alias("at"))
    assert sorted((r.pid, r.at) for r in placed.collect()) == [(p, p) for p in range(parts)]


@pytest.mark.spark
@pytest.mark.parametrize("parts", [2, 5])
def test_reader_partition_is_the_decoded_groups(spark: Any, parts: int) -> None:
    """Where Spark's reader reads a line that Tremor reads too, with a group, the pid is the
    group's; a line it cannot read comes once per pid."""
    rows = entry_rows(_events(spark, PROBES), "k", parts).collect()
    by_seq: dict[int, list[Any]] = {}
    for row in rows:
        by_seq.setdefault(row.seq, []).append(row)
    unread = set()
    for seq, line in enumerate(PROBES):
        found = by_seq[seq]
        if not found[0].readable:
            unread.add(seq)
            assert sorted(r.pid for r in found) == list(range(parts)), line
            continue
        assert len(found) == 1, line
        try:
            value = decode_json(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "k" in value:
            assert found[0].pid == pid_of(value["k"], parts), line
    # the padded lines, the bad line and the array line: nothing else
    assert unread == {21, 22, 23, 26, 27}


@pytest.mark.spark
def test_job_outputs_are_one_threads(spark: Any) -> None:
    """Padded lines join their groups' windows, in their partitions, in order; the others
    run once (bad lines on ``err``, a failing ``group by`` on ``error``)."""
    job = compile_source(Source("keyed_entry.trickle", PROGRAM), "query").job
    code = "".join(job.split())  # black may wrap the calls
    assert 'entry_rows(events,"k",parts).repartition("part").sortWithinPartitions("seq")' in code
    assert "stage_mapper(GRAPH,STAGES,1,flush_at_end,parts)" in code
    lines = PROBES + [json.dumps({"k": k, "i": 100 + i}) for i, k in enumerate("abcabcab")]
    differential(spark, job, "keyed_entry", {"in": lines}, ORIGINS["query"], lambda seq: seq)


def test_pid_of_shares_one_pid_among_non_strings() -> None:
    assert {pid_of(v, 64) for v in (1, 1.0, True, None, [1], {"a": 1}, "", "1x", "true")} == {
        pid_of("", 64)
    }
    assert pid_of("a", 1) == 0


NO_WHERE = """define window w from tumbling with size = 2 end;
select {"k": group[0], "n": aggr::stats::count()} from in[w] group by set(event.k) into out;
"""


def test_a_field_group_is_keyed_as_its_group_code_keys_it() -> None:
    """``select_keys`` reads the field of a select grouped by one top-level field
    (``SelectSpec.group_field``) instead of running its group code: the same groups and keys,
    and the same failure (type and text) for an event without the field or no record."""
    import dataclasses

    from compiler.testing.loader import load_job
    from runtime_support.tremor.graph import Event, Failure
    from runtime_support.tremor.select import SelectSpec, select_keys

    job = load_job(compile_source(Source("k.trickle", NO_WHERE), "query").job, "k")
    (spec,) = [v for v in vars(job).values() if isinstance(v, SelectSpec)]
    assert spec.group_field == "k" and spec.where is None
    general = dataclasses.replace(spec, group_field=None)
    values = []
    for line in PROBES:
        try:
            values.append(decode_json(line))
        except ValueError:
            continue
    values += [[1, 2], "k", 5, None, {"k": b"\x00binary"}, {"k": {"b": [1.5, {"d": 1, "c": 2}]}}]
    for value in values:
        fast, slow = (
            select_keys(spec, Event(value, {}, 0)),
            select_keys(general, Event(value, {}, 0)),
        )
        if isinstance(slow, Failure):
            assert isinstance(fast, Failure) and fast.value == slow.value, value
        else:
            assert fast == slow, value
    assert sum(not isinstance(select_keys(spec, Event(v, {}, 0)), Failure) for v in values) > 20


def test_string_group_keys_stay_exact_past_the_memo_s_bound() -> None:
    """The keys of string groups come from a bounded memo: every key, before and after it is
    cleared, is the group's canonical JSON."""
    from runtime_support.tremor.jsonio import canonical_json
    from runtime_support.tremor.select import STRING_KEYS_KEPT, _string_key

    strings = [f'g"{i}\\é\u0001' for i in range(STRING_KEYS_KEPT + 10)] + ['g"0\\é\u0001', ""]
    for value in strings + strings[:5]:
        assert _string_key(value) == canonical_json([value])
