"""A real Elasticsearch for tests: single node (the OSS integ-test build: no security), on
127.0.0.1 at a free port, a 256 MB heap, its config and data in a temporary folder, stopped by
its PID.

The server is the integ-test-zip distribution ``.ci/install.d/elastic.sh`` unzips (Java only, no
bundled JDK). Elasticsearch refuses to run as root: as root it runs as ``nobody`` (its folders
are handed to that user). Invariant: when :func:`elastic_server` yields, the cluster health is
at least yellow, so indices can be written at once. Run as a script it serves until Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

ES_VERSION = os.environ.get("ES_VERSION", "7.17.0")
INSTALL = ".ci/install.d/elastic.sh"
_BASES = (Path("/opt/tremorc"), Path.home() / ".cache" / "tremorc")


def es_home() -> Path | None:
    """The unzipped distribution, or None when elastic.sh has not installed it (or no java)."""
    if shutil.which("java") is None:
        return None
    for base in _BASES:
        home = base / f"elasticsearch-{ES_VERSION}"
        if (home / "bin" / "elasticsearch").is_file():
            return home
    return None


def skip_reason() -> str:
    return f"no Elasticsearch: run {INSTALL} (installs it from Maven Central)"


@dataclass(frozen=True)
class Elastic:
    """A running server: ``url`` is ``http://127.0.0.1:<port>``; ``pid`` its JVM."""

    url: str
    pid: int
    log: Path

    def get(self, path: str, **params) -> dict:
        import requests

        return requests.get(self.url + path, params=params, timeout=30).json()

    def put(self, path: str, body: dict | None = None) -> dict:
        import requests

        return requests.put(self.url + path, json=body, timeout=30).json()

    def delete(self, index: str) -> None:
        """Drop ``index`` (absent: nothing)."""
        import requests

        requests.delete(f"{self.url}/{index}", timeout=30)

    def refresh(self, index: str = "_all") -> None:
        self.get(f"/{index}/_refresh")

    def documents(self, index: str) -> dict[str, dict]:
        """Every document of ``index`` (refreshed first) by ``_id``: ``_source``."""
        self.refresh(index)
        hits = self.get(f"/{index}/_search", size=10000)["hits"]["hits"]
        return {hit["_id"]: hit["_source"] for hit in hits}

    def count(self, index: str) -> int:
        self.refresh(index)
        return int(self.get(f"/{index}/_count")["count"])


def _java_home() -> str:
    """The JDK of the ``java`` on the PATH (``…/bin/java`` → ``…``)."""
    return str(Path(shutil.which("java") or "java").resolve().parents[1])


def _owned_by_nobody(folder: Path) -> list[str]:
    """The command prefix running the server as ``nobody`` when we are root (and chown)."""
    if os.geteuid() != 0:
        return []
    subprocess.run(["chown", "-R", "nobody:nogroup", str(folder)], check=True)
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]


@contextmanager
def elastic_server(folder: Path | None = None) -> Iterator[Elastic]:
    """Run one node with its config and data under ``folder`` (a fresh temporary folder when
    None, removed afterwards); stopped by its PID (SIGTERM, then SIGKILL) when the context ends."""
    home = es_home()
    if home is None:
        raise RuntimeError(skip_reason())
    own = folder is None
    root = Path(tempfile.mkdtemp(prefix="tremorc-es-")) if own else folder
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = root / "config"
    shutil.copytree(home / "config", conf, dirs_exist_ok=True)
    (conf / "elasticsearch.yml").write_text(_settings(root, port))
    _jvm_options(conf / "jvm.options", root)
    (root / "data").mkdir(exist_ok=True)
    (root / "logs").mkdir(exist_ok=True)
    prefix = _owned_by_nobody(root)
    env = {
        **os.environ,
        "ES_PATH_CONF": str(conf),
        "ES_JAVA_OPTS": "-Xms256m -Xmx256m",
        "ES_JAVA_HOME": os.environ.get("JAVA_HOME") or _java_home(),
    }
    log_path = root / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [*prefix, str(home / "bin" / "elasticsearch")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        server = Elastic(f"http://127.0.0.1:{port}", process.pid, log_path)
        _wait_ready(server, process, 180)
        yield server
    finally:
        stop_process(process)
        if own:
            shutil.rmtree(root, ignore_errors=True)


def _settings(root: Path, port: int) -> str:
    lines = {
        "cluster.name": "tremorc-test",
        "node.name": "node-1",
        "path.data": str(root / "data"),
        "path.logs": str(root / "logs"),
        "network.host": "127.0.0.1",
        "http.port": str(port),
        "transport.port": str(free_port()),
        "discovery.type": "single-node",
        "cluster.routing.allocation.disk.threshold_enabled": "false",
        "action.auto_create_index": "true",
    }
    return "".join(f"{key}: {value}\n" for key, value in lines.items())


def _jvm_options(path: Path, root: Path) -> None:
    """Point the JVM's relative ``logs/`` and ``data`` files (GC log, heap dumps, error file)
    at ``root``: the distribution's folder is read-only to the server."""
    text = path.read_text()
    for name in ("logs/", "data"):
        text = text.replace(f"={name}", f"={root}/{name}").replace(f":{name}", f":{root}/{name}")
    path.write_text(text)


def _wait_ready(server: Elastic, process: subprocess.Popen, timeout: float) -> None:
    """Until the cluster health is yellow or green; fail with the server's log otherwise."""
    import requests

    deadline = time.monotonic() + timeout
    port = int(server.url.rsplit(":", 1)[1])
    while time.monotonic() < deadline and process.poll() is None:
        if port_open_within(port, 1):
            try:
                health = server.get("/_cluster/health", wait_for_status="yellow", timeout="5s")
                if health.get("status") in ("yellow", "green"):
                    return
            except requests.RequestException:
                pass
        time.sleep(0.5)
    raise AssertionError("Elasticsearch did not start:\n" + server.log.read_text()[-3000:])


if __name__ == "__main__":  # python3 -m tests.support.servers.elastic: serve until Ctrl-C
    with elastic_server() as es:
        print(f"Elasticsearch at {es.url} (pid {es.pid}); Ctrl-C stops it", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            sys.exit(0)
