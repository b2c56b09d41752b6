"""The ``metrics`` connector: Tremor's metrics events of a flow's per-node, per-port counts.

The event shapes are transcribed from tremor-runtime (``tremor-connectors/src/impls/metrics.rs``
docs, ``tremor-pipeline/src/executable_graph.rs`` ``NodeMetrics``/``eg_metrics``,
``tremor-connectors/src/utils/metrics.rs``); the counts are computed by hand from the inputs.
``test_system_metrics_integration`` ports ``tremor-cli/tests/integration/system-metrics``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from runtime_support.io.connectors.metrics import MetricsSpec, metrics_events, totals
from runtime_support.tremor.graph import Event, Graph
from tests.support.paths import ROOT

FLOW = """
define flow main
flow
  use tremor::connectors;
  define connector input from file
  with
    metrics_interval_s = 1,
    codec = "json",
    preprocessors = ["separate"],
    config = {"path": @IN@, "mode": "read"}
  end;
  define connector output from file
  with
    metrics_interval_s = 1,
    codec = "json",
    postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "write"}
  end;
  define connector errout from file
  with
    codec = "json",
    postprocessors = ["separate"],
    config = {"path": @ERR@, "mode": "write"}
  end;
  define connector mout from file
  with
    codec = "json",
    postprocessors = ["separate"],
    config = {"path": @METRICS@, "mode": "write"}
  end;
  define pipeline main
  pipeline
    #!config metrics_interval_s = 1
    define script process
    script
      match event of
        case %{ bad == true } => event.nope.nope
        case _ => event
      end
    end;
    create script process;
    select event from in where event.keep into process;
    select event from process/out into out;
    select event from process/err into err;
  end;
  define pipeline report
  pipeline
    use std::type;
    select {"m": event.measurement, "tags": event.tags, "count": event.fields.count,
            "stamped": type::is_integer(event.timestamp)}
    from in into out;
  end;
  create connector input;
  create connector output;
  create connector errs from errout;
  create connector mout;
  create connector metrics from connectors::metrics;
  create pipeline main;
  create pipeline report;
  connect /connector/input to /pipeline/main;
  connect /pipeline/main/out to /connector/output;
  connect /pipeline/main/err to /connector/errs;
  connect /connector/metrics to /pipeline/report;
  connect /pipeline/report/out to /connector/mout;
end;
deploy flow main;
"""

# keep: 1, 3, 4 pass the filter (2 is dropped, 5 has no `keep`: the select's error), 3 fails
# in the script (err); one line is no JSON (the source's err).
LINES = [
    '{"keep": true, "n": 1}',
    '{"keep": false, "n": 2}',
    '{"keep": true, "bad": true, "n": 3}',
    '{"keep": true, "n": 4}',
    "not json",
    '{"n": 5}',
]


def filled(text: str, **values: Any) -> str:
    for name, value in values.items():
        text = text.replace(f"@{name}@", json.dumps(str(value)))
    return text


def build(text: str, **values: Any) -> Any:
    return load_job(compile_source(Source("t.troy", filled(text, **values)), "deploy").job, "t")


def lines_of(folder: Path) -> list[dict[str, Any]]:
    texts = [p.read_text() for p in sorted(folder.glob("part-*"))]
    return [json.loads(line) for text in texts for line in text.splitlines() if line]


def node(name: str, way: str, port: str, count: int) -> dict[str, Any]:
    tags = {"pipeline": "main::main", "node": name, "direction": way, "port": port}
    return {"m": "events", "tags": tags, "count": count, "stamped": True}


def conn(alias: str, port: str, count: int) -> dict[str, Any]:
    tags = {"flow": "main", "connector": alias, "port": port}
    return {"m": "connector_events", "tags": tags, "count": count, "stamped": True}


# By hand: 5 events leave the source (1 line is its err); the select sees 5, forwards 3
# (keep), 1 error (no keep); the script gets 3, 2 out, 1 err; the pipeline's `out` gets 2,
# its `err` 2 (the script's and the select's error); the output connector 2.
EXPECTED = [
    node("in", "output", "out", 5),
    node("process", "input", "in", 3),
    node("process", "output", "err", 1),
    node("process", "output", "out", 2),
    node("#select1", "input", "in", 5),
    node("#select1", "output", "error", 1),
    node("#select1", "output", "out", 3),
    node("out", "input", "in", 2),
    node("err", "input", "in", 2),
    conn("main::input", "out", 5),
    conn("main::input", "err", 1),
    conn("main::output", "in", 2),
]


def test_events_have_tremors_shape() -> None:
    """``value_count``: measurement, tags, fields.count, timestamp; pipelines tag
    pipeline/node/direction/port (inputs first), sources out and err (zero too), sinks in."""
    spec = MetricsSpec(
        pipelines=(("f::p", ("f/p/in",), ("f/p/in", "f/p/s", "f/p/out"), ("f/p/out",)),),
        sources=(("f", "f::src", (("f/src/out", "out"),)),),
        sinks=(("f", "f::dst", "in", (("f/p/out", "out"),)),),
        streams=("f/m/out",),
    )
    counts = Counter(
        {
            ("f/p/in", "input", "in"): 7,  # an input stream counts no input
            ("f/p/in", "output", "out"): 7,
            ("f/p/s", "output", "out"): 6,
            ("f/p/s", "input", "in"): 7,
            ("f/p/out", "input", "in"): 6,
            ("f/p/out", "output", "out"): 6,  # an output stream counts no output
            ("f/src/out", "output", "out"): 7,
        }
    )
    got = metrics_events(spec, counts, 1650402845610254000)
    ns = 1650402845610254000

    def ev(measurement: str, tags: dict, count: int) -> dict:
        return {
            "measurement": measurement,
            "tags": tags,
            "fields": {"count": count},
            "timestamp": ns,
        }

    def pipe(name: str, way: str, port: str, count: int) -> dict:
        tags = {"pipeline": "f::p", "node": name, "direction": way, "port": port}
        return ev("events", tags, count)

    assert got == [
        pipe("in", "output", "out", 7),
        pipe("s", "input", "in", 7),
        pipe("s", "output", "out", 6),
        pipe("out", "input", "in", 6),
        ev("connector_events", {"flow": "f", "connector": "f::src", "port": "out"}, 7),
        ev("connector_events", {"flow": "f", "connector": "f::src", "port": "err"}, 0),
        ev("connector_events", {"flow": "f", "connector": "f::dst", "port": "in"}, 6),
    ]


def test_totals_sum_partition_rows() -> None:
    rows = ['[["a","input","in",2],["a","output","out",1]]', '[["a","input","in",3]]']
    assert totals(rows) == Counter({("a", "input", "in"): 5, ("a", "output", "out"): 1})


def test_only_a_counted_graph_counts(tmp_path: Path) -> None:
    """A counted graph counts each node's outputs as it runs; the inputs (and passthroughs,
    which it skips) follow from the links. A job without a metrics source is not counted (its
    graph is the one it had before)."""
    paths = {k: tmp_path / k for k in ("IN", "OUT", "ERR", "METRICS")}
    module = build(FLOW, **paths)
    assert module.GRAPH.counted
    graph = Graph(module.GRAPH)
    for value in ({"keep": True}, {"keep": False}, {}):
        graph.push("main/input/out", Event(value, {}, 0))
    assert graph.counts is not None
    assert graph.counts[("main/input/out", "out")] == 3
    assert graph.counts[("main/main/#select1", "error")] == 1
    counts = graph.node_counts([*(n.name for n in module.GRAPH.nodes), "main/input/out"])
    assert counts[("main/input/out", "output", "out")] == 3
    assert counts[("main/main/in", "output", "out")] == 3
    assert counts[("main/main/#select1", "input", "in")] == 3
    assert counts[("main/main/#select1", "output", "out")] == 1
    assert counts[("main/main/#select1", "output", "error")] == 1
    assert counts[("main/main/process", "input", "in")] == 1
    assert counts[("main/main/process", "output", "out")] == 1
    assert counts[("main/main/out", "input", "in")] == 1
    assert counts[("main/main/err", "input", "in")] == 1
    plain = FLOW.replace("connect /connector/metrics to /pipeline/report;", "")
    plain = plain.replace("connect /pipeline/report/out to /connector/mout;", "")
    other = build(plain, **paths)
    assert not other.GRAPH.counted and Graph(other.GRAPH).counts is None
    text = compile_source(Source("t.troy", filled(plain, **paths)), "deploy").job
    assert "#metrics" not in text and "counted=True" not in text and "MetricsSpec" not in text


def test_metrics_pipeline_can_not_read_a_source() -> None:
    text = FLOW.replace(
        "connect /connector/metrics to /pipeline/report;",
        "connect /connector/metrics to /pipeline/report;\n"
        "  connect /connector/input to /pipeline/report;",
    )
    with pytest.raises(CompileError, match="gets the metrics events of `metrics`"):
        build(text, IN="i", OUT="o", ERR="e", METRICS="m")


@pytest.mark.spark
def test_batch_counts_per_node_and_port(spark, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text("\n".join(LINES) + "\n")
    paths = {"IN": tmp_path / "in.json", "OUT": tmp_path / "out", "ERR": tmp_path / "errs"}
    module = build(FLOW, METRICS=tmp_path / "metrics", **paths)
    ctx = RunContext(ingest_ns="index", partitions=2)
    assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    assert sorted(e["n"] for e in lines_of(tmp_path / "out")) == [1, 4]
    assert len(lines_of(tmp_path / "errs")) == 2
    assert lines_of(tmp_path / "metrics") == EXPECTED


SYSTEM_METRICS = (
    ROOT / "tests" / "data" / "metrics" / "system_metrics.troy"
)  # tremor-cli/tests/integration/system-metrics/config.troy, `use integration` dropped


@pytest.mark.spark
def test_system_metrics_integration(spark, tmp_path: Path, monkeypatch) -> None:
    """Tremor's integration test: a metronome → pipeline → file flow reporting every 3 s and a
    metrics pipeline that exits once source, pipeline and sink counted ≥ 10 events. Its
    asserts: events.log holds the tick with id 10, the console gets ``{"EXIT":"NOW"}`` (not
    here: see below). Run with 12 ticks (Tremor's runs until the counts reach 10)."""
    monkeypatch.chdir(tmp_path)
    module = load_job(
        compile_source(Source("config.troy", SYSTEM_METRICS.read_text()), "deploy").job, "t"
    )
    ctx = RunContext(ingest_ns="index", ticks=12, stdout_path=str(tmp_path / "fg.out.log"))
    try:
        assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    finally:
        ctx.close()
    assert ctx.exited
    ticks = lines_of(tmp_path / "events.log")
    assert {"connector": "metronome", "id": 10, "ingest_ns": None} in ticks
    # The console gets every state before the exit event (the sink's count comes last) but not
    # the exit event itself: it goes to `exit` first (link order) and a batch run stops there,
    # where Tremor's exit connector lets the console write it (README, Differences).
    console = [json.loads(line) for line in (tmp_path / "fg.out.log").read_text().splitlines()]
    last = {"source_out": 12, "source_err": 0, "pipeline_in": 12, "pipeline_out": 12}
    assert console[-1] == {**last, "sink_in": 0}
    assert {"EXIT": "NOW"} not in console


STREAM_EXIT = """
  define connector stop from exit;
  create connector stop;
  define pipeline done
  pipeline
    # The last snapshot (the source's err counted): an exit cuts the events after it (the
    # output connector's count, 2 since the second file) in the micro-batch.
    select {"EXIT": "NOW"} from in
    where event.measurement == "connector_events" and event.tags["connector"] == "main::input"
      and event.tags.port == "err" and event.fields.count == 1
    into out;
  end;
  create pipeline done;
  connect /connector/metrics to /pipeline/done;
  connect /pipeline/done/out to /connector/stop;
end;
deploy flow main;
"""


@pytest.mark.spark
@pytest.mark.parametrize("interval_s", [1, 10], ids=["1s", "10s-after-the-input"])
def test_stream_counts_reach_the_metrics_pipeline(spark, tmp_path: Path, interval_s: int) -> None:
    """A stream of three files (one per micro-batch): each micro-batch's counts are added up
    and emitted in a later micro-batch; the flow exits once the source's err count (the third
    file) is reported. The last (largest) count per node and port is the batch run's. With a
    10 s interval the last two files' counts are not due when they are counted and no input
    comes after them: the metrics source asks for the micro-batch that reports them once they
    are (before, the flow waited forever). Only two snapshots are emitted then, and the exit cuts
    the output connector's count (after the source's err count in the second) at file 0's 1."""
    import os

    from runtime_support.flows.streaming import run_stream_flow
    from tests.runtime.flows.test_stream_flow import stream_args

    folder = tmp_path / "in"
    folder.mkdir()
    for number, chunk in enumerate((LINES[:2], LINES[2:4], LINES[4:])):
        path = folder / f"f{number}.json"
        path.write_text("".join(line + "\n" for line in chunk))
        os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))
    text = FLOW.replace("end;\ndeploy flow main;\n", STREAM_EXIT)
    text = text.replace("metrics_interval_s = 1", f"metrics_interval_s = {interval_s}")
    module = build(
        text, IN=folder, OUT=tmp_path / "out", ERR=tmp_path / "errs", METRICS=tmp_path / "m"
    )
    args = stream_args(tmp_path / "ck", trigger="500ms", flush=False)
    sink = run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert sink.exited
    got = lines_of(tmp_path / "m")
    last: dict[str, int] = {}
    for event in got:
        key = json.dumps(event["tags"], sort_keys=True)
        assert event["count"] >= last.get(key, 0)  # totals only grow
        last[key] = event["count"]
    expected = EXPECTED if interval_s == 1 else [*EXPECTED[:-1], conn("main::output", "in", 1)]
    assert last == {json.dumps(e["tags"], sort_keys=True): e["count"] for e in expected}


def test_custom_metrics_into_the_connector_are_rejected() -> None:
    text = FLOW.replace(
        "connect /pipeline/report/out to /connector/mout;",
        "connect /pipeline/report/out to /connector/mout;\n"
        "  connect /pipeline/main/out to /connector/metrics;",
    )
    with pytest.raises(CompileError, match="takes no custom metrics") as err:
        build(text, IN="i", OUT="o", ERR="e", METRICS="m")
    assert "/connector/metrics" in filled(text)[err.value.span.start - 20 : err.value.span.end + 20]


def test_metrics_and_flow_events_can_not_share_a_sink() -> None:
    text = FLOW.replace(
        "connect /pipeline/report/out to /connector/mout;",
        "connect /pipeline/report/out to /connector/mout;\n"
        "  connect /pipeline/report/out to /connector/output;",
    )
    with pytest.raises(CompileError, match="The connector `output` gets the metrics events"):
        build(text, IN="i", OUT="o", ERR="e", METRICS="m")
