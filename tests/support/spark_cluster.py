"""A Spark standalone cluster on loopback for tests: one master and N workers, each worker with its
own ``SPARK_WORKER_DIR``, every process stopped by its PID when the context ends (even on failure).

Invariant: when :func:`standalone_cluster` yields, the master lists ``workers`` ALIVE workers, so
an application submitted then gets its executors without waiting for a worker to register.
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
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Cluster:
    """A running cluster: its master URL and each worker's work folder, in start order."""

    url: str
    work_dirs: tuple[Path, ...]

    def worker_of(self, app_id: str, executor_id: str) -> int:
        """The index of the worker that launched ``executor_id`` of ``app_id``: a worker keeps an
        executor's stdout/stderr in ``<work dir>/<app id>/<executor id>/``."""
        owners = [
            index
            for index, work in enumerate(self.work_dirs)
            if (work / app_id / executor_id).is_dir()
        ]
        assert len(owners) == 1, f"executor {executor_id} of {app_id} found in workers {owners}"
        return owners[0]


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spark_home() -> Path:
    """The Spark installation inside the pip ``pyspark`` package (``bin/spark-submit`` etc.)."""
    import pyspark

    return Path(pyspark.__file__).parent


def spark_env(**extra: str) -> dict[str, str]:
    """The environment for Spark processes: loopback only, Python workers on this interpreter."""
    return {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        **extra,
    }


@contextmanager
def standalone_cluster(
    folder: Path, workers: int = 1, cores: int = 2, memory: str = "2g"
) -> Iterator[Cluster]:
    """Start a master and ``workers`` workers (each ``cores`` cores and ``memory``) under
    ``folder`` (created if missing); their output goes to ``folder/cluster.log``."""
    port, ui_port = free_port(), free_port()
    url = f"spark://127.0.0.1:{port}"
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "cluster.log"
    processes: list[subprocess.Popen] = []
    with open(log_path, "w") as log:
        try:
            processes.append(_start(log, "master.Master", ["--port", str(port)], ui_port))
            _wait_for_port(port, 60)
            work_dirs = tuple(folder / f"worker{index}" for index in range(workers))
            for work in work_dirs:
                work.mkdir()
                options = ["-c", str(cores), "-m", memory, "--work-dir", str(work), url]
                processes.append(_start(log, "worker.Worker", options, free_port()))
            _wait_for_workers(ui_port, workers, log_path, 120)
            yield Cluster(url, work_dirs)
        finally:
            _stop(processes)


def _start(log, kind: str, options: list[str], ui_port: int) -> subprocess.Popen:
    """One cluster daemon (``spark-class`` execs the JVM, so the PID is the JVM's)."""
    command = [str(spark_home() / "bin" / "spark-class"), f"org.apache.spark.deploy.{kind}"]
    command += ["--host", "127.0.0.1", "--webui-port", str(ui_port), *options]
    return subprocess.Popen(command, env=spark_env(), stdout=log, stderr=subprocess.STDOUT)


def _stop(processes: list[subprocess.Popen]) -> None:
    """Workers first, then the master; a process that does not stop in 30 s is killed."""
    for process in reversed(processes):
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def port_open_within(port: int, timeout: float) -> bool:
    """Whether something listens on 127.0.0.1:``port`` within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.5)
    return False


def _wait_for_port(port: int, timeout: float) -> None:
    if not port_open_within(port, timeout):
        raise TimeoutError(f"nothing listening on {port}")


def _wait_for_workers(ui_port: int, count: int, log: Path, timeout: float) -> None:
    """Block until the master's status page lists ``count`` alive workers; fail with the
    cluster log otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as page:
                status = json.load(page)
            alive = [w for w in status.get("workers", []) if w.get("state") == "ALIVE"]
            if len(alive) >= count:
                return
        except OSError:
            pass
        time.sleep(1)
    raise AssertionError(f"fewer than {count} workers registered:\n" + log.read_text()[-3000:])
