"""The websocket connectors (``runtime_support.io.connectors.net.ws``): their config keys.

Invariant: every config key Tremor has for ``ws_server`` / ``ws_client`` is declared, honoured
or ``rejected``.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key

RT = "runtime_support.io.connectors.net.ws."

WS_TLS = (
    "TLS is not implemented by tremorc's websocket connectors; terminate TLS in front of the job"
)
WS_SOCKET = '`{"SO_REUSEPORT": bool, "TCP_NODELAY": bool}` (TCP_NODELAY: default true)'
WS_SERVER = (
    "listens on the driver; batch: until `--ticks` events (default 10) arrived; stream: while "
    "the job runs, spooled under the checkpoint. Each text or binary frame goes through the "
    "preprocessors (without `separate` one frame is one event); `$ws_server` metadata (peer, "
    "binary) is not set"
)
WS_CLIENT = (
    "each executor partition opens one connection and sends each encoded, post-processed event "
    "as one text frame, in emission order (`$ws_server.binary` does not reach a sink on Spark: "
    "a non-UTF-8 chunk is reported and not sent)"
)

WS_ENTRIES = (
    Entry(
        name="ws_client",
        keys=(
            Key(name="url", type="string", required=True, doc="`ws://host:port[/path]`"),
            Key(name="tls", type="bool|record", choices=(False,), doc=WS_TLS),
            Key(name="socket_options", type="record", doc=WS_SOCKET),
        ),
        factory=RT + "WsClientSink",
        ports=("in",),
        doc="sink: " + WS_CLIENT,
    ),
    Entry(
        name="ws_server",
        keys=(
            Key(name="url", type="string", required=True, doc="`host:port` (or `ws://host:port`)"),
            Key(name="backlog", type="integer", default=128, doc="the listen backlog"),
            Key(name="tls", type="record", rejected=WS_TLS),
            Key(name="socket_options", type="record", doc=WS_SOCKET),
        ),
        factory=RT + "WsServerSource",
        ports=("out", "err"),
        doc="source: " + WS_SERVER,
    ),
)
WS_SOURCE_FACTORIES = {"ws_server": RT + "WsServerSource"}
WS_SINK_FACTORIES = {"ws_client": RT + "WsClientSink"}
WS_ONE_WAY = {
    "ws_client": "a ws_client is a sink on Spark: the frames its peer sends are not read",
    "ws_server": "a ws_server is a source on Spark: it can not answer its clients",
}


def check_ws_url(kind: str, config: dict[str, Any], span: Span, source: Source | None) -> None:
    """A ``ws_client`` / ``ws_server`` ``url`` the runtime reads (``ws://`` or no scheme, a
    host and a port), or a CompileError at ``span``."""
    if kind not in WS_ENTRY_NAMES or not isinstance(config.get("url"), str):
        return
    from runtime_support.io.connectors.net.datasource import parse_url
    from runtime_support.io.connectors.net.ws import ws_url

    try:
        parse_url(ws_url(config["url"], kind), kind, "url")
    except ValueError as err:
        raise CompileError(str(err), span, source=source) from None


WS_ENTRY_NAMES = ("ws_client", "ws_server")
