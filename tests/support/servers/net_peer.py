"""A real socket peer for the network connector tests: ``python -m tests.support.servers.net_peer
tcp|udp|http PORT_FILE OUT_FILE`` binds 127.0.0.1 on a free port, writes the port to PORT_FILE
(moved in whole), and records what it receives to OUT_FILE until it is killed.

TCP: every connection's bytes are appended to OUT_FILE when the connection closes (one
connection's bytes are never interleaved with another's). UDP: each datagram is appended as one
line ``<hex of the datagram>``. HTTP (``http.server``): see :func:`serve_http`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from tests.support.servers.process import stop_process


def _publish(port_file: str, port: int) -> None:
    with open(port_file + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(str(port))
    os.replace(port_file + ".tmp", port_file)


def _record(out_file: str, data: bytes, lock: threading.Lock) -> None:
    with lock, open(out_file, "ab") as handle:
        handle.write(data)
        handle.flush()


def serve_tcp(port_file: str, out_file: str) -> None:
    lock = threading.Lock()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        _publish(port_file, sock.getsockname()[1])
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=_connection, args=(conn, out_file, lock), daemon=True).start()


def _connection(conn: socket.socket, out_file: str, lock: threading.Lock) -> None:
    chunks = []
    with conn:
        while data := conn.recv(65536):
            chunks.append(data)
    _record(out_file, b"".join(chunks), lock)


def serve_udp(port_file: str, out_file: str) -> None:
    lock = threading.Lock()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * 1024 * 1024)
        sock.bind(("127.0.0.1", 0))
        _publish(port_file, sock.getsockname()[1])
        sock.settimeout(0.05)
        pending: list[bytes] = []
        while True:  # recorded in bursts: a write per datagram would drop datagrams
            try:
                pending.append(sock.recv(65536).hex().encode() + b"\n")
                if len(pending) < 1000:
                    continue
            except TimeoutError:
                pass
            if pending:
                _record(out_file, b"".join(pending), lock)
                pending.clear()


def serve_http(port_file: str, out_file: str) -> None:
    """Every request as one JSON line ``{method, path, headers, body}`` (``body`` as text);
    the answer is 200, or 500 for a path that contains ``fail``."""
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    lock = threading.Lock()

    class Recorder(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms ACK wait

        def _any(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            record = {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("utf-8", "replace"),
            }
            _record(out_file, json.dumps(record).encode() + b"\n", lock)
            status = 500 if "fail" in self.path else 200
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    _publish(port_file, server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    kind, port_file, out_file = sys.argv[1:4]
    {"tcp": serve_tcp, "udp": serve_udp, "http": serve_http}[kind](port_file, out_file)


# Test-side helpers ------------------------------------------------------------------------------


def start(kind: str, folder: str) -> tuple[subprocess.Popen, int, str]:
    """Start a peer (``tcp``/``udp``) recording into ``folder``: ``(process, port, out_file)``;
    stop it with :func:`stop`."""
    port_file = os.path.join(folder, f"{kind}-peer.port")
    out_file = os.path.join(folder, f"{kind}-peer.out")
    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    env = {**os.environ, "PYTHONPATH": root}
    command = [sys.executable, "-m", "tests.support.servers.net_peer", kind, port_file, out_file]
    process = subprocess.Popen(command, env=env, cwd=root)
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError(f"the {kind} peer did not start")
        time.sleep(0.05)
    with open(port_file, encoding="utf-8") as handle:
        return process, int(handle.read()), out_file


def stop(process: subprocess.Popen) -> None:
    """Stop a peer by its PID (killed after 10 s)."""
    stop_process(process, timeout=10)


def bound(kind: str, port: int) -> bool:
    """Is a socket of ``kind`` bound (UDP) or listening (TCP) on 127.0.0.1:``port``?"""
    table = "/proc/net/udp" if kind == "udp" else "/proc/net/tcp"
    want = f"0100007F:{port:04X}"
    with open(table, encoding="ascii") as handle:
        rows = [line.split() for line in handle.readlines()[1:]]
    listening = "07" if kind == "udp" else "0A"
    return any(row[1] == want and row[3] == listening for row in rows)


def wait_until(check: Any, timeout: float, what: str, log: Any = None) -> None:
    """Poll ``check()`` every 50 ms until it is true; AssertionError naming ``what`` after
    ``timeout`` seconds, with the tail of the file ``log`` (a job's output) when given."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            tail = ""
            if log is not None and os.path.exists(log):
                with open(log, encoding="utf-8", errors="replace") as handle:
                    tail = "\n" + handle.read()[-4000:]
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{tail}")
        time.sleep(0.05)
