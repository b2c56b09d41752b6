"""A generated job submitted with ``spark-submit`` to a real standalone cluster on this machine.

Starts a Spark master and one worker on loopback (free ports), submits a job built by tremorc with
``--py-files runtime_support.zip`` and checks what it wrote. Slow (a cluster start costs ~10-30 s),
so it is one test.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from tests.support.paths import ROOT
from tests.support.spark_cluster import spark_env, spark_home, standalone_cluster

PROGRAM = """\
use std::string;
match event of
  case %{ level == "debug" } => drop
  case _ => patch event of upsert "level" => string::uppercase(event.level) end
end
"""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    with standalone_cluster(tmp_path / "cluster", workers=1) as running:
        yield running.url


@pytest.mark.spark
def test_spark_submit_to_a_standalone_cluster(cluster: str, tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / "triage.tremor").write_text(PROGRAM)
    job, bundle = tmp_path / "job.py", tmp_path / "runtime_support.zip"
    built = runner.invoke(cli, ["build", str(tmp_path / "triage.tremor"), "-o", str(job)])
    assert built.exit_code == 0, built.output
    assert runner.invoke(cli, ["bundle", "-o", str(bundle)]).exit_code == 0
    events = [{"level": "debug"}, {"level": "warn", "n": 1.0}, {"level": "info"}]
    (tmp_path / "in.json").write_text("".join(json.dumps(e) + "\n" for e in events))
    submit = str(spark_home() / "bin" / "spark-submit")
    result = subprocess.run(
        [submit, "--master", cluster, "--py-files", str(bundle), str(job), "--ingest-ns", "index"]
        + ["-i", str(tmp_path / "in.json"), "-o", str(tmp_path / "out")],
        env=spark_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    parts = sorted((tmp_path / "out" / "out").glob("part-*"))
    lines = [line for part in parts for line in part.read_text().splitlines()]
    assert lines == ['{"level":"WARN","n":1.0}', '{"level":"INFO"}']
