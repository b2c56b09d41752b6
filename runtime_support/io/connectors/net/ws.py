"""``ws_server`` (source) and ``ws_client`` (sink) on the ``websockets`` library.

Server: listens on the driver at ``config.url`` (``backlog``, ``socket_options``); every text or
binary frame of a connection goes through that connection's preprocessors (without ``separate``
one frame is one event, as in Tremor) and the codec; ping/pong and close frames carry no event.
Events get ``$ws_server`` = ``{"tls": false, "peer": {"host", "port"}}`` of their connection.
Client: each executor partition opens one connection to ``config.url`` and sends every encoded,
post-processed chunk as one frame, in emission order: binary when the event's ``$binary`` is true,
else text (Tremor's ``ws_client``); a chunk that is not UTF-8 cannot be a text frame: it is
reported on stderr and not sent (Tremor fails the event).
"""

from __future__ import annotations

import socket
import sys
import threading
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.datasource import Emit, NetSinkBase, parse_url
from runtime_support.io.connectors.net.tcp import TcpServerSource
from runtime_support.io.connectors.net.udp import POLL_S
from runtime_support.tremor.event_meta import encode_meta

#: Largest message either side accepts (tungstenite's default ``max_message_size``: 64 MiB).
MAX_MESSAGE = 64 << 20


class WsServerSource(TcpServerSource):
    """A websocket server on ``url`` (see the module doc)."""

    scheme = "tremor-ws-server"

    def serve(self, emit: Emit, stop: threading.Event) -> None:
        from websockets.sync.server import serve

        def handler(conn: Any) -> None:
            self._connection(conn, emit, stop, self.connection_meta(conn.peer))

        server = serve(
            handler,
            sock=self.listener(),
            compression=None,
            max_size=MAX_MESSAGE,
            create_connection=peer_connection_class(),
        )
        with server:
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            while not stop.wait(POLL_S):
                pass
            server.shutdown()
            thread.join()

    def connection_meta(self, peer: Any) -> str:
        """The ``meta`` text of a connection's events: ``$ws_server`` as Tremor sets it."""
        host, port = peer[0], peer[1]
        return encode_meta({"ws_server": {"tls": False, "peer": {"host": host, "port": port}}})

    def _connection(self, conn: Any, emit: Emit, stop: threading.Event, meta: str) -> None:  # type: ignore[override]
        """One connection's frames, in order, until the peer closes or the source stops."""
        from websockets.exceptions import ConnectionClosed

        decoder = self.decoder()
        while not stop.is_set():
            try:
                message = conn.recv(timeout=POLL_S)
            except TimeoutError:
                continue
            except ConnectionClosed:
                break
            data = message.encode() if isinstance(message, str) else message
            emit(self.tagged(decoder.feed(data), meta))
        emit(self.tagged(decoder.finish(), meta))


def peer_connection_class() -> type:
    """A ``ServerConnection`` that keeps its peer's address from the moment it is accepted.

    The library's ``remote_address`` asks the socket each time; once a client has sent its
    frames and closed, the library may have shut the socket down before the handler runs, and
    the question fails (ENOTCONN) although the frames are still buffered."""
    from websockets.sync.server import ServerConnection

    class PeerConnection(ServerConnection):
        def __init__(self, sock: socket.socket, *args: Any, **kwargs: Any) -> None:
            self.peer = sock.getpeername()
            super().__init__(sock, *args, **kwargs)

    return PeerConnection


class WsClientSink(NetSinkBase):
    """Events sent as text, or with ``$binary`` true binary, frames over a connection to
    ``url`` (see the module doc)."""

    reads_meta = True

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        self.url = ws_url(spec.config.get("url"), spec.alias)
        self.peer = parse_url(self.url, spec.alias, "url")
        options = spec.config.get("socket_options") or {}
        self.nodelay = bool(options.get("TCP_NODELAY", True))

    def frame_meta(self, meta: dict[str, Any]) -> bool:
        """Tremor's client (ws.rs ``WsWriter::write``): a binary frame when ``$binary`` is
        true, else a text frame."""
        return meta.get("binary") is True

    def connect(self) -> Any:
        from websockets.sync.client import connect

        sock = socket.create_connection(self.peer, timeout=30)
        if self.nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = connect(self.url, sock=sock, compression=None, max_size=MAX_MESSAGE, proxy=None)
        return _TextFrames(conn, self.alias)


def ws_url(url: Any, alias: str) -> str:
    """``ws://host:port[/path]`` (``host:port`` alone means ``ws://``); ``wss`` is rejected."""
    text = url if isinstance(url, str) else ""
    if "://" not in text:
        text = "ws://" + text
    if not text.startswith("ws://"):
        raise ValueError(
            f"Invalid config for connector `{alias}`: `url` must be a `ws://` URL, not {url!r} "
            "(TLS is not implemented: terminate it in front of the peer)"
        )
    return text


class _TextFrames:
    """``send`` one chunk as one text (or binary) frame; ``close`` runs the closing handshake."""

    def __init__(self, conn: Any, alias: str) -> None:
        self.conn, self.alias = conn, alias

    def send(self, data: bytes, binary: bool = False) -> None:
        if binary:
            self.conn.send(data)
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            print(f"Error: {self.alias}: a text frame must be UTF-8: {err}", file=sys.stderr)
            return
        self.conn.send(text)

    def close(self) -> None:
        self.conn.close()
