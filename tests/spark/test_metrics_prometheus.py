"""Spark's own Prometheus endpoints for a running flow job (README, Metrics): a streaming job
started with its UI on a free port, scraped with real HTTP GETs, stopped by its PID."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.proc_tree import kill_tree

FLOW = """
define flow main
flow
  define connector tick from metronome with config = {"interval": 100000000} end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": "out", "mode": "write"}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector tick; create connector out; create pipeline p;
  connect /connector/tick to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow main;
"""

#: What the README tells users to pass (README, Metrics).
PROMETHEUS_CONF = {
    "spark.ui.enabled": "true",
    "spark.ui.prometheus.enabled": "true",
    "spark.metrics.conf.*.sink.prometheusServlet.class": (
        "org.apache.spark.metrics.sink.PrometheusServlet"
    ),
    "spark.metrics.conf.*.sink.prometheusServlet.path": "/metrics/prometheus",
    "spark.sql.streaming.metricsEnabled": "true",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scrape(url: str, wanted: str, seconds: float) -> str:
    """GET ``url`` until its body holds ``wanted`` (the job starts, then its query reports)."""
    deadline, body = time.monotonic() + seconds, ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: S310 - 127.0.0.1
                body = reply.read().decode()
            if wanted in body:
                return body
        except OSError:
            pass
        time.sleep(1)
    raise AssertionError(f"{url} never held {wanted!r}; last body: {body[-2000:]}")


@pytest.mark.spark
def test_prometheus_endpoints_of_a_streaming_job(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    (tmp_path / "flow.troy").write_text(FLOW)
    job = tmp_path / "job.py"
    build = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy"), "-o", str(job)]
    subprocess.run(build, check=True, env=env, cwd=ROOT)
    port = free_port()
    conf = {**PROMETHEUS_CONF, "spark.ui.port": str(port)}
    command = [sys.executable, str(job), "--stream", "--checkpoint", str(tmp_path / "ck")]
    command += [arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}")]
    with open(tmp_path / "job.log", "wb") as log:
        proc = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=log, stderr=log, start_new_session=True
        )
    try:
        base = f"http://127.0.0.1:{port}"
        executors = scrape(base + "/metrics/executors/prometheus", "metrics_executor_", 180)
        assert 'executor_id="driver"' in executors
        driver = scrape(base + "/metrics/prometheus", "spark_streaming", 120)
        assert "inputRate" in driver and "processingRate" in driver
        assert proc.poll() is None, (tmp_path / "job.log").read_text()[-3000:]
    finally:
        kill_tree(proc.pid)  # the Python driver, its JVM and PySpark's worker daemon
        proc.wait(30)
