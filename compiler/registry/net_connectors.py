"""The network connectors tremorc runs (``runtime_support.io.connectors.net``): their config keys,
and the direction check (a server source or client sink is one-way on Spark).

Invariant: every config key Tremor has for these kinds is declared, honoured or ``rejected``.
"""

from __future__ import annotations

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key
from .otel_connectors import (
    OTEL_ENTRIES,
    OTEL_ONE_WAY,
    OTEL_SINK_FACTORIES,
    OTEL_SOURCE_FACTORIES,
)
from .ws_connectors import WS_ENTRIES, WS_ONE_WAY, WS_SINK_FACTORIES, WS_SOURCE_FACTORIES

RT = "runtime_support.io.connectors.net."

TLS = "TLS is not implemented by tremorc's network connectors; terminate TLS in front of the job"
URL = "`host:port` (or `scheme://host:port`)"
SERVER = (
    "listens on the driver; batch: until `--ticks` events (default 10) arrived; stream: while "
    "the job runs, spooled under the checkpoint (see docs/connectors.md)"
)
SOCKET_UDP = '`{"SO_REUSEPORT": bool}`'
SOCKET_TCP = '`{"SO_REUSEPORT": bool, "TCP_NODELAY": bool}` (TCP_NODELAY: default true)'
BUF = "bytes read at a time (default 8192): without `separate`, one read is one event"

HTTP_TLS = "`true`: TLS with the system's CAs (an `https` URL does that anyway); a TLS record " + (
    "(custom CA, client certificate) is not implemented"
)
HTTP_META = (
    "accepted; the request comes from `config` alone: `$http_client.request` metadata does not "
    "reach a sink on Spark"
)

NET_ENTRIES = (
    Entry(
        name="http_client",
        keys=(
            Key(name="url", type="string", doc="the request URL (default `http://localhost/`)"),
            Key(name="method", type="string", default="POST", doc="the request method"),
            Key(name="headers", type="record", doc="name → a value or a list of values"),
            Key(
                name="auth",
                type="string|record",
                doc="`none`, `basic`, `bearer`, `elastic_api_key`",
            ),
            Key(
                name="concurrency",
                type="unsigned",
                doc="accepted; each executor partition has one request in flight (emission order)",
            ),
            Key(name="timeout", type="unsigned", doc="request timeout in ns"),
            Key(name="tls", type="bool", doc=HTTP_TLS),
            Key(name="mime_mapping", type="record", doc="mime type → codec (Tremor's rules)"),
        ),
        factory=RT + "http.HttpClientSink",
        ports=("in",),
        doc="sink: one request per event from the executors; " + HTTP_META,
    ),
    Entry(
        name="tcp_client",
        keys=(
            Key(name="url", type="string", required=True, doc=URL),
            Key(name="buf_size", type="unsigned", doc="accepted; the sink reads no responses"),
            Key(name="tls", type="bool", choices=(False,), doc=TLS),
            Key(name="socket_options", type="record", doc=SOCKET_TCP),
        ),
        factory=RT + "tcp.TcpClientSink",
        ports=("in",),
        doc="sink: each executor partition writes its events, in order, to one connection",
    ),
    Entry(
        name="tcp_server",
        keys=(
            Key(name="url", type="string", required=True, doc=URL),
            Key(name="buf_size", type="unsigned", default=8192, doc=BUF),
            Key(name="backlog", type="integer", default=128, doc="the listen backlog"),
            Key(name="tls", type="record", rejected=TLS),
            Key(name="socket_options", type="record", doc=SOCKET_TCP),
        ),
        factory=RT + "tcp.TcpServerSource",
        ports=("out", "err"),
        doc="source: " + SERVER,
    ),
    Entry(
        name="udp_client",
        keys=(
            Key(name="url", type="string", required=True, doc=URL),
            Key(name="bind", type="string", doc="local `host:port` the socket binds to"),
            Key(name="socket_options", type="record", doc=SOCKET_UDP),
        ),
        factory=RT + "udp.UdpClientSink",
        ports=("in",),
        doc="sink: one datagram per event, from the executors",
    ),
    Entry(
        name="udp_server",
        keys=(
            Key(name="url", type="string", required=True, doc=URL),
            Key(name="buf_size", type="unsigned", default=8192, doc="largest datagram read"),
            Key(name="socket_options", type="record", doc=SOCKET_UDP),
        ),
        factory=RT + "udp.UdpServerSource",
        ports=("out", "err"),
        doc="source: " + SERVER,
    ),
)

UNIX_PATH = "the socket file (the server's on the driver, the client's on each executor)"
UNIX_ENTRIES = (
    Entry(
        name="unix_socket_client",
        keys=(
            Key(name="path", type="string", required=True, doc=UNIX_PATH),
            Key(name="buf_size", type="unsigned", doc="accepted; the sink reads no responses"),
        ),
        factory=RT + "unix_socket.UnixSocketClientSink",
        ports=("in",),
        doc="sink: each executor partition writes its events, in order, to one connection",
    ),
    Entry(
        name="unix_socket_server",
        keys=(
            Key(name="path", type="string", required=True, doc=UNIX_PATH),
            Key(name="permissions", type="string", doc='octal mode, e.g. `"600"` or `"=660"`'),
            Key(name="buf_size", type="unsigned", default=8192, doc=BUF),
        ),
        factory=RT + "unix_socket.UnixSocketServerSource",
        ports=("out", "err"),
        doc="source: " + SERVER,
    ),
)
HTTP_SERVER = Entry(
    name="http_server",
    keys=(
        Key(name="url", type="string", required=True, doc="`http://host:port` to listen on"),
        Key(name="tls", type="record", rejected=TLS),
        Key(
            name="mime_mapping",
            type="record",
            doc="Content-Type → codec of the request bodies (Tremor's map without it; `*/*`: "
            "the fallback, then the connector's `codec`, then `binary`)",
        ),
    ),
    factory=RT + "http_server.HttpServerSource",
    ports=("out", "err"),
    doc="source: one event per decoded request body with `$http_server.request` metadata; "
    "each request answered `202` once durably spooled; " + SERVER,
)
NET_ENTRIES = NET_ENTRIES + UNIX_ENTRIES + WS_ENTRIES + (HTTP_SERVER,) + OTEL_ENTRIES

NET_SOURCE_FACTORIES = {
    "http_server": RT + "http_server.HttpServerSource",
    "unix_socket_server": RT + "unix_socket.UnixSocketServerSource",
    "tcp_server": RT + "tcp.TcpServerSource",
    "udp_server": RT + "udp.UdpServerSource",
    **WS_SOURCE_FACTORIES,
    **OTEL_SOURCE_FACTORIES,
}
NET_SINK_FACTORIES = {
    "unix_socket_client": RT + "unix_socket.UnixSocketClientSink",
    "http_client": RT + "http.HttpClientSink",
    "tcp_client": RT + "tcp.TcpClientSink",
    "udp_client": RT + "udp.UdpClientSink",
    **WS_SINK_FACTORIES,
    **OTEL_SINK_FACTORIES,
}

_ONE_WAY = {
    "http_client": "an http_client is a sink on Spark: its responses are not events",
    "tcp_client": "a tcp_client is a sink on Spark: the responses its peer sends are not read",
    "tcp_server": "a tcp_server is a source on Spark: it can not answer its clients",
}
_ONE_WAY.update(
    http_server=(
        "an http_server is a source on Spark: a pipeline's events can not answer its requests "
        "(each request is answered `202 Accepted` once its events are durably spooled)"
    ),
    unix_socket_client="a unix_socket_client is a sink on Spark: its peer's answers are not read",
    unix_socket_server="a unix_socket_server is a source on Spark: it can not answer its clients",
    **WS_ONE_WAY,
    **OTEL_ONE_WAY,
)
_SOCKET_OPTIONS = {
    "tcp_client": ("SO_REUSEPORT", "TCP_NODELAY"),
    "tcp_server": ("SO_REUSEPORT", "TCP_NODELAY"),
    "udp_client": ("SO_REUSEPORT",),
    "udp_server": ("SO_REUSEPORT",),
    "ws_client": ("SO_REUSEPORT", "TCP_NODELAY"),
    "ws_server": ("SO_REUSEPORT", "TCP_NODELAY"),
}


def check_direction(kind: str, as_sink: bool, span: Span, source: Source | None) -> None:
    """A connect to the input of a network source, or from the output of a network sink, is a
    CompileError naming the direction tremorc supports."""
    if kind in NET_SOURCE_FACTORIES and as_sink or kind in NET_SINK_FACTORIES and not as_sink:
        way = "source" if kind in NET_SOURCE_FACTORIES else "sink"
        reason = _ONE_WAY.get(kind, f"a {kind} is a {way}")
        message = f"The `{kind}` connector is only a {way} in tremorc: {reason}"
        raise CompileError(message, span, source=source)


def check_socket_options(kind: str, options: object, span: Span, source: Source | None) -> None:
    """``socket_options`` names only the options tremorc sets, each a boolean."""
    if kind not in _SOCKET_OPTIONS or not isinstance(options, dict):
        return
    for name, value in options.items():
        if name not in _SOCKET_OPTIONS[kind] or type(value) is not bool:
            allowed = ", ".join(f"`{o}`" for o in _SOCKET_OPTIONS[kind])
            message = f"Socket option `{name}` of `{kind}` is not supported: use {allowed} (bool)"
            raise CompileError(message, span, source=source)
