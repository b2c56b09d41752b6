"""Flow runtime: codecs and framing (no Spark), and whole flows on a local SparkSession."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.io.codecs import Codec, codec_from, framing_from
from runtime_support.io.connectors.base import RunContext
from tests.support.paths import ROOT


def test_json_codec_modes() -> None:
    value = {"b": 1, "a": [1.0]}
    assert codec_from("json").encode(value) == '{"b":1,"a":[1.0]}'
    sorted_codec = codec_from({"name": "json", "config": {"mode": "sorted"}})
    assert sorted_codec.encode(value) == '{"a":[1.0],"b":1}'
    assert Codec("json").decode("  ") == (False, None)


def test_string_codec_and_separate() -> None:
    codec = codec_from("string")
    assert codec.decode("x y") == (True, "x y")
    assert codec.encode("x") == "x" and codec.encode({"a": 1}) == '{"a":1}'
    assert framing_from(["separate"]).frame("x") == b"x\n"
    assert framing_from([{"name": "separate", "config": {"separator": "|"}}]).frame("x") == b"x|"
    assert framing_from(None).frame("x") == b"x"


def test_unsupported_codec_is_reported() -> None:
    with pytest.raises(ValueError, match="tremor"):
        codec_from("tremor")


def _run(spark, text: str, tmp_path: Path, **ctx: object) -> RunContext:
    module = load_job(compile_source(Source("t.troy", text), "deploy").job, "t")
    context = RunContext(ingest_ns="index", **ctx)  # type: ignore[arg-type]
    assert run_flow(spark, module.FLOW, module.run_pipeline, context) == 0
    return context


@pytest.mark.spark
def test_file_flow_example(spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples" / "file_flow").mkdir(parents=True)
    data = (ROOT / "examples" / "file_flow" / "in.json").read_text()
    (tmp_path / "examples" / "file_flow" / "in.json").write_text(data)
    _run(spark, (ROOT / "examples" / "file_flow" / "flow.troy").read_text(), tmp_path)
    parts = sorted((tmp_path / "out.json").glob("part-*"))  # a folder of part files
    lines = [json.loads(x) for part in parts for x in part.read_text().splitlines()]
    got = sorted((x["msg"], x["slow"]) for x in lines)
    assert got == [("DISK ALMOST FULL", True), ("REQUEST SERVED", True), ("SERVICE STARTED", False)]


@pytest.mark.spark
def test_metronome_stops_at_exit(spark, tmp_path: Path) -> None:
    text = """
    define flow main
    flow
      define connector tick from metronome with config = {"interval": 1000} end;
      define connector out from stdio with postprocessors = ["separate"] end;
      define connector stop from exit;
      define pipeline p pipeline
        select event.id from in into out;
        select event from in where event.id == 2 into err;
      end;
      create connector tick; create connector out; create connector stop; create pipeline p;
      connect /connector/tick to /pipeline/p;
      connect /pipeline/p/out to /connector/out;
      connect /pipeline/p/err to /connector/stop;
    end;
    deploy flow main;
    """
    out = tmp_path / "stdout.txt"
    ctx = _run(spark, text, tmp_path, stdout_path=str(out), ticks=10)
    assert ctx.exited
    assert out.read_text().split() == ["0", "1", "2"]
