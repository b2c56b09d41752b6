"""A throwaway PostgreSQL server on 127.0.0.1 for tests: ``initdb`` into a temporary folder, the
postmaster started directly (its PID is the server's) and stopped by that PID (SIGINT: fast
shutdown, then SIGKILL after 30 s), even when the test fails.

Root (CI) runs the server as the ``postgres`` user Debian's package creates. ``binary()`` is
None when PostgreSQL is not installed (``.ci/install.d/postgres.sh`` installs it).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

INSTALL = ".ci/install.d/postgres.sh"


def binary(name: str = "postgres") -> str | None:
    """The PostgreSQL server program ``name`` (``postgres``, ``initdb``), newest version."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@dataclass(frozen=True)
class Postgres:
    """A running server: ``port`` on 127.0.0.1, superuser ``postgres``, database ``postgres``."""

    port: int

    def sql(self, statement: str) -> list[str]:
        """Run ``statement`` with psql; its rows, one ``|``-separated line each."""
        command = ["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-X"]
        command += ["-v", "ON_ERROR_STOP=1", "-At", "-c", statement]
        done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
        return [line for line in done.stdout.splitlines() if line]


def _as_user() -> dict[str, str]:
    return {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}


@contextmanager
def postgres_server() -> Iterator[Postgres]:
    """Initialise a cluster in a new folder under the system's temporary folder (pytest's is
    private to root, and the server runs as ``postgres``), run it until the context ends, then
    remove the folder."""
    folder = Path(tempfile.mkdtemp(prefix="tremorc-pg-"))
    try:
        with _server(folder) as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _server(folder: Path) -> Iterator[Postgres]:
    data, sockets = folder / "data", folder / "sock"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(sockets, "postgres", "postgres")
    initdb = [
        str(binary("initdb")),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
    ]
    subprocess.run(initdb, check=True, capture_output=True, timeout=300, **_as_user())
    port = free_port()
    options = ["-c", "listen_addresses=127.0.0.1", "-p", str(port), "-k", str(sockets)]
    options += ["-c", "fsync=off", "-c", "max_connections=50"]
    log = open(folder / "server.log", "w")  # noqa: SIM115 - closed in finally
    process = subprocess.Popen(
        [str(binary()), "-D", str(data), *options],
        stdout=log,
        stderr=subprocess.STDOUT,
        **_as_user(),
    )
    try:
        if not port_open_within(port, 60):
            raise TimeoutError(f"PostgreSQL did not listen on {port}: see {folder}/server.log")
        server = Postgres(port)
        _ready(server)
        yield server
    finally:
        stop_process(process, signal.SIGINT)
        log.close()


def _ready(server: Postgres) -> None:
    """Until the server accepts queries (it listens a little before it does)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            server.sql("SELECT 1")
            return
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
