"""examples/syslog_to_kafka end to end as its README runs it: the job (batch, 4 datagrams)
fed by a real UDP sender, its records produced to a real Kafka broker
(tests/support/servers/kafka.py)
and consumed back. Expected records worked by hand from examples/syslog_to_kafka/in.log
(PRI = facility * 8 + severity, RFC 5424)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.flow_jobs import free_udp_port
from tests.support.paths import ROOT
from tests.support.servers import kafka, net_peer

EXAMPLE = ROOT / "examples" / "syslog_to_kafka"
T0 = 1_700_000_000_000_000_000  # 2023-11-14T22:13:20Z in ns

EXPECTED = [
    {"host": "web-1", "app": "sshd", "facility": "auth", "severity": "crit", "alert": True,
     "message": "Failed password for root", "timestamp": T0},
    {"host": "web-2", "app": "nginx", "facility": "local4", "severity": "notice",
     "alert": False, "message": "GET /index.html 200", "timestamp": T0 + 1_000_000_000},
    {"host": "web-3", "app": "app", "facility": "user", "severity": "err", "alert": True,
     "message": "disk full", "timestamp": T0 + 3_000_000_000},
]  # fmt: skip


@pytest.mark.skipif(kafka.classpath() is None, reason=kafka.skip_reason())
@pytest.mark.spark
def test_example_syslog_to_kafka(tmp_path: Path) -> None:
    with kafka.kafka_broker(tmp_path / "kafka") as broker:
        broker.create_topic("syslog")
        port = free_udp_port()
        text = (EXAMPLE / "flow.troy").read_text()
        assert text.count("127.0.0.1:9092") == 1 and text.count("127.0.0.1:5514") == 1
        text = text.replace("127.0.0.1:9092", broker.bootstrap)
        (tmp_path / "flow.troy").write_text(text.replace("127.0.0.1:5514", f"127.0.0.1:{port}"))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        build = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
        subprocess.run([*build, "-o", str(tmp_path / "job.py")], check=True, cwd=ROOT, env=env)
        job = subprocess.Popen(
            [sys.executable, str(tmp_path / "job.py"), "--ticks", "4"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            net_peer.wait_until(lambda: net_peer.bound("udp", port), 300, "the udp_server")
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                for line in (EXAMPLE / "in.log").read_text().splitlines():
                    sock.sendto(line.encode(), ("127.0.0.1", port))
                    time.sleep(0.05)
            output, _ = job.communicate(timeout=600)
        finally:
            if job.poll() is None:
                job.kill()
                job.wait()
        assert job.returncode == 0, output
        messages = broker.consume("syslog", expect=3)
    got = sorted((json.loads(m.value()) for m in messages), key=lambda e: e["timestamp"])
    assert got == EXPECTED
    assert {m.key() for m in messages} == {b"syslog"}
