"""The ``http_server`` source against a real client (``requests``): batch runs and a stream killed
with SIGKILL and restarted from its checkpoint.

Ported from tremor-runtime ``tremor-cli/tests/integration/http`` (``mime_mapping`` with a
``*/*`` fallback; ``$http_server.request`` carrying method, uri, headers, protocol) and
``tremor-connectors/src/impls/http/server.rs`` (an empty body is a ``null`` event; request ids
start at 1; header names lower-cased, each with a list of values). Tremor's echo (a pipeline
answering on the server's ``in``) can not run on Spark: the direction check rejects it, tested
below. Expected values are written by hand.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, part_lines, start_stream
from tests.support.paths import ROOT
from tests.support.servers import net_peer
from tests.support.spark_cluster import free_port

SERVER_FLOW = """
define flow main
flow
  define connector web from http_server
  with codec = "json", preprocessors = ["separate"],
    config = {"url": @URL@, "mime_mapping": {"application/json": "json", "text/plain": "string",
              "*/*": {"name": "json", "config": {"mode": "sorted"}}}}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    select {"event": event, "request": $http_server.request, "id": $http_server.request_id}
    from in into out;
  end;
  create connector web; create connector out; create pipeline p;
  connect /connector/web to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow main;
"""


def post_until_up(url: str, **kwargs: Any) -> requests.Response:
    """The first request, retried until the job listens (Spark starts slowly)."""
    deadline = time.monotonic() + 180
    while True:
        try:
            return requests.post(url, timeout=60, **kwargs)
        except requests.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@pytest.mark.spark
def test_batch_decodes_bodies_with_request_metadata(spark, tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    module = build(SERVER_FLOW, URL=base, OUT=tmp_path / "out")
    run = RunContext(ingest_ns="index", ticks=5)
    thread = threading.Thread(target=run_flow, args=(spark, module.FLOW, module.run_pipeline, run))
    thread.start()
    answers = [
        post_until_up(f"{base}/one?x=1", json={"n": 1}, headers={"X-Tag": "a"}).status_code,
        requests.get(f"{base}/two", timeout=60).status_code,
        requests.put(f"{base}/three", data=b"hi", headers={"Content-Type": "text/plain"}),
        requests.post(f"{base}/bad", data=b"{no", headers={"Content-Type": "application/json"}),
        # no Content-Type: the `*/*` entry (json); `separate` makes two events of one body
        requests.post(f"{base}/four", data=b'{"n": 2}\n{"n": 3}\n'),
    ]
    thread.join(300)
    assert [a if isinstance(a, int) else a.status_code for a in answers] == [
        202,
        202,
        202,
        400,
        202,
    ]
    got = sorted(part_lines(tmp_path / "out"), key=lambda e: (e["id"], json.dumps(e["event"])))
    assert [(e["id"], e["event"]) for e in got] == [
        (1, {"n": 1}),
        (2, None),
        (3, "hi"),
        (5, {"n": 2}),
        (5, {"n": 3}),
    ]
    first = got[0]["request"]
    assert (first["method"], first["uri"], first["protocol"]) == ("POST", "/one?x=1", "http")
    assert first["version"] == "HTTP/1.1"
    assert first["headers"]["x-tag"] == ["a"]
    assert first["headers"]["content-type"] == ["application/json"]
    assert got[1]["request"]["method"] == "GET" and got[2]["request"]["method"] == "PUT"


def stream_job(tmp_path: Path, port: int) -> Path:
    text = SERVER_FLOW.replace("@URL@", json.dumps(f"http://127.0.0.1:{port}"))
    text = text.replace("@OUT@", json.dumps(str(tmp_path / "out")))
    (tmp_path / "flow.troy").write_text(text)
    job = tmp_path / "job.py"
    command = ["python3", "-m", "compiler", "build", str(tmp_path / "flow.troy"), "-o", str(job)]
    subprocess.run(command, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), **_env()})
    return job


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def send_numbers(base: str, numbers: range, acked: list[int], stop: threading.Event) -> None:
    """POST each number; record those answered 202 (until ``stop`` or a refused connection)."""
    session = requests.Session()
    for n in numbers:
        if stop.is_set():
            return
        try:
            answer = session.post(base, json={"n": n}, timeout=60)
        except requests.ConnectionError:
            return
        if answer.status_code == 202:
            acked.append(n)


@pytest.mark.spark
def test_stream_acknowledged_requests_survive_sigkill(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    job = stream_job(tmp_path, port)
    checkpoint, log = tmp_path / "ck", tmp_path / "job.log"
    acked: list[int] = []
    first = start_stream(job, checkpoint, log)
    try:
        assert post_until_up(base, json={"n": -1}).status_code == 202
        acked.append(-1)
        # Requests keep coming while the job is killed: what was answered 202 must survive.
        stop = threading.Event()
        sender = threading.Thread(target=send_numbers, args=(base, range(0, 400), acked, stop))
        sender.start()
        net_peer.wait_until(lambda: len(acked) > 150, 120, "150 acknowledged requests")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    stop.set()
    sender.join(60)
    second = start_stream(job, checkpoint, log)
    try:
        assert post_until_up(base, json={"n": 1000}).status_code == 202
        acked.append(1000)
        want = set(acked)
        net_peer.wait_until(
            lambda: want <= {e["event"]["n"] for e in part_lines(tmp_path / "out")},
            180,
            "every acknowledged event in the output",
        )
    finally:
        second.terminate()
        second.wait(60)
    got = [e["event"]["n"] for e in part_lines(tmp_path / "out")]
    # Exactly once: no event twice; every acknowledged one present (one in flight at the kill
    # may be present without its 202).
    assert len(got) == len(set(got)), log.read_text()[-3000:]
    assert set(acked) <= set(got)
    assert set(got) - set(acked) <= {max(acked[:-1]) + 1}
    # The metadata crossed the spool and the streaming query with each event.
    requests_seen = [e["request"] for e in part_lines(tmp_path / "out")]
    assert {(r["method"], r["uri"], r["protocol"]) for r in requests_seen} == {
        ("POST", "/", "http")
    }


ECHO = """define flow main flow
  define connector s from http_server with config = {"url": "http://127.0.0.1:1"} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /connector/s to /pipeline/p;
  connect /pipeline/p/out to /connector/s;
end; deploy flow main;"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ECHO, "The `http_server` connector is only a source in tremorc: an http_server is a"),
        (
            ECHO.replace('"http://127.0.0.1:1"', '"https://127.0.0.1:1", "tls": {"cert": "c"}'),
            "`tls`",
        ),
        (ECHO.replace('"http://127.0.0.1:1"', '"http://127.0.0.1:1", "port": 3'), "`port`"),
    ],
)
def test_compile_errors(text: str, message: str) -> None:
    with pytest.raises(CompileError) as err:
        compile_source(Source("t.troy", text), "deploy")
    assert message in str(err.value)


def test_answered_only_once_spooled(tmp_path: Path) -> None:
    """No Spark: the server on a real spool. A 202 means the events are in a synced segment;
    chunked bodies are read; without a mapped Content-Type and without a `codec` the body is
    `binary` (Tremor's fallback)."""
    from runtime_support.io.connectors.base import ConnectorSpec
    from runtime_support.io.connectors.net.datasource import Spool, spool_end, spool_rows
    from runtime_support.io.connectors.net.http_server import HttpServerSource
    from runtime_support.tremor.event_meta import decode_meta

    port = free_port()
    config = {"url": f"http://127.0.0.1:{port}"}
    source = HttpServerSource(ConnectorSpec("s", "http_server", {"config": config}))
    spool, stop = Spool(str(tmp_path / "spool")), threading.Event()
    threading.Thread(target=source.serve, args=(spool.put, stop), daemon=True).start()
    net_peer.wait_until(lambda: net_peer.bound("tcp", port), 30, "the http_server")
    try:
        url = f"http://127.0.0.1:{port}/in"
        chunks = iter([b'{"a": ', b"1}"])
        headers = {"Content-Type": "application/json"}
        assert requests.post(url, data=chunks, headers=headers, timeout=30).status_code == 202
        assert spool_end(str(tmp_path / "spool")) == 1  # on disk before the answer
        assert requests.post(url, data=b"\x00raw", timeout=30).status_code == 202
        assert spool_end(str(tmp_path / "spool")) == 2
    finally:
        stop.set()
    rows = spool_rows(str(tmp_path / "spool"), 0, 2, True, "o", meta=True)
    assert [(r[0], json.loads(r[1])) for r in rows] == [(0, {"a": 1}), (1, "AHJhdw==")]
    metas = [decode_meta(r[4])["http_server"] for r in rows]
    assert [m["request_id"] for m in metas] == [1, 2]
    assert metas[0]["request"]["headers"]["transfer-encoding"] == ["chunked"]
