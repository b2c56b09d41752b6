"""The ``udp_server`` source and ``udp_client`` sink against real sockets: datagrams sent by the
test to a flow's server (batch, and a stream killed with SIGKILL and restarted from its
checkpoint), a flow's client sending to a peer process that records every datagram.

Ported from tremor-runtime ``tremor-cli/tests/integration/udp-postprocessors``: in.json →
udp_client → a udp_server's peer, one datagram per event, encoded and post-processed (there:
yaml + base64; here json + separate and string + base64-free framing, the codecs tremorc has).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, free_udp_port, part_lines, start_stream
from tests.support.paths import ROOT
from tests.support.servers import net_peer

SERVER_FLOW = """
define flow main
flow
  define connector udp_in from udp_server
  with codec = "json", preprocessors = ["separate"], config = {"url": @URL@}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    select {"n": event.n, "twice": event.n * 2} from in into out;
  end;
  create connector udp_in; create connector out; create pipeline p;
  connect /connector/udp_in to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow main;
"""

CLIENT_FLOW = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector udp_out from udp_client
  with codec = "json", postprocessors = ["separate"], config = {"url": @URL@}
  end;
  define pipeline p
  pipeline
    select event from in where event.keep into out;
  end;
  create connector src; create connector udp_out; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/udp_out;
end;
deploy flow main;
"""


def send(port: int, *datagrams: bytes) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for datagram in datagrams:
            sock.sendto(datagram, ("127.0.0.1", port))


ERR_FLOW = SERVER_FLOW.replace(
    "  define pipeline p\n",
    """  define connector bad from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @ERR@, "mode": "truncate"}
  end;
  define pipeline errs pipeline select event from in into out; end;
  define pipeline p
""",
).replace(
    "create connector udp_in;",
    """create connector bad; create pipeline errs;
  connect /connector/udp_in/err to /pipeline/errs; connect /pipeline/errs to /connector/bad;
  create connector udp_in;""",
)


@pytest.mark.spark
def test_server_batch_reads_ticks_events(spark, tmp_path: Path) -> None:
    """``--ticks 4``: the first four events; the chunk the codec rejects is no event, and goes to
    the connector's ``err`` port with the reason (Tremor's connectors send codec errors there)."""
    assert ERR_FLOW != SERVER_FLOW
    port = free_udp_port()
    module = build(ERR_FLOW, URL=f"127.0.0.1:{port}", OUT=tmp_path / "out", ERR=tmp_path / "err")

    def sender() -> None:
        net_peer.wait_until(lambda: net_peer.bound("udp", port), 120, "the udp_server")
        # `separate` splits a datagram; a last line without separator is still an event.
        send(port, b'{"n": 1}\n{"n": 2}\n', b'{"n": 3}', b"not json\n", b'{"n": 4}\n{"n": 5}\n')

    thread = threading.Thread(target=sender)
    thread.start()
    ctx = RunContext(ingest_ns="index", ticks=4)
    assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    thread.join()
    got = sorted(part_lines(tmp_path / "out"), key=lambda e: e["n"])
    # Datagrams arrive in order on loopback: the first 4 events, the bad chunk on `err`.
    assert got == [{"n": n, "twice": 2 * n} for n in (1, 2, 3, 4)]
    [bad] = part_lines(tmp_path / "err")
    assert bad["event"] == "not json" and bad["error"].startswith("Invalid JSON input: ")


@pytest.mark.spark
def test_client_sends_one_datagram_per_event(spark, tmp_path: Path) -> None:
    events = [{"id": i, "keep": i % 3 != 0, "text": "x" * i} for i in range(30)]
    (tmp_path / "in.json").write_text("".join(json.dumps(e) + "\n" for e in events))
    peer, port, out = net_peer.start("udp", str(tmp_path))
    try:
        module = build(CLIENT_FLOW, IN=tmp_path / "in.json", URL=f"127.0.0.1:{port}")
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
        want = [e for e in events if e["keep"]]
        net_peer.wait_until(
            lambda: Path(out).exists() and len(Path(out).read_text().split()) >= len(want),
            60,
            "the datagrams",
        )
    finally:
        net_peer.stop(peer)
    datagrams = [bytes.fromhex(h) for h in Path(out).read_text().split()]
    # Each datagram is exactly one event, json-encoded, then `separate`'s newline.
    assert all(d.endswith(b"\n") and d.count(b"\n") == 1 for d in datagrams)
    got = [json.loads(d) for d in datagrams]
    assert sorted(got, key=lambda e: e["id"]) == want


def job_file(tmp_path: Path, port: int) -> Path:
    text = SERVER_FLOW.replace("@URL@", json.dumps(f"127.0.0.1:{port}"))
    text = text.replace("@OUT@", json.dumps(str(tmp_path / "out")))
    (tmp_path / "flow.troy").write_text(text)
    job = tmp_path / "job.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
    subprocess.run([*command, "-o", str(job)], check=True, env=env, cwd=ROOT)
    return job


def send_until_seen(port: int, folder: Path, numbers: range, process: subprocess.Popen) -> None:
    """Send each number once the server is bound; wait until the output holds all of them."""
    net_peer.wait_until(lambda: net_peer.bound("udp", port), 180, "the streaming udp_server")
    send(port, *(json.dumps({"n": n}).encode() + b"\n" for n in numbers))
    want = set(numbers)
    net_peer.wait_until(
        lambda: want <= {e["n"] for e in part_lines(folder)} or process.poll() is not None,
        180,
        f"events {numbers} in the output",
    )
    assert process.poll() is None, "the streaming job ended"


@pytest.mark.spark
def test_stream_survives_sigkill_and_restart(tmp_path: Path) -> None:
    port = free_udp_port()
    job = job_file(tmp_path, port)
    checkpoint, log = tmp_path / "ck", tmp_path / "job.log"
    first = start_stream(job, checkpoint, log)
    try:
        send_until_seen(port, tmp_path / "out", range(0, 20), first)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    second = start_stream(job, checkpoint, log)
    try:
        send_until_seen(port, tmp_path / "out", range(20, 35), second)
    finally:
        second.terminate()
        second.wait(60)
    got = sorted(e["n"] for e in part_lines(tmp_path / "out"))
    # Every event received exactly once: file part files are replaced on a replay, and the
    # spool under the checkpoint keeps what was received but not yet committed.
    assert got == list(range(35)), log.read_text()[-3000:]
    spool = list((checkpoint / "spool" / "main__udp_in").iterdir())
    assert len(spool) >= 1  # the newest segment stays: it fixes the next seq


BAD_FLOWS = {
    "a source": (
        """define flow main flow
  define connector s from udp_server with config = {"url": "127.0.0.1:1"} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /pipeline/p/out to /connector/s;
end; deploy flow main;""",
        "The `udp_server` connector is only a source in tremorc",
    ),
    "socket options": (
        """define flow main flow
  define connector s from udp_server
  with config = {"url": "127.0.0.1:1", "socket_options": {"SO_RCVBUF": 4}} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /connector/s to /pipeline/p;
end; deploy flow main;""",
        "Socket option `SO_RCVBUF` of `udp_server` is not supported",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FLOWS))
def test_compile_errors(case: str) -> None:
    from compiler.diagnostics import CompileError

    text, message = BAD_FLOWS[case]
    with pytest.raises(CompileError, match=message.replace("`", ".")):
        compile_source(Source("t.troy", text), "deploy")
