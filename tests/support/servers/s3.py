"""moto's S3 server on 127.0.0.1 for tests: ``python -m moto.server`` on a free port, stopped by
its PID (SIGTERM, then SIGKILL after 30 s), even when the test fails; boto3 (a moto dependency)
creates buckets and reads objects. ``available()`` is False without ``moto[server]``
(``.ci/install.d/s3.sh`` installs it and the s3a jars).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

INSTALL = ".ci/install.d/s3.sh"
KEY, SECRET, REGION = "tremor", "snot_badger", "eu-central-1"


def available() -> bool:
    """moto's server and boto3 can be imported."""
    return all(importlib.util.find_spec(m) is not None for m in ("moto", "boto3", "flask"))


@dataclass(frozen=True)
class S3Server:
    """A running server: its ``url`` and a boto3 client of it."""

    url: str

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.url,
            aws_access_key_id=KEY,
            aws_secret_access_key=SECRET,
            region_name=REGION,
        )

    def bucket(self, name: str) -> None:
        config = {"LocationConstraint": REGION}
        self.client().create_bucket(Bucket=name, CreateBucketConfiguration=config)

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = (
            self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        )
        return sorted(o["Key"] for page in pages for o in page.get("Contents", ()))

    def text(self, bucket: str, key: str) -> str:
        return self.client().get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8")


@contextmanager
def s3_server(folder: Path) -> Iterator[S3Server]:
    """Run moto's server (its log under ``folder``) until the context ends."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = open(folder / "moto.log", "w")  # noqa: SIM115 - closed in finally
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        if not port_open_within(port, 60):
            raise TimeoutError(f"moto did not listen on {port}: see {folder}/moto.log")
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        stop_process(process)
        log.close()
