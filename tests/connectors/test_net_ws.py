"""The ``ws_server`` source and ``ws_client`` sink against real websocket peers (the
``websockets`` library: a server in a subprocess, clients in the test's threads).

Ported from tremor-runtime ``tremor-cli/tests/integration/ws``: events read from a file go
file → ws_client → ws_server → file and arrive complete and unchanged (json codec, one frame per
event, no processors). Tremor's ws_server answering on its connections (a pipeline connected to
its ``in``) can not run on Spark: the direction check rejects it, tested below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, part_lines, serve_in_thread
from tests.support.servers import net_peer
from tests.support.spark_cluster import free_port

websockets = pytest.importorskip(
    "websockets", reason="the websockets library is absent: run .ci/install.d/ws.sh"
)
from tests.support.servers import ws_peer  # noqa: E402

SERVER_FLOW = """
define flow server
flow
  define connector server from ws_server
  with codec = "json", config = {"url": @URL@, "backlog": 16}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector server; create connector out; create pipeline p;
  connect /connector/server to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow server;
"""

CLIENT_FLOW = """
define flow client
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector client from ws_client
  with codec = "json", config = {"url": @URL@, "socket_options": {"TCP_NODELAY": true}}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector src; create connector client; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/client;
end;
deploy flow client;
"""

# Events shaped as Tremor's integration test input (nested records, arrays, bools, unicode).
EVENTS = [
    {"aint": n, "abool": n % 2 == 0, "tags": [f"tag{n % 5}", "tag1"], "about": f"ünïcode {n}"}
    for n in range(25)
]


def write_events(path: Path) -> None:
    import json

    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))


def start_server(spark: Any, flow: str, out: Path, ticks: int) -> tuple[Any, int]:
    """A batch flow's ws_server listening on a free port until ``ticks`` events arrived: its
    thread (join it) and port."""
    port = free_port()
    thread = serve_in_thread(spark, build(flow, URL=f"127.0.0.1:{port}", OUT=out), ticks)
    net_peer.wait_until(lambda: net_peer.bound("tcp", port), 120, "the ws_server")
    return thread, port


@pytest.mark.spark
def test_client_sends_one_text_frame_per_event(spark, tmp_path: Path) -> None:
    import json

    write_events(tmp_path / "in.json")
    peer, port, out = ws_peer.start(str(tmp_path))
    try:
        url = f"ws://127.0.0.1:{port}/"
        module = build(CLIENT_FLOW, IN=tmp_path / "in.json", URL=url)
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
        net_peer.wait_until(lambda: Path(out).exists(), 30, "the peer's frames")
    finally:
        ws_peer.stop(peer)
    got = ws_peer.frames(out)
    # One partition (a small file): one connection, one text frame per event, in order.
    assert {f["conn"] for f in got} == {0} and not any(f["binary"] for f in got)
    assert [json.loads(f["data"]) for f in got] == EVENTS


@pytest.mark.spark
def test_server_reads_text_and_binary_frames(spark, tmp_path: Path) -> None:
    from websockets.sync.client import connect

    thread, port = start_server(spark, SERVER_FLOW, tmp_path / "out", 5)
    with connect(f"ws://127.0.0.1:{port}") as one, connect(f"ws://127.0.0.1:{port}/x") as two:
        one.send('{"c": 1, "i": 0}')
        two.send(b'{"c": 2, "i": 0}')  # a binary frame: the same bytes, the same event
        one.ping()
        one.send("not json")  # the codec rejects it: reported, no event
        two.send('{"c": 2, "i": 1}')
        one.send('{"c": 1, "i": 1}')
        two.send('{"c": 2, "i": 2}')
        thread.join(300)
    got = sorted((e["c"], e["i"]) for e in part_lines(tmp_path / "out"))
    assert got == [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]


@pytest.mark.spark
def test_client_to_server(spark, tmp_path: Path) -> None:
    write_events(tmp_path / "in.json")
    thread, port = start_server(spark, SERVER_FLOW, tmp_path / "out", len(EVENTS))
    client = build(CLIENT_FLOW, IN=tmp_path / "in.json", URL=f"ws://127.0.0.1:{port}/")
    run_flow(spark, client.FLOW, client.run_pipeline, RunContext(ingest_ns="index"))
    thread.join(300)
    # Tremor's expected.json: every event of in.json, unchanged.
    assert sorted(part_lines(tmp_path / "out"), key=lambda e: e["aint"]) == EVENTS


@pytest.mark.spark
def test_stream_server_to_client(tmp_path: Path) -> None:
    """A streaming job (``--stream``): frames a ws_server receives reach a ws_client."""
    import json
    import os
    import subprocess
    import sys

    from websockets.sync.client import connect

    from tests.support.paths import ROOT

    flow = SERVER_FLOW.replace("from file", "from ws_client", 1).replace(
        'postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}',
        'config = {"url": @PEER@}',
    )
    peer, peer_port, out = ws_peer.start(str(tmp_path))
    port = free_port()
    text = flow.replace("@URL@", json.dumps(f"127.0.0.1:{port}"))
    (tmp_path / "flow.troy").write_text(
        text.replace("@PEER@", json.dumps(f"ws://127.0.0.1:{peer_port}"))
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    build_cmd = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
    subprocess.run([*build_cmd, "-o", str(tmp_path / "job.py")], check=True, env=env, cwd=ROOT)
    command = [sys.executable, str(tmp_path / "job.py"), "--stream", "--checkpoint"]
    command += [str(tmp_path / "ck"), "--trigger", "500ms"]
    with open(tmp_path / "job.log", "ab") as log:
        job = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        net_peer.wait_until(
            lambda: net_peer.bound("tcp", port),
            180,
            "the streaming ws_server",
            tmp_path / "job.log",
        )
        with connect(f"ws://127.0.0.1:{port}") as client:
            for n in range(30):
                client.send(str(n))
        net_peer.wait_until(
            lambda: Path(out).exists() and len(ws_peer.frames(out)) >= 30 or job.poll() is not None,
            180,
            "30 frames at the peer",
            tmp_path / "job.log",
        )
    finally:
        died = job.poll() is not None
        job.terminate()
        job.wait(60)
        ws_peer.stop(peer)
    assert not died, (tmp_path / "job.log").read_text()[-4000:]
    got = sorted(int(f["data"]) for f in ws_peer.frames(out))
    assert got == list(range(30)), (tmp_path / "job.log").read_text()[-3000:]


ECHO = """define flow main flow
  define connector s from ws_server with config = {"url": "127.0.0.1:1"} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /connector/s to /pipeline/p;
  connect /pipeline/p/out to /connector/s;
end; deploy flow main;"""

RESPONSES = ECHO.replace("ws_server", "ws_client").replace(
    "  connect /pipeline/p/out to /connector/s;\n", ""
)

TLS = """define flow main flow
  define connector s from ws_server with config = {"url": "127.0.0.1:1", "tls": {}} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /connector/s to /pipeline/p;
end; deploy flow main;"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ECHO, "The `ws_server` connector is only a source in tremorc: a ws_server is a"),
        (RESPONSES, "The `ws_client` connector is only a sink in tremorc: a ws_client is a"),
        (TLS, "Config key `tls` of connector `ws_server` is not supported by tremorc"),
        (
            RESPONSES.replace("127.0.0.1:1", "wss://127.0.0.1:1"),
            "`url` must be a `ws://` URL, not 'wss://127.0.0.1:1' (TLS is not implemented",
        ),
        (ECHO.replace('"127.0.0.1:1"', '"localhost"'), "`url` must be `host:port`"),
    ],
)
def test_compile_errors(text: str, message: str) -> None:
    from compiler.diagnostics import CompileError

    with pytest.raises(CompileError) as err:
        compile_source(Source("t.troy", text), "deploy")
    assert message in str(err.value)


@pytest.mark.long
@pytest.mark.spark
def test_100k_events_through_ws_server_and_ws_client() -> None:
    """100k events each way (``-m long``; benchmarks/connector_ws.py prints the figures)."""
    from benchmarks.connector_ws import run

    results = {r["connector"]: r for r in run(100_000)}
    assert results["ws_server"]["events"] == 100_000, results["ws_server"]
    assert results["ws_client"]["events"] == 100_000, results["ws_client"]
    assert all(r["first_event_s"] is not None for r in results.values())


META_FLOW = SERVER_FLOW.replace(
    "select event from in into out", 'select {"c": event.c, "meta": $ws_server} from in into out'
)

BINARY_FLOW = CLIENT_FLOW.replace(
    "define pipeline p pipeline select event from in into out; end;",
    """define pipeline p
  pipeline
    define script mark script let $binary = event.abool; event end;
    create script mark;
    select event from in into mark;
    select event from mark into out;
  end;""",
)


@pytest.mark.spark
def test_server_events_carry_their_connection(spark, tmp_path: Path) -> None:
    """Tremor's ws.rs: each connection's events carry ``$ws_server`` = ``{tls, peer}``."""
    from websockets.sync.client import connect

    assert META_FLOW != SERVER_FLOW
    thread, port = start_server(spark, META_FLOW, tmp_path / "out", 2)
    with connect(f"ws://127.0.0.1:{port}") as one, connect(f"ws://127.0.0.1:{port}") as two:
        # read before sending: once the flow has its two events it may close both sockets
        ports = {1: one.local_address[1], 2: two.local_address[1]}
        one.send('{"c": 1}')
        two.send('{"c": 2}')
        thread.join(300)
    got = {e["c"]: e["meta"] for e in part_lines(tmp_path / "out")}
    peer = {"tls": False, "peer": {"host": "127.0.0.1", "port": 0}}
    assert got == {c: {**peer, "peer": {"host": "127.0.0.1", "port": p}} for c, p in ports.items()}


@pytest.mark.spark
def test_client_sends_binary_frames_when_meta_binary(spark, tmp_path: Path) -> None:
    """Tremor's ``ws_client_binary_routing``: ``$binary`` true sends a binary frame (the same
    encoded bytes), otherwise a text frame."""
    import json

    assert BINARY_FLOW != CLIENT_FLOW
    write_events(tmp_path / "in.json")
    peer, port, out = ws_peer.start(str(tmp_path))
    try:
        module = build(BINARY_FLOW, IN=tmp_path / "in.json", URL=f"ws://127.0.0.1:{port}/")
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
        net_peer.wait_until(lambda: Path(out).exists(), 30, "the peer's frames")
    finally:
        ws_peer.stop(peer)
    got = ws_peer.frames(out)
    assert [f["binary"] for f in got] == [n % 2 == 0 for n in range(len(EVENTS))]
    texts = [bytes.fromhex(f["data"]).decode() if f["binary"] else f["data"] for f in got]
    assert [json.loads(t) for t in texts] == EVENTS


def test_short_connections_keep_their_frames_and_peer() -> None:
    """A client that sends its frames and closes before the server's handler runs (likely when
    the CPU is contended, as on CI) loses nothing: every frame is an event carrying its own
    connection's peer. Three busy processes contend for the CPU; the test kills them by PID."""
    import json
    import subprocess
    import sys
    import threading

    from websockets.sync.client import connect

    from runtime_support.io.connectors.base import ConnectorSpec
    from runtime_support.io.connectors.net.ws import WsServerSource

    port = free_port()
    config = {"codec": "string", "config": {"url": f"127.0.0.1:{port}"}}
    source = WsServerSource(ConnectorSpec("server::in", "ws_server", config))
    events: list[str] = []
    lock, stop = threading.Lock(), threading.Event()

    def emit(chunk: list[str]) -> None:
        with lock:
            events.extend(chunk)

    server = threading.Thread(target=source.serve, args=(emit, stop))
    server.start()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    sent = {}
    try:
        net_peer.wait_until(lambda: net_peer.bound("tcp", port), 30, "the ws_server")
        for n in range(100):
            with connect(f"ws://127.0.0.1:{port}") as client:
                for k in range(10):
                    client.send(f"{n}.{k}")
                    sent[f'"{n}.{k}"'] = client.local_address[1]
        net_peer.wait_until(lambda: len(events) >= len(sent), 30, f"{len(sent)} events")
    finally:
        for process in busy:
            process.kill()
            process.wait()
        stop.set()
        server.join()
    peers = {}
    for line in events:
        text, meta = line.split("\t")
        peers[text] = json.loads(meta)["ws_server"]["peer"]
    assert len(events) == len(sent)
    assert peers == {text: {"host": "127.0.0.1", "port": peer} for text, peer in sent.items()}
