"""The ``elastic`` connector's registry entry and its config check (TREMOR.md §6.3;
tremor-connectors ``impls/elastic.rs``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key

RT = "runtime_support.io.connectors."
_TLS = (
    "`true` (the system's CAs) or `{cafile, cert, key}`: a custom CA and a client certificate "
    "(PEM files on every executor); every node must then be `https://`"
)
_AUTH = (
    '`"none"`, `{"basic": {username, password}}`, `{"bearer": token}`, `{"elastic_api_key": '
    "{id, api_key}}`; `gcp` is rejected (Google metadata credentials are not built)"
)

ELASTIC = Entry(
    name="elastic",
    keys=(
        Key(name="nodes", type="array<string>", required=True, doc="node URLs, round robin"),
        Key(name="index", type="string", doc="the index when `$elastic._index` is absent"),
        Key(
            name="concurrency",
            type="unsigned",
            default=4,
            doc="bulk requests in flight per executor partition (responses in request order)",
        ),
        Key(
            name="include_payload_in_response",
            type="bool",
            default=False,
            doc="the event as `payload` in each `out`/`err` response",
        ),
        Key(name="headers", type="record", doc="name → a value or a list of values"),
        Key(name="auth", type="string|record", doc=_AUTH),
        Key(name="tls", type="bool|record", doc=_TLS),
        Key(name="timeout", type="unsigned", doc="HTTP request timeout in ns (default: none)"),
    ),
    factory=RT + "elastic.ElasticSink",
    ports=("in", "out", "err"),
    doc="sink: the bulk API from the executors (`mapInArrow`), one request per event or per "
    "batched event; `out`/`err` answer with the bulk items (batch; a stream rejects them)",
)


def check_elastic(config: dict[str, Any], key_span: Callable[[str], Span], source: Source) -> None:
    """``auth`` and ``tls`` of an ``elastic`` config, or a CompileError at the key."""
    from runtime_support.io.connectors.net.http import auth_header

    try:
        auth_header(config.get("auth"), "elastic")
    except ValueError as err:
        raise CompileError(str(err).split(": ", 1)[1], key_span("auth"), source=source) from None
    tls = config.get("tls")
    if isinstance(tls, dict):
        extra = sorted(set(tls) - {"cafile", "cert", "key"})
        if extra or ("cert" in tls) != ("key" in tls):
            message = (
                f"`tls` of `elastic` takes `cafile`, and `cert` with `key` (got "
                f"{', '.join(f'`{k}`' for k in sorted(tls))}): a server name override "
                "(`domain`) is not supported by the HTTP client"
            )
            raise CompileError(message, key_span("tls"), source=source)
    if tls and tls is not False:
        for node in config.get("nodes") or ():
            if not str(node).startswith("https://"):
                message = f"Node URL '{node}' needs 'https' scheme with tls."
                raise CompileError(message, key_span("nodes"), source=source)
    if not config.get("nodes"):
        raise CompileError("empty nodes provided", key_span("nodes"), source=source)
