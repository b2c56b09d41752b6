"""A real Confluent-compatible schema registry for tests: Aiven's karapace (from its source, in
its own virtualenv, as ``.ci/install.d/schema_registry.sh`` installs it) on 127.0.0.1 at a free
port, storing its schemas in the ``_schemas`` topic of a real Kafka broker
(:mod:`tests.support.servers.kafka`), stopped by its PID.

Invariant: when :func:`schema_registry` yields, the registry answers ``GET /subjects``.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.kafka import Broker
from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port

HOME = Path(os.environ.get("KARAPACE_HOME", Path.home() / ".cache" / "tremorc"))
PYTHON = HOME / "karapace-venv" / "bin" / "python"
SOURCE = HOME / "karapace-src" / "src"
INSTALL = ".ci/install.d/schema_registry.sh"
CONTENT = "application/vnd.schemaregistry.v1+json"


def available() -> bool:
    """Whether schema_registry.sh has installed karapace."""
    return PYTHON.is_file() and (SOURCE / "karapace" / "__main__.py").is_file()


def skip_reason() -> str:
    return f"no schema registry: run {INSTALL} (karapace from its source, in a virtualenv)"


@dataclass(frozen=True)
class Registry:
    """A running registry: ``url`` is ``http://127.0.0.1:<port>``; ``pid`` its process."""

    url: str
    pid: int
    log: Path

    def register(self, subject: str, schema: dict) -> int:
        """Register the Avro ``schema`` under ``subject``; its id."""
        body = json.dumps({"schema": json.dumps(schema)}).encode()
        answer = self._call("POST", f"/subjects/{subject}/versions", body)
        return int(answer["id"])

    def _call(self, method: str, path: str, body: bytes | None = None) -> dict:
        request = urllib.request.Request(
            self.url + path, data=body, method=method, headers={"Content-Type": CONTENT}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]


@contextmanager
def schema_registry(broker: Broker, folder: Path) -> Iterator[Registry]:
    """Run karapace against ``broker`` (its log under ``folder``); stopped by PID at the end."""
    if not available():
        raise RuntimeError(skip_reason())
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "karapace.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(SOURCE),
        "KARAPACE_BOOTSTRAP_URI": broker.bootstrap,
        "KARAPACE_HOST": "127.0.0.1",
        "KARAPACE_PORT": str(port),
        "KARAPACE_ADVERTISED_HOSTNAME": "127.0.0.1",
        "KARAPACE_REGISTRY_HOST": "127.0.0.1",
        "KARAPACE_REGISTRY_PORT": str(port),
        "KARAPACE_KARAPACE_REGISTRY": "true",
        "KARAPACE_LOG_LEVEL": "WARNING",
        "KARAPACE_GROUP_ID": f"registry-{port}",
    }
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(PYTHON), "-m", "karapace"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
    try:
        registry = Registry(f"http://127.0.0.1:{port}", process.pid, log_path)
        _wait_ready(registry, process, 120)
        yield registry
    finally:
        stop_process(process)


def _wait_ready(registry: Registry, process: subprocess.Popen, timeout: float) -> None:
    """Until the registry lists its subjects and is ready to write; its log otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            registry._call("GET", "/subjects")
            registry.register("__ready-check", {"type": "string"})
            return
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(0.5)
    raise AssertionError("karapace did not start:\n" + registry.log.read_text()[-3000:])
