"""The OpenTelemetry connectors (``runtime_support.io.connectors.otel``): their config keys and the
checks the runtime needs (a `host:port` url, no codec or processors).

Invariant: every config key Tremor has for ``otel_server`` / ``otel_client`` is declared and
honoured (Tremor's keys: ``url``, ``logs``, ``metrics``, ``trace``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key

RT = "runtime_support.io.connectors.otel."

URL = (
    "`host:port` or `http://host:port` (default `localhost:4317`); plaintext gRPC (TLS is not "
    "implemented: an `https://` url is rejected)"
)
SHAPE = (
    'one event per OTLP export request in Tremor\'s JSON shape (`{"logs": [...]}`, '
    '`{"metrics": [...]}`, `{"trace": [...]}`: see docs/connectors.md)'
)
SERVER = (
    "source: an OTLP/gRPC receiver (logs, metrics and trace services) listening on the driver; "
    + SHAPE
    + "; each request answered OK once durably spooled; batch: until `--ticks` requests "
    "(default 10) arrived; stream: while the job runs, spooled under the checkpoint"
)
CLIENT = (
    "sink: each executor partition opens one gRPC channel and sends one export request per "
    "event (" + SHAPE + "; up to 64 in flight); a request the peer fails fails the task (at "
    "least once)"
)


def _service(name: str, server: bool) -> Key:
    if server:
        doc = f"emit {name} requests (false: answered OK, dropped with a warning, as in Tremor)"
    else:
        doc = f"send events with `{name}` (false: such events are reported, not sent)"
    return Key(name=name, type="bool", default=True, doc=doc)


OTEL_ENTRIES = (
    Entry(
        name="otel_client",
        keys=(
            Key(name="url", type="string", default="localhost:4317", doc=URL),
            _service("logs", False),
            _service("metrics", False),
            _service("trace", False),
        ),
        factory=RT + "client.OtelClientSink",
        ports=("in",),
        doc=CLIENT,
    ),
    Entry(
        name="otel_server",
        keys=(
            Key(name="url", type="string", default="localhost:4317", doc=URL),
            _service("logs", True),
            _service("metrics", True),
            _service("trace", True),
        ),
        factory=RT + "server.OtelServerSource",
        ports=("out", "err"),
        doc=SERVER,
    ),
)
OTEL_SOURCE_FACTORIES = {"otel_server": RT + "server.OtelServerSource"}
OTEL_SINK_FACTORIES = {"otel_client": RT + "client.OtelClientSink"}
OTEL_ONE_WAY = {
    "otel_client": "an otel_client is a sink on Spark: the export responses are not events",
    "otel_server": (
        "an otel_server is a source on Spark: each request is answered OK once its event is "
        "durably spooled, not by a pipeline"
    ),
}


def check_otel(
    kind: str,
    params: dict[str, Any],
    with_span: Callable[[str], Span],
    url_span: Span,
    source: Source | None,
) -> None:
    """An otel connector has no codec or processors (Tremor: a structured connector) and a url
    the runtime reads, or a CompileError at the offending key."""
    if kind not in OTEL_SOURCE_FACTORIES and kind not in OTEL_SINK_FACTORIES:
        return
    for key in ("codec", "preprocessors", "postprocessors"):
        if key in params:
            message = (
                f"The `{kind}` connector takes no `{key}`: its events are OTLP requests in "
                "Tremor's JSON shape, converted to and from protobuf by the connector"
            )
            raise CompileError(message, with_span(key), source=source)
    url = (params.get("config") or {}).get("url")
    if isinstance(url, str):
        from runtime_support.io.connectors.otel.server import otel_target

        try:
            otel_target(url, kind)
        except ValueError as err:
            raise CompileError(str(err), url_span, source=source) from None
