"""The ``kv`` connector through real flow jobs on Spark: batch (Tremor's integration test, order
across partitions, both passes into one sink) and streaming (each micro-batch applied once).

Ported from tremor-runtime ``tremor-cli/tests/integration/kv`` (config.troy, lib/pipelines.tremor,
in.json, expected.json, expected_err.json), expectations written by hand.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import flow_meta, run_stream_flow
from runtime_support.io.connectors.base import RunContext
from runtime_support.io.connectors.kv import KvSink
from runtime_support.io.connectors.kv_store import STORE_FILE
from runtime_support.spark.stream_job import StreamError
from tests.runtime.flows.test_stream_flow import build, stream_args, write_file

# config.troy with Tremor's pipelines inlined (its `helpers::is_put_exit` is the match in both
# `where` clauses). The exit connector has no `delay` (tremorc stops at the first exit event).
TREMOR_FLOW = """
define flow main
flow
  define connector kv from kv with config = {"path": @DATA@} end;
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "truncate", "single_file": true}
  end;
  define connector error_output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @ERR@, "mode": "truncate", "single_file": true}
  end;
  define connector exit from exit;

  define pipeline in
  pipeline
    define script process
    script
      use std::json;
      let $kv = event[0].kv;
      let event = event[1];
      let $correlation = json::encode(event);
      event
    end;
    create script process;
    define script diverge
    script
      let port = match $ of
        case %{ batch == true } => emit event => "batch"
        case _ => emit event => "out"
      end;
    end;
    create script diverge;
    define operator batch from generic::batch with count = 2 end;
    create operator batch;
    select event from in into process;
    select event from process into diverge;
    select event from process/err into err;
    select event from diverge/batch into batch;
    select event from batch into out;
    select event from diverge/out into out;
  end;

  define pipeline out
  into out, exit, err
  pipeline
    use std::string;
    select {
      "event": event,
      "meta": match $ of
        case %{kv ~= %{present ok}} =>
          patch $ of merge "kv" => {"ok": string::from_utf8_lossy($kv.ok)} end
        case _ => $
      end
    } from in where !(match $ of
        case %{kv ~= %{op == "put", ok == string::into_binary("exit")}} => event == "exit"
        case _ => false
      end) into out;
    select event from in where (match $ of
        case %{kv ~= %{op == "put", ok == string::into_binary("exit")}} => event == "exit"
        case _ => false
      end) into exit;
  end;

  define pipeline err
  pipeline
    select {"error": true, "meta": $, "event": event} from in into out;
  end;

  create connector kv; create connector input; create connector output;
  create connector error_output; create connector exit;
  create pipeline in; create pipeline out; create pipeline err;

  connect /connector/input/out to /pipeline/in;
  connect /pipeline/in/out to /connector/kv;
  connect /connector/kv/out to /pipeline/out;
  connect /pipeline/out/out to /connector/output;
  connect /pipeline/out/exit to /connector/exit;
  connect /pipeline/in/err to /connector/error_output;
  connect /connector/kv/err to /pipeline/err;
  connect /pipeline/err/out to /connector/error_output;
  connect /pipeline/out/err to /connector/error_output;
end;
deploy flow main;
"""

TREMOR_IN = """\
[{"kv": {"get": "snot"}}, 1]
[{"kv": {"put": "snot"}}, "badger"]
[{"kv": {"swap": "snot"}}, "velociraptor"]
[{"kv": {"get": "snot"}, "batch": true}, 3]
[{"kv": {"put": "heinz"}, "batch": true}, "ketchup"]
[{"kv": {"get": "heinz"}}, 5]
[{"kv": {"scan": ""}}, 6]
[{"kv": {"scan": "snot"}}, 7]
[{"kv": {"scan": "heinz", "end": "meins"}}, 8]
[{"kv": {"scan": "", "end": "heinz"}}, 9]
[{"kv": {"cas": "heinz", "old": "gies"}}, "ketchup"]
[{"kv": {"cas": "heinz", "old": "ketchup"}}, "gies"]
[{"kv": {"delete": "matthias"}}, 12]
[{"kv": {"get": "matthias"}}, 13]
[{"kv": {"delete": "heinz"}}, 14]
[{"kv": {"get": "heinz"}}, 15]
[{"kv": {"delete": "snot"}}, 16]
[{"kv": {"get": "snot"}}, 17]
[{"kv": {"put": "exit"}}, "exit"]
[{"kv": {"get": "exit"}}, 19]
"""


def line(event: Any, correlation: str, op: str, key: str) -> dict:
    return {"event": event, "meta": {"correlation": correlation, "kv": {"ok": key, "op": op}}}


# expected.json without its last line: Tremor's exit connector waits 100 ms (`delay`), so the
# answer to `get exit` still reaches out.log there; tremorc's run ends at the `put exit` answer.
EXPECTED_OUT = [
    line(None, "1", "get", "snot"),
    line("badger", '"badger"', "put", "snot"),
    line("badger", '"velociraptor"', "swap", "snot"),
    line("velociraptor", "3", "get", "snot"),
    line("ketchup", '"ketchup"', "put", "heinz"),
    line("ketchup", "5", "get", "heinz"),
    line("ketchup", "6", "scan", "heinz"),
    line("velociraptor", "6", "scan", "snot"),
    line("velociraptor", "7", "scan", "snot"),
    line("ketchup", "8", "scan", "heinz"),
    line(None, '"gies"', "cas", "heinz"),
    line(None, "12", "delete", "matthias"),
    line(None, "13", "get", "matthias"),
    line("gies", "14", "delete", "heinz"),
    line(None, "15", "get", "heinz"),
    line("velociraptor", "16", "delete", "snot"),
    line(None, "17", "get", "snot"),
]
EXPECTED_ERR = [
    {
        "error": True,
        "event": None,
        "meta": {
            "correlation": '"ketchup"',
            "error": "CAS error: expected ketchup but found ketchup.",
            "kv": {"key": [104, 101, 105, 110, 122], "op": "cas"},
        },
    }
]


def lines(path: Path) -> list[Any]:
    return [json.loads(text) for text in path.read_text().splitlines() if text]


def stored(data: Path) -> dict[bytes, str]:
    with sqlite3.connect(data / STORE_FILE) as db:
        return {bytes(k): bytes(v).decode() for k, v in db.execute("SELECT key, value FROM kv")}


def run_tremor_flow(spark: Any, tmp_path: Path, text: str, partitions: int | None = None) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "in.json").write_text(text)
    module = build(
        TREMOR_FLOW,
        DATA=tmp_path / "data",
        IN=tmp_path / "in.json",
        OUT=tmp_path / "out.log",
        ERR=tmp_path / "err.log",
    )
    ctx = RunContext(ingest_ns="index", partitions=partitions)
    run_flow(spark, module.FLOW, module.run_pipeline, ctx)


@pytest.mark.spark
def test_tremor_integration(spark, tmp_path: Path) -> None:
    run_tremor_flow(spark, tmp_path, TREMOR_IN)
    assert lines(tmp_path / "out.log") == EXPECTED_OUT
    assert lines(tmp_path / "err.log") == EXPECTED_ERR
    assert stored(tmp_path / "data") == {b"exit": '"exit"'}


@pytest.mark.spark
def test_order_across_partitions_and_both_passes_into_one_sink(spark, tmp_path: Path) -> None:
    """200 keys, each put then read back in the next event, over 4 input partitions: every get
    sees its put. A line that is no command array fails the `in` pipeline (pass one) and a bad
    `$kv` fails in the store (pass two): both reach error_output, pass one's first."""
    commands = ['"not a command"']
    for i in range(200):
        commands.append(json.dumps([{"kv": {"put": f"k{i:03d}"}}, {"n": i}]))
        commands.append(json.dumps([{"kv": {"get": f"k{i:03d}"}}, i]))
    commands.append(json.dumps([{"kv": {"fetch": "k000"}}, "bad"]))
    commands.append(json.dumps([{"kv": {"put": "exit"}}, "exit"]))
    run_tremor_flow(spark, tmp_path, "\n".join(commands) + "\n", partitions=4)
    out = lines(tmp_path / "out.log")
    assert len(out) == 400
    for i in range(200):
        assert out[2 * i] == line({"n": i}, f'{{"n":{i}}}', "put", f"k{i:03d}")
        assert out[2 * i + 1] == line({"n": i}, str(i), "get", f"k{i:03d}")
    first, second = lines(tmp_path / "err.log")
    assert first["event"] == "not a command" and "Conflicting types" in first["error"]
    assert second == {
        "error": True,
        "event": None,
        "meta": {"correlation": '"bad"', "error": 'Invalid command: {"fetch":"k000"}', "kv": None},
    }


STREAM_FLOW = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector kv from kv with config = {"path": @DATA@} end;
  define pipeline p
  pipeline
    define script command script let $kv = event[0]; event[1] end;
    create script command;
    select event from in into command;
    select event from command into out;
  end;
  define pipeline q pipeline select event from in into out; end;
  create connector input; create connector kv; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p to /connector/kv;
  CONNECTS
end;
deploy flow main;
"""


@pytest.mark.spark
def test_stream_applies_each_micro_batch_once(spark, tmp_path: Path) -> None:
    """Three files, three micro-batches: put, cas on the put value, swap. Replaying the first
    micro-batch after the stream (as Spark does after a crash before its commit) changes
    nothing: the store records each applied (run, batch id) in the same transaction."""
    (tmp_path / "data").mkdir()
    files = [
        [[{"put": "k"}, "a"], [{"put": "other"}, 1]],
        [[{"cas": "k", "old": "a"}, "b"]],
        [[{"swap": "other"}, 2]],
    ]
    for number, commands in enumerate(files):
        write_file(tmp_path / "in", number, [json.dumps(c) for c in commands])
    text = STREAM_FLOW.replace("CONNECTS", "")
    module = build(text, IN=tmp_path / "in", DATA=tmp_path / "data")
    args = stream_args(tmp_path / "ck", flush=False)
    run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert stored(tmp_path / "data") == {b"k": '"b"', b"other": "2"}
    run = str(flow_meta(str(tmp_path / "ck"), "index")["run"])
    replay = spark.createDataFrame(
        [('"a"', 0, [0], '{"$": {"kv": {"put": "k"}}, "batch": null}')],
        "value string, seq long, sub array<long>, meta string",
    )
    sink = KvSink(module.FLOW.connectors[1])
    sink.write_batch(replay, 0, run)
    assert stored(tmp_path / "data") == {b"k": '"b"', b"other": "2"}
    sink.write_batch(replay, 7, run)  # a new micro-batch does apply
    assert stored(tmp_path / "data") == {b"k": '"a"', b"other": "2"}


def test_stream_rejects_connected_answers(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    connects = "connect /connector/kv/out to /pipeline/q;"
    text = STREAM_FLOW.replace("CONNECTS", "create pipeline q; " + connects)
    module = build(text, IN=tmp_path / "in", DATA=tmp_path / "data")
    with pytest.raises(StreamError, match="the `out` port of the kv connector `main::kv`"):
        from runtime_support.flows.streaming import check_flow

        check_flow(module.FLOW, stream_args(tmp_path / "ck"))
