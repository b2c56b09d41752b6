"""``udp_server`` (source) and ``udp_client`` (sink).

Server: one socket bound on the driver at ``config.url``; each datagram (up to ``buf_size``
bytes) goes through the preprocessors (a datagram without ``separate`` is one event) and the
codec. Client: each executor partition sends from one socket, optionally bound to
``config.bind``, one datagram per encoded, post-processed event.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.datasource import Emit, NetSinkBase, ServerSource, parse_url

POLL_S = 0.2  # how often a listener checks that it should stop


class UdpServerSource(ServerSource):
    """Datagrams received on ``url`` (see the module doc)."""

    scheme = "udp-server"

    def bind(self) -> socket.socket:
        sock = socket.socket(_family(self.host), socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * 1024 * 1024)
        sock.bind((self.host, self.port))
        sock.settimeout(POLL_S)
        return sock

    def serve(self, emit: Emit, stop: threading.Event) -> None:
        with self.bind() as sock:
            decoder = self.decoder()
            while not stop.is_set():
                try:
                    data = sock.recv(max(self.buf_size, 65535))
                except TimeoutError:
                    continue
                emit(decoder.feed(data) + decoder.finish())


class UdpClientSink(NetSinkBase):
    """One datagram per event to ``url`` (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        self.peer = parse_url(spec.config.get("url"), spec.alias, "url")
        bind = spec.config.get("bind")
        self.bind = None if bind is None else parse_url(bind, spec.alias, "bind")
        self.reuseport = bool((spec.config.get("socket_options") or {}).get("SO_REUSEPORT"))

    def connect(self) -> Any:
        sock = socket.socket(_family(self.peer[0]), socket.SOCK_DGRAM)
        if self.reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if self.bind is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(self.bind)
        sock.connect(self.peer)
        return _Datagrams(sock)


class _Datagrams:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, data: bytes) -> None:
        self.sock.send(data)

    def close(self) -> None:
        self.sock.close()


def _family(host: str) -> int:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
