"""Dead metadata (compiler/passes/meta_liveness.py) and always-out buckets
(compiler/passes/bucket_routing.py): a script whose ``$`` nothing reads skips its ``let $key``
stores but keeps their values' errors, and a bucket whose every event carries a string
``$class`` and an int ``$rate`` is a passthrough. The jobs give the same rows, ports and error
messages as the same jobs built without these marks, on real events and broken ones."""

from __future__ import annotations

import dataclasses
import json
import lzma
from typing import Any

import pyarrow as pa

from compiler.codegen.build import build_job
from compiler.ir import graph as G
from compiler.passes.meta_liveness import mark_meta_unread
from compiler.pipeline import check_program
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.spark.stages import stage_mapper
from tests.support.paths import ROOT, WORKLOADS

SUITE = ROOT / "benchmarks" / "workloads" / "suite"
DATA = WORKLOADS / "data" / "data.json.xz"

CLASSIFY = """
define script classify
script
  match event.app of
    case "a" => let $class = "a"; let $rate = 1; let $dimensions = event.host; emit event
    case _ => null
  end;
  let $class = "rest";
  let $rate = 2;
  let $dimensions = event.zone;
  event
end;
define operator limit from grouper::bucket;
create script classify;
create operator limit;
select event from in into classify;
select event from classify into limit;
select event from classify/err into err;
select event from limit into out;
select event from limit/overflow into out;
"""


def _checked(text: str, name: str = "p.trickle") -> Any:
    return check_program(Source(name, text), "query")


def _nodes(checked: Any) -> dict[str, G.GraphNode]:
    return {node.name: node for node in checked.ir.nodes}


def _unmarked(checked: Any) -> Any:
    """``checked`` with neither mark: the stores run and the buckets route by ``$class``."""
    nodes = tuple(
        (
            dataclasses.replace(n, always_out=False)
            if isinstance(n, G.OperatorNode)
            else dataclasses.replace(n, meta_unread=False) if isinstance(n, G.ScriptNode) else n
        )
        for n in checked.ir.nodes
    )
    return dataclasses.replace(checked, ir=dataclasses.replace(checked.ir, nodes=nodes))


def _rows(checked: Any, lines: list[str], name: str) -> list[tuple]:
    """Every output row of the job's one stage run in process on ``lines``."""
    module = load_job(build_job(checked, Source(name, ""), f"{name}.py"), name)
    count = len(lines)
    batch = pa.RecordBatch.from_pydict(
        {
            "stream": ["in"] * count,
            "seq": list(range(count)),
            "value": lines,
            "ingest_ns": [0] * count,  # one instant: the real bucket's rates overflow
            "origin": [None] * count,
        }
    )
    mapper = stage_mapper(module.GRAPH, module.STAGES, 0, True)
    rows = []
    for out in mapper(iter([batch])):
        rows += list(zip(*(column.to_pylist() for column in out.columns), strict=True))
    return rows


def test_a_bucket_fed_only_classed_events_is_a_passthrough_and_the_stores_are_dead() -> None:
    checked = _checked(CLASSIFY)
    nodes = _nodes(checked)
    assert nodes["limit"].always_out and nodes["classify"].meta_unread
    job = build_job(checked, Source("p.trickle", ""), "p.py")
    assert "BucketRoute" not in job and "assign_key" not in job
    assert 'NodeSpec(name="limit", factory=Passthrough' in job


def test_a_path_without_class_keeps_the_route_and_the_stores() -> None:
    """`case "b"` emits before `$class` is set: that event goes to the bucket's `err`."""
    text = CLASSIFY.replace("case _ => null", 'case "b" => emit event\n    case _ => null')
    nodes = _nodes(_checked(text))
    assert nodes["limit"].routes_only and not nodes["limit"].always_out
    assert not nodes["classify"].meta_unread


def test_a_non_int_rate_keeps_the_route() -> None:
    nodes = _nodes(_checked(CLASSIFY.replace("let $rate = 2;", 'let $rate = "2";')))
    assert not nodes["limit"].always_out


def test_a_script_that_reads_meta_keeps_its_stores() -> None:
    text = CLASSIFY.replace("  event\nend;", "  let event.c = $class;\n  event\nend;")
    nodes = _nodes(_checked(text))
    assert nodes["limit"].always_out and not nodes["classify"].meta_unread


def test_a_reader_downstream_keeps_the_stores() -> None:
    text = CLASSIFY.replace(
        "select event from limit into out;",
        "select event from limit into show;\nselect event from show into out;",
    )
    text = text.replace(
        "define operator",
        "define script show\nscript\n  let event.c = $class;\n  event\nend;\n"
        "create script show;\ndefine operator",
    )
    nodes = _nodes(_checked(text))
    assert not nodes["classify"].meta_unread and not nodes["show"].meta_unread


def test_outputs_that_read_meta_keep_every_store() -> None:
    checked = _checked(CLASSIFY)
    nodes = tuple(
        dataclasses.replace(n, meta_unread=False) if isinstance(n, G.ScriptNode) else n
        for n in checked.ir.nodes
    )
    graph = dataclasses.replace(checked.ir, nodes=nodes)
    assert not any(isinstance(n, G.ScriptNode) and n.meta_unread for n in graph.nodes)
    assert not any(
        isinstance(n, G.ScriptNode) and n.meta_unread
        for n in mark_meta_unread(graph, outputs_read_meta=True).nodes
    )
    marked = mark_meta_unread(graph, outputs_read_meta=False)
    assert [n.name for n in marked.nodes if isinstance(n, G.ScriptNode) and n.meta_unread] == [
        "classify"
    ]


def _broken(line: str) -> list[str]:
    """``line`` with each field the workload's script reads removed or mistyped."""
    event = json.loads(line)
    out = []
    for key in ("application", "index_type", "tags", "logger_name", "syslog_hostname"):
        out.append(json.dumps({k: v for k, v in event.items() if k != key}))
    out += [json.dumps({**event, "tags": "tag1"}), "[1]", "7", "not json"]
    return out


def _workload_lines() -> list[str]:
    with lzma.open(DATA, "rt", encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    sample = lines  # the data set's 100 events
    broken = []
    for line in sample[:40]:
        broken += _broken(line)
    # the classes whose cases read logger_name / syslog_hostname, without those fields
    for index_type in ("applog_app6", "syslog_app1", "syslog_app3", "syslog_app6"):
        event = {**json.loads(sample[0]), "index_type": index_type, "application": "x"}
        event.pop("logger_name", None)
        event.pop("syslog_hostname", None)
        broken.append(json.dumps(event))
    return sample + broken


def test_real_workflow_gives_the_rows_of_the_job_with_the_stores_and_the_route() -> None:
    """The workload with its script's errors linked to `err` (the workload drops them)."""
    path = SUITE / "real-workflow-throughput-json.trickle"
    text = path.read_text(encoding="utf-8") + "select event from runtime/err into err;\n"
    checked = _checked(text, path.name)
    nodes = _nodes(checked)
    assert nodes["grouper"].always_out and nodes["runtime"].meta_unread
    lines = _workload_lines()
    marked, plain = _rows(checked, lines, "rw_marked"), _rows(_unmarked(checked), lines, "rw")
    assert marked == plain
    targets = [row[3] for row in marked]
    assert targets.count("out") >= len(_workload_lines()) - 200 and targets.count("err") > 40
    assert len(targets) == len(lines)  # one row each ("not json": the input's `err` record)
    errors = " ".join(str(row[6]) for row in marked if row[3] == "err")
    assert "logger_name" in errors and "syslog_hostname" in errors  # the dead stores' reads


def test_classify_gives_the_rows_of_the_job_with_the_stores_and_the_route() -> None:
    checked = _checked(CLASSIFY)
    lines = [
        json.dumps({"app": "a", "host": "h", "zone": "z"}),
        json.dumps({"app": "a", "zone": "z"}),  # `event.host` fails: err
        json.dumps({"app": "b", "host": "h"}),  # `event.zone` fails: err
        json.dumps({"app": "b", "zone": "z"}),
        json.dumps({"zone": "z"}),  # `event.app` fails: err
    ]
    marked, plain = _rows(checked, lines, "c_marked"), _rows(_unmarked(checked), lines, "c")
    assert marked == plain
    assert [row[3] for row in marked] == ["out", "err", "err", "out", "err"]
