"""A throwaway ClickHouse server on 127.0.0.1 for tests (Debian's ``clickhouse-server``): a
minimal config under a temporary folder, HTTP and native ports free ones, the server started
directly and stopped by its PID (SIGTERM, then SIGKILL after 30 s), even when the test fails.

``binary()`` is None when ClickHouse is not installed (``.ci/install.d/clickhouse.sh``).
"""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

INSTALL = ".ci/install.d/clickhouse.sh"

CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log><errorlog>{dir}/server.err.log</errorlog>
  <console>0</console></logger>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/data/tmp/</tmp_path>
  <user_files_path>{dir}/data/user_files/</user_files_path>
  <format_schema_path>{dir}/data/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
  <mlock_executable>false</mlock_executable>
</yandex>
"""
USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
  <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
  <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
"""


def binary() -> str | None:
    """The server program, when installed."""
    return shutil.which("clickhouse-server") or shutil.which("clickhouse-server", path="/usr/sbin")


@dataclass(frozen=True)
class ClickHouse:
    """A running server: its HTTP ``port`` on 127.0.0.1 (user ``default``, no password)."""

    port: int

    def sql(self, statement: str) -> list[str]:
        """Run ``statement`` over HTTP; its rows (TabSeparated lines)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/", data=statement.encode("utf-8")
        )
        with urllib.request.urlopen(request, timeout=120) as answer:
            return [line for line in answer.read().decode("utf-8").splitlines() if line]


@contextmanager
def clickhouse_server(folder: Path) -> Iterator[ClickHouse]:
    """Run a server with its data under ``folder`` (created) until the context ends."""
    folder.mkdir(parents=True, exist_ok=True)
    http, tcp = free_port(), free_port()
    (folder / "config.xml").write_text(CONFIG.format(dir=folder, http=http, tcp=tcp))
    (folder / "users.xml").write_text(USERS)
    log = open(folder / "stdout.log", "w")  # noqa: SIM115 - closed in finally
    command = [str(binary()), f"--config-file={folder / 'config.xml'}"]
    process = subprocess.Popen(command, cwd=folder, stdout=log, stderr=subprocess.STDOUT)
    try:
        if not port_open_within(http, 60):
            raise TimeoutError(f"ClickHouse did not listen on {http}: see {folder}")
        server = ClickHouse(http)
        _ready(server)
        yield server
    finally:
        stop_process(process)
        log.close()


def _ready(server: ClickHouse) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            server.sql("SELECT 1")
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
