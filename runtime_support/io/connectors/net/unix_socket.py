"""``unix_socket_server`` (source) and ``unix_socket_client`` (sink): the TCP connectors over a
Unix domain socket at ``config.path``.

The server binds ``path`` on the driver's file system (an existing file there is removed first,
as Tremor does; ``permissions`` sets its mode, octal such as ``"600"`` or ``"=600"``); the client
connects from each executor, so on a cluster ``path`` must name a socket on the executors' hosts.
"""

from __future__ import annotations

import itertools
import os
import socket
from typing import Any

from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.tcp import TcpClientSink, TcpServerSource, _Stream
from runtime_support.tremor.event_meta import encode_meta
from runtime_support.tremor.origin import encode_origin, hostname


def _path(spec: ConnectorSpec) -> str:
    path = spec.config.get("path")
    if not isinstance(path, str) or not path:
        raise ValueError(f"Invalid config for connector `{spec.alias}`: `path` must be a string")
    return path


def _mode(text: Any, alias: str) -> int | None:
    if text is None:
        return None
    digits = str(text).lstrip("=")
    if not digits or any(c not in "01234567" for c in digits) or len(digits) > 4:
        raise ValueError(
            f"Invalid config for connector `{alias}`: `permissions` must be an octal mode such as "
            f'"600" or "=660", not {text!r}'
        )
    return int(digits, 8)


class UnixSocketServerSource(TcpServerSource):
    """Connections accepted on the socket file ``path`` (see the module doc)."""

    scheme = "tremor-unix-socket-server"

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        self.mode = _mode(spec.config.get("permissions"), spec.alias)
        self.connections = itertools.count()
        config = {"url": "localhost:0", "buf_size": spec.config.get("buf_size", 8192)}
        super().__init__(ConnectorSpec(spec.alias, spec.kind, {**spec.params, "config": config}))

    @property
    def origin(self) -> str:
        return encode_origin(self.scheme, hostname(), None, [self.path])

    def connection_meta(self, peer: Any) -> str:
        """``$unix_socket_server``: the socket's path and the connection's number (Tremor's
        stream id; numbered from 0 in accept order here)."""
        number = next(self.connections)
        return encode_meta({"unix_socket_server": {"path": self.path, "peer": number}})

    def listener(self) -> socket.socket:
        """The listening socket at ``path``, which appears there with its final mode: bound
        and chmod-ed as ``path~`` (no peer can connect before the mode is set), then renamed."""
        staging = self.path + "~"
        if os.path.exists(staging):
            os.remove(staging)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(staging)
            if self.mode is not None:
                os.chmod(staging, self.mode)
            sock.listen(self.backlog)
            os.replace(staging, self.path)  # an existing file is replaced, as Tremor does
        except BaseException:
            sock.close()
            if os.path.exists(staging):
                os.remove(staging)
            raise
        return sock


class UnixSocketClientSink(TcpClientSink):
    """Events written to a connection to the socket file ``path``."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.path = _path(spec)
        super().__init__(
            ConnectorSpec(spec.alias, spec.kind, {**spec.params, "config": {"url": "localhost:0"}})
        )
        self.spec = spec  # what the executors rebuild the sink from (NetWriter)

    def connect(self) -> Any:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(self.path)
        return _Stream(sock)
