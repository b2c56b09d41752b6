"""``tcp_server`` (source) and ``tcp_client`` (sink).

Server: listens on the driver at ``config.url`` (``backlog``); each connection's byte stream is
framed on its own by the preprocessors (with ``separate`` a line may span reads; without it each
read of up to ``buf_size`` bytes is one event, as in Tremor) and decoded. Client: each executor
partition opens one connection to ``config.url`` and writes the encoded, post-processed events
back to back, in emission order (``TCP_NODELAY`` honoured).
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.datasource import Emit, NetSinkBase, ServerSource, parse_url
from runtime_support.io.connectors.net.udp import POLL_S, _family
from runtime_support.tremor.event_meta import encode_meta


class TcpServerSource(ServerSource):
    """Connections accepted on ``url`` (see the module doc)."""

    scheme = "tremor-tcp-server"
    has_meta = True

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        self.backlog = int(spec.config.get("backlog", 128))

    def listener(self) -> socket.socket:
        """The bound, listening socket."""
        sock = socket.socket(_family(self.host), socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((self.host, self.port))
        sock.listen(self.backlog)
        return sock

    def serve(self, emit: Emit, stop: threading.Event) -> None:
        with self.listener() as sock:
            sock.settimeout(POLL_S)
            while not stop.is_set():
                try:
                    conn, peer = sock.accept()
                except TimeoutError:
                    continue
                args = (conn, emit, stop, self.connection_meta(peer))
                threading.Thread(target=self._connection, args=args, daemon=True).start()

    def connection_meta(self, peer: Any) -> str:
        """The ``meta`` text of a connection's events: ``$tcp_server`` as Tremor sets it."""
        host, port = peer[0], peer[1]
        return encode_meta({"tcp_server": {"tls": False, "peer": {"host": host, "port": port}}})

    def _connection(
        self, conn: socket.socket, emit: Emit, stop: threading.Event, meta: str
    ) -> None:
        decoder = self.decoder()
        conn.settimeout(POLL_S)
        with conn:
            while not stop.is_set():
                try:
                    data = conn.recv(self.buf_size)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                emit(self.tagged(decoder.feed(data), meta))
            emit(self.tagged(decoder.finish(), meta))


class TcpClientSink(NetSinkBase):
    """Events written to a connection to ``url`` (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        self.peer = parse_url(spec.config.get("url"), spec.alias, "url")
        options = spec.config.get("socket_options") or {}
        self.nodelay = bool(options.get("TCP_NODELAY", True))

    def connect(self) -> Any:
        sock = socket.create_connection(self.peer, timeout=30)
        if self.nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Stream(sock)


class _Stream:
    """Buffers small writes into ~64 KiB sends; ``close`` sends the rest."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, bytearray()

    def send(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= 65536:
            self.sock.sendall(self.buffer)
            self.buffer.clear()

    def close(self) -> None:
        try:
            if self.buffer:
                self.sock.sendall(self.buffer)
            self.sock.shutdown(socket.SHUT_WR)
        finally:
            self.sock.close()
