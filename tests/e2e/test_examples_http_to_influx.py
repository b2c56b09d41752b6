"""examples/http_to_influx end to end as its README runs it: the job (batch, 12 requests) fed
by a real ``requests`` client, its points written to a real influxd and queried back. Expected
points worked by hand from examples/http_to_influx/in.json."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.support.paths import ROOT
from tests.support.servers import influx

EXAMPLE = ROOT / "examples" / "http_to_influx"
needs_influx = pytest.mark.skipif(
    influx.binary() is None, reason=f"influxd is not installed (run {influx.INSTALL})"
)
T0 = 1_700_000_000  # in.json's first timestamp, in seconds


def iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@needs_influx
@pytest.mark.spark
def test_example_http_to_influx(tmp_path: Path) -> None:
    from tests.support.spark_cluster import free_port

    with influx.influx_server(tmp_path / "influx") as server:
        server.query("CREATE DATABASE metrics")
        port = free_port()
        text = (EXAMPLE / "flow.troy").read_text()
        assert text.count("127.0.0.1:8086") == 1 and text.count("127.0.0.1:9080") == 1
        text = text.replace("127.0.0.1:8086", f"127.0.0.1:{server.port}")
        (tmp_path / "flow.troy").write_text(text.replace("127.0.0.1:9080", f"127.0.0.1:{port}"))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        build = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
        subprocess.run([*build, "-o", str(tmp_path / "job.py")], check=True, cwd=ROOT, env=env)
        job = subprocess.Popen(
            [sys.executable, str(tmp_path / "job.py"), "--ticks", "12"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            post_lines(f"http://127.0.0.1:{port}/", (EXAMPLE / "in.json").read_text())
            output, _ = job.communicate(timeout=600)
        finally:
            if job.poll() is None:
                job.kill()
                job.wait()
        assert job.returncode == 0, output
        series = server.query("SELECT * FROM requests GROUP BY host ORDER BY time", "metrics")
    got = {
        s["tags"]["host"]: [dict(zip(s["columns"], v, strict=True)) for v in s["values"]]
        for s in series
    }
    cols = ("time", "count", "min", "max", "mean")
    rows = {host: [tuple(p[c] for c in cols) for p in points] for host, points in got.items()}
    # web-1: ms 12.5, 30, 480 (at T0, T0+2, T0+4 s) then 8, 16, 24; web-2: 100, 200, 300
    # then 5, 5, 50 (at T0+1 s, ...); a window's timestamp is its first event's.
    assert rows == {
        "web-1": [(iso(T0), 3, 12.5, 480.0, 174.16666666666666), (iso(T0 + 6), 3, 8.0, 24.0, 16.0)],
        "web-2": [(iso(T0 + 1), 3, 100.0, 300.0, 200.0), (iso(T0 + 7), 3, 5.0, 50.0, 20.0)],
    }
    assert [p["p99"] for p in got["web-1"]] == [480.0, 24.0]


def post_lines(url: str, text: str) -> None:
    """One request per line, once the job listens (Spark starts slowly)."""
    session = requests.Session()
    deadline = time.monotonic() + 300
    for line in text.splitlines():
        while True:
            try:
                answer = session.post(url, data=line, timeout=60)
                break
            except requests.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        assert answer.status_code == 202, answer.text
