"""The ``dns_client`` connector's registry entry and its check (TREMOR.md §6.3; tremor-connectors
``impls/dns/client.rs``: a structured connector with no config keys)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Key, check_structured

_NAMESERVERS = (
    "tremorc only (Tremor has no config keys and always uses the system resolver): the "
    'nameservers to ask, `"host"` (port 53) or `"host:port"` (`"[v6]:port"`), instead of the '
    "executor's `/etc/resolv.conf`"
)

DNS = Entry(
    name="dns_client",
    keys=(Key(name="nameservers", type="array<string>", doc=_NAMESERVERS),),
    factory="runtime_support.io.connectors.dns.DnsSink",
    ports=("in", "out", "err"),
    doc="sink: each event's `$dns.lookup` resolved on the executors (dnspython, `mapInArrow`, "
    "emission order); `out` answers with the records, `err` with the failure (batch: a second "
    "pass; a stream rejects them)",
)


def check_dns(
    params: dict[str, Any],
    value_span: Callable[[str], Span],
    key_span: Callable[[str], Span],
    source: Source,
) -> None:
    """``dns_client`` is structured (Tremor's ``CodecReq::Structured``): no codec, and no
    processors (they would never run); each of ``nameservers`` an IP address with a port."""
    from runtime_support.io.connectors.dns_lookup import parse_nameserver

    for text in (params.get("config") or {}).get("nameservers") or ():
        try:
            parse_nameserver(text)
        except ValueError as err:
            raise CompileError(str(err), key_span("nameservers"), source=source) from None
    check_structured("dns_client", params, value_span, source)
