"""A throwaway InfluxDB 1.x server on 127.0.0.1 for tests (Debian's ``influxdb``): a generated
config under a temporary folder (meta, data and WAL there, HTTP and RPC on free ports, no
reporting, no self-monitoring), ``influxd`` started directly and stopped by its PID (SIGTERM,
then SIGKILL after 30 s), even when the test fails.

``binary()`` is None when InfluxDB is not installed (``.ci/install.d/influx.sh``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

INSTALL = ".ci/install.d/influx.sh"

CONFIG = """reporting-disabled = true
bind-address = "127.0.0.1:{rpc}"
[meta]
  dir = "{dir}/meta"
[data]
  dir = "{dir}/data"
  wal-dir = "{dir}/wal"
  query-log-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:{http}"
  log-enabled = false
[monitor]
  store-enabled = false
[logging]
  level = "warn"
"""


def binary() -> str | None:
    """The server program, when installed."""
    return shutil.which("influxd") or shutil.which("influxd", path="/usr/bin:/usr/sbin")


@dataclass(frozen=True)
class Influx:
    """A running server: its HTTP ``port`` on 127.0.0.1 (no authentication)."""

    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def query(self, statement: str, db: str | None = None) -> list[dict[str, Any]]:
        """Run an InfluxQL ``statement`` (POST /query); the series of its first result."""
        form = {"q": statement, **({"db": db} if db else {})}
        data = urllib.parse.urlencode(form).encode("ascii")
        with urllib.request.urlopen(f"{self.url}/query", data=data, timeout=60) as answer:
            result = json.loads(answer.read())["results"][0]
        if "error" in result:
            raise RuntimeError(f"InfluxDB: {result['error']}")
        return list(result.get("series", []))


@contextmanager
def influx_server(folder: Path) -> Iterator[Influx]:
    """Run a server with its data under ``folder`` (created) until the context ends."""
    folder.mkdir(parents=True, exist_ok=True)
    http, rpc = free_port(), free_port()
    (folder / "influxdb.conf").write_text(CONFIG.format(dir=folder, http=http, rpc=rpc))
    log = open(folder / "influxd.log", "w")  # noqa: SIM115 - closed in finally
    command = [str(binary()), "run", "-config", str(folder / "influxdb.conf")]
    process = subprocess.Popen(command, cwd=folder, stdout=log, stderr=subprocess.STDOUT)
    try:
        if not port_open_within(http, 60):
            raise TimeoutError(f"influxd did not listen on {http}: see {folder}")
        _ready(Influx(http))
        yield Influx(http)
    finally:
        stop_process(process)
        log.close()


def _ready(server: Influx) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{server.url}/ping", timeout=5) as answer:
                if answer.status == 204:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"influxd at {server.url} did not answer /ping")
        time.sleep(0.2)
