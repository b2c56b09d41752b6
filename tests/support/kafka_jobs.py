"""Helpers of the Kafka connector tests: a real broker per test module (KRaft, see
``tests.support.servers.kafka``), unique topics, jobs built from troy text and run as a user runs
them, and the messages Tremor's ``kafka_connectors`` integration test produces."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.paths import ROOT
from tests.support.servers import kafka as server

#: Skip a module's tests where no Kafka is installed (``pytestmark = needs_kafka``).
needs_kafka = pytest.mark.skipif(server.classpath() is None, reason=server.skip_reason())

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TIMEOUT = 900


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """A running broker for the test module."""
    pytest.importorskip("confluent_kafka", reason=server.skip_reason())
    with server.kafka_broker(tmp_path_factory.mktemp("kafka")) as running:
        yield running


def new_topic(name: str) -> str:
    """``name`` with a random suffix: each test its own topic."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def write_job(tmp_path: Path, troy: str) -> Path:
    """``tmp_path/job.py``: the job of the troy program ``troy``."""
    job = tmp_path / "job.py"
    job.write_text(compile_source(Source("flow.troy", troy), kind_of(Path("flow.troy"))).job)
    return job


def run_job(job: Path, *args: str, cwd: Path | None = None) -> None:
    """``python job.py *args`` as a user runs it; fail with its stderr."""
    done = subprocess.run(
        [sys.executable, str(job), *args],
        env=ENV,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-4000:]


# tremor-cli/tests/integration/kafka_connectors: what its producer flow leaves in the topic
# (its in.json through `let $kafka_producer = event.meta`, key "snot" from the config when the
# meta has no binary or string key, a 2-partition topic), produced here with a real client.
INTEGRATION_MESSAGES = [
    ({"batch": True, "number": 1}, b"badger", 0, {"foo": b"bar"}),
    ({"batch": True, "number": 2}, b"snot", 1, None),
    ({"batch": False, "foo": "bar"}, b"snot", 1, None),
    ({"batch": False}, b"snot", 1, None),
    ({"batch": True, "number": 3}, b"snot", 1, None),
    ({"batch": True, "number": 4}, b"snot", 1, None),
    ("exit", b"foo", 1, None),
]
