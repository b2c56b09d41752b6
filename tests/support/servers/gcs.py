"""A real GCS emulator for tests: fake-gcs-server (Go, ``.ci/install.d/gcs.sh`` installs it) on
127.0.0.1 at a free port, in-memory, plain HTTP, stopped by its PID.

Invariant: when :func:`gcs_server` yields, the server answers the JSON API (buckets can be
created at once); ``url`` is the storage root, ``upload_url`` Tremor's upload endpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port

INSTALL = ".ci/install.d/gcs.sh"


def binary() -> str | None:
    """fake-gcs-server's path, or None when gcs.sh has not installed it."""
    gopath = Path(os.environ.get("GOPATH", Path.home() / "go"))
    found = shutil.which("fake-gcs-server") or str(gopath / "bin" / "fake-gcs-server")
    return found if os.access(found, os.X_OK) else None


def skip_reason() -> str:
    return f"no GCS emulator: run {INSTALL} (fake-gcs-server with go install)"


@dataclass(frozen=True)
class Gcs:
    """A running emulator: ``url`` is ``http://127.0.0.1:<port>/``; ``pid`` its process."""

    url: str
    pid: int

    @property
    def upload_url(self) -> str:
        return self.url + "upload/storage/v1/"

    def create_bucket(self, name: str) -> None:
        body = json.dumps({"name": name}).encode()
        self._call("POST", "storage/v1/b?project=test", body)

    def objects(self, bucket: str) -> dict[str, bytes]:
        """Every object of ``bucket``: name → content."""
        listing = json.loads(self._call("GET", f"storage/v1/b/{bucket}/o"))
        return {
            item["name"]: self._call(
                "GET", f"storage/v1/b/{bucket}/o/{urllib.parse.quote(item['name'], '')}?alt=media"
            )
            for item in listing.get("items", [])
        }

    def _call(self, method: str, path: str, body: bytes | None = None) -> bytes:
        request = urllib.request.Request(
            self.url + path, data=body, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.read()  # type: ignore[no-any-return]


@contextmanager
def gcs_server(folder: Path) -> Iterator[Gcs]:
    """Run fake-gcs-server (its log under ``folder``); stopped by PID when the context ends."""
    path = binary()
    if path is None:
        raise RuntimeError(skip_reason())
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "fake-gcs.log"
    url = f"http://127.0.0.1:{port}"
    args = [path, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port)]
    args += ["-backend", "memory", "-external-url", url, "-public-host", f"127.0.0.1:{port}"]
    with open(log_path, "w") as log:
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    try:
        server = Gcs(url + "/", process.pid)
        deadline = time.monotonic() + 60
        while True:
            try:
                server._call("GET", "storage/v1/b")
                break
            except (urllib.error.URLError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    log = log_path.read_text()
                    raise AssertionError("fake-gcs-server did not start:\n" + log) from None
                time.sleep(0.2)
        yield server
    finally:
        stop_process(process)
