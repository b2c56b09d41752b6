"""Network connectors on Spark's Python Data Source API (see :mod:`.datasource`): server
sources listening on the driver, client sinks writing from the executors."""

from __future__ import annotations

from typing import Any

from runtime_support.connectors.base import ConnectorSpec
from runtime_support.connectors.net.http import HttpClientSink
from runtime_support.connectors.net.http_server import HttpServerSource
from runtime_support.connectors.net.tcp import TcpClientSink, TcpServerSource
from runtime_support.connectors.net.udp import UdpClientSink, UdpServerSource
from runtime_support.connectors.net.unix_socket import UnixSocketClientSink, UnixSocketServerSource
from runtime_support.connectors.net.ws import WsClientSink, WsServerSource

__all__ = [
    "HttpClientSink",
    "HttpServerSource",
    "NET_SINKS",
    "NET_SOURCES",
    "TcpClientSink",
    "TcpServerSource",
    "UdpClientSink",
    "UdpServerSource",
    "UnixSocketClientSink",
    "UnixSocketServerSource",
    "WsClientSink",
    "WsServerSource",
    "build_net_sink",
]

NET_SOURCES: dict[str, type] = {
    "http_server": HttpServerSource,
    "tcp_server": TcpServerSource,
    "udp_server": UdpServerSource,
    "unix_socket_server": UnixSocketServerSource,
    "ws_server": WsServerSource,
}
NET_SINKS: dict[str, type] = {
    "http_client": HttpClientSink,
    "tcp_client": TcpClientSink,
    "udp_client": UdpClientSink,
    "unix_socket_client": UnixSocketClientSink,
    "ws_client": WsClientSink,
}


def build_net_sink(spec: ConnectorSpec) -> Any:
    """The sink object of a network connector ``spec`` (on an executor: see NetWriter)."""
    return NET_SINKS[spec.kind](spec)
