"""A real websocket server (the ``websockets`` library) for the ws_client tests:
``python -m tests.support.servers.ws_peer PORT_FILE OUT_FILE`` listens on 127.0.0.1 on a free port,
writes the port to PORT_FILE (moved in whole) and appends one JSON line per frame it received,
``{"conn": n, "binary": bool, "data": text or hex}``, in bursts of up to 1000 frames of one
connection (the first frame of the first connection at once; the rest when the connection
closes): each connection's frames in order; it runs until it is killed.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

from tests.support.servers.net_peer import _publish, _record, stop


def serve_ws(port_file: str, out_file: str) -> None:
    from websockets.sync.server import serve

    lock = threading.Lock()
    numbers = itertools.count()

    def handler(conn: Any) -> None:
        number, lines = next(numbers), []
        early = number == 0  # the first frame of the first connection is recorded at once
        for message in conn:
            binary = isinstance(message, bytes)
            data = message.hex() if binary else message
            lines.append(json.dumps({"conn": number, "binary": binary, "data": data}) + "\n")
            if len(lines) >= 1000 or early:
                _record(out_file, "".join(lines).encode(), lock)
                lines.clear()
                early = False
        _record(out_file, "".join(lines).encode(), lock)

    with serve(handler, "127.0.0.1", 0, compression=None, max_size=None) as server:
        _publish(port_file, server.socket.getsockname()[1])
        server.serve_forever()


def frames(out_file: str) -> list[dict[str, Any]]:
    """The recorded frames, connection by connection."""
    with open(out_file, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def start(folder: str) -> tuple[subprocess.Popen, int, str]:
    """Start the peer recording into ``folder``: ``(process, port, out_file)``; stop it with
    :func:`stop` (by its PID)."""
    port_file, out_file = os.path.join(folder, "ws-peer.port"), os.path.join(folder, "ws-peer.out")
    root = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    command = [sys.executable, "-m", "tests.support.servers.ws_peer", port_file, out_file]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": root}, cwd=root)
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError("the websocket peer did not start")
        time.sleep(0.05)
    with open(port_file, encoding="utf-8") as handle:
        return process, int(handle.read()), out_file


__all__ = ["frames", "start", "stop"]

if __name__ == "__main__":
    serve_ws(*sys.argv[1:3])
