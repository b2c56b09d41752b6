"""examples/kafka_to_elastic as its README runs it: servers.py starts Kafka and Elasticsearch,
fills the topic and writes the flow with their addresses; ``tremorc run`` indexes the events.
Expected documents written by hand from in.json and the flow's script."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.servers import elastic as es_server
from tests.support.servers import kafka as kafka_server

pytestmark = [
    pytest.mark.skipif(es_server.es_home() is None, reason=es_server.skip_reason()),
    pytest.mark.skipif(kafka_server.classpath() is None, reason=kafka_server.skip_reason()),
]
EXAMPLE = ROOT / "examples" / "kafka_to_elastic"


def _servers_module():
    spec = importlib.util.spec_from_file_location("k2e_servers", EXAMPLE / "servers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_kafka_to_elastic(tmp_path: Path) -> None:
    pytest.importorskip("confluent_kafka", reason=kafka_server.skip_reason())
    with _servers_module().servers(tmp_path) as (_broker, es):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "compiler", "run", str(tmp_path / "flow.troy")]
        done = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stderr[-4000:]
        web, api = es.documents("logs-web"), es.documents("logs-api")
    assert sorted(web) == ["r1", "r5"]  # r3 is a health check; r7's `user` conflicts
    assert web["r5"] == {
        "id": "r5",
        "host": "web-1",
        "path": "/search",
        "status": 200,
        "ms": 480,
        "severity": "info",
        "service": "web",
        "slow": True,
    }
    assert {k: (v["severity"], v["slow"]) for k, v in api.items()} == {
        "r2": ("info", False),
        "r4": ("warning", False),
        "r6": ("error", True),
    }
    errors = [json.loads(line) for line in (tmp_path / "errors.json").read_text().splitlines()]
    assert [e["elastic"] for e in errors] == [
        {"_id": "r7", "_index": "logs-web", "action": "index", "success": False}
    ]
    response = errors[0]["response"]
    assert response["index"]["error"]["type"] == "mapper_parsing_exception"
    assert response["payload"]["user"] == {"name": "eve"}
