"""Helpers of the connector tests that run flow jobs: build a troy program's job, run it in a
thread or as a user runs it (``tremorc build`` then ``python job.py``), read its part files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.paths import ROOT


def build(text: str, **values: Any) -> Any:
    """The loaded job of ``text`` with each ``@NAME@`` replaced by the JSON string of its value."""
    for name, value in values.items():
        text = text.replace(f"@{name}@", json.dumps(str(value)))
    return load_job(compile_source(Source("t.troy", text), "deploy").job, "t")


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 that nothing is bound to now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def part_lines(folder: Path) -> list[dict[str, Any]]:
    """The JSON events of a sink folder's part files, in file order (none if no folder)."""
    texts = [p.read_text() for p in sorted(folder.glob("part-*"))] if folder.is_dir() else []
    return [json.loads(line) for text in texts for line in text.splitlines() if line]


def start_stream(job: Path, checkpoint: Path, log: Path) -> subprocess.Popen:
    """``python job.py --stream`` from ``checkpoint`` in a subprocess, its output in ``log``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(job), "--stream", "--checkpoint", str(checkpoint)]
    command += ["--trigger", "500ms", "--ingest-ns", "index"]
    with open(log, "ab") as handle:
        return subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)


def serve_in_thread(spark: Any, module: Any, ticks: int) -> threading.Thread:
    """A thread running the flow job ``module`` in batch with ``ticks`` end ticks."""

    def run() -> None:
        run_flow(
            spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index", ticks=ticks)
        )

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def build_and_run(tmp: Path, text: str, env: dict[str, str], *args: str) -> None:
    """Build ``flow.troy`` in ``tmp`` with ``tremorc build`` and run ``python job.py *args``
    there as a user does (``env`` added to the environment); fail with its stderr."""
    (tmp / "flow.troy").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    build = [sys.executable, "-m", "compiler", "build", "flow.troy", "-o", "job.py"]
    subprocess.run(build, cwd=tmp, env=env, check=True, timeout=300)
    done = subprocess.run(
        [sys.executable, "job.py", *args],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
