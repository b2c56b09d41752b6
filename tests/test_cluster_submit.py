"""A generated job submitted with ``spark-submit`` to a real standalone cluster on this machine.

Starts a Spark master and one worker on loopback (free ports), submits a job built by tremorc with
``--py-files runtime_support.zip`` and checks what it wrote. Slow (a cluster start costs ~10-30 s),
so it is one test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli

from .conftest import ROOT

PROGRAM = """\
use std::string;
match event of
  case %{ level == "debug" } => drop
  case _ => patch event of upsert "level" => string::uppercase(event.level) end
end
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _wait_for_worker(ui_port: int, log: Path, timeout: float) -> None:
    """Block until the master's status page lists an alive worker (so a submitted app is not left
    waiting for resources); fail with the cluster log otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as page:
                status = json.load(page)
            if any(w.get("state") == "ALIVE" for w in status.get("workers", [])):
                return
        except OSError:
            pass
        time.sleep(1)
    raise AssertionError("no worker registered:\n" + log.read_text()[-3000:])


def _wait_for(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"nothing listening on {port}")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_WORKER_DIR": str(tmp_path / "work"),
    }
    port, ui_port = _free_port(), _free_port()
    spark_class = str(_spark_home() / "bin" / "spark-class")
    master_url = f"spark://127.0.0.1:{port}"
    logs = open(tmp_path / "cluster.log", "w")  # noqa: SIM115 - closed in the finally below
    processes = [
        subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1"]
            + ["--port", str(port), "--webui-port", str(ui_port)],
            env=env,
            stdout=logs,
            stderr=subprocess.STDOUT,
        )
    ]
    try:
        _wait_for(port, 60)
        processes.append(
            subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1"]
                + ["--webui-port", str(_free_port()), "-c", "2", "-m", "2g", master_url],
                env=env,
                stdout=logs,
                stderr=subprocess.STDOUT,
            )
        )
        _wait_for_worker(ui_port, tmp_path / "cluster.log", 120)
        yield master_url
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        logs.close()


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
    submit = str(_spark_home() / "bin" / "spark-submit")
    result = subprocess.run(
        [submit, "--master", cluster, "--py-files", str(bundle), str(job), "--ingest-ns", "index"]
        + ["-i", str(tmp_path / "in.json"), "-o", str(tmp_path / "out")],
        env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    parts = sorted((tmp_path / "out" / "out").glob("part-*"))
    lines = [line for part in parts for line in part.read_text().splitlines()]
    assert lines == ['{"level":"WARN","n":1.0}', '{"level":"INFO"}']
