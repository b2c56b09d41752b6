"""Processors the registry marks supported do what Tremor's do (nothing accepted and ignored):
`remove-empty` drops the empty lines `separate` produces, on a file and on stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.io.codecs import framing_from
from runtime_support.io.connectors.base import RunContext

FLOW = """
define flow main
flow
  define connector src from {source}
  with
    codec = "string",
    preprocessors = {pre},
    config = {config}
  end;
  define connector dst from file
  with
    codec = "json",
    postprocessors = ["separate"],
    config = {{"path": "out.json", "mode": "truncate", "single_file": true}}
  end;
  create connector src;
  create connector dst;
  create pipeline p from tremor::pipelines::passthrough;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p to /connector/dst;
end;
deploy flow main;
"""


def test_remove_empty_counts_only_after_separate() -> None:
    assert framing_from(["separate", "remove-empty"]).drop_empty
    assert not framing_from(["remove-empty", "separate"]).drop_empty
    assert framing_from(["remove-empty"]).drop_empty


def _run(spark, text: str, tmp: Path, **ctx: object) -> list[object]:
    module = load_job(compile_source(Source("t.troy", text), "deploy").job, "t")
    context = RunContext(ingest_ns="index", **ctx)  # type: ignore[arg-type]
    assert run_flow(spark, module.FLOW, module.run_pipeline, context) == 0
    return [json.loads(line) for line in (tmp / "out.json").read_text().splitlines()]


@pytest.mark.spark
@pytest.mark.parametrize(
    ("pre", "expected"),
    [('["separate", "remove-empty"]', ["a", "b"]), ('["separate"]', ["a", "", "b"])],
)
def test_remove_empty_on_a_file(spark, tmp_path: Path, monkeypatch, pre, expected) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("a\n\nb\n")
    # Spark resolves relative paths against the JVM's working directory: give an absolute one.
    config = json.dumps({"path": str(tmp_path / "in.txt"), "mode": "read"})
    text = FLOW.format(source="file", pre=pre, config=config)
    assert _run(spark, text, tmp_path) == expected


@pytest.mark.spark
def test_remove_empty_on_stdin(spark, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("a\n\nb\n")
    text = FLOW.format(source="stdio", pre='["separate", "remove-empty"]', config="{}")
    assert _run(spark, text, tmp_path, stdin_path=str(tmp_path / "in.txt")) == ["a", "b"]
