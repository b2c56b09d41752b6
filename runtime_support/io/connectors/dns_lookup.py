"""One ``dns_client`` request answered as Tremor answers it (tremor-connectors
``impls/dns/client.rs``), with dnspython's stub resolver.

A request is an event's ``$`` record: ``$dns.lookup`` is a name, or ``{"name", "type"?}``;
``$correlation``, when present, is copied to the answer's ``$``. :func:`answer` returns
``(port, value, meta)``: on ``out`` the records of the DNS answer section, each
``{<TYPE>: <text>, "ttl": n}`` (Tremor's rendering: names absolute with their final dot, TXT
strings concatenated, the other types in presentation format), types Tremor does not render
left out; on ``err`` ``{"request": $dns, "error": message}``. Without a type, Tremor's
``lookup_ip``: ``A``, then ``AAAA`` when there is no ``A``. Names in ``localhost.`` answer
without a query, as Tremor's resolver does (RFC 6761: 127.0.0.1, ::1, ``localhost.``, TTL 86400).
"""

from __future__ import annotations

from typing import Any

#: The record types Tremor's ``str_to_record_type`` accepts.
TYPES = (
    "A AAAA ANAME ANY AXFR CAA CNAME HINFO HTTPS IXFR MX NAPTR NS NULL OPENPGPKEY OPT PTR SOA SRV "
    "SSHFP SVCB TLSA TXT ZERO"
).split()
#: The record types Tremor renders in an answer (``rdata_to_value``); the rest are left out.
RENDERED = frozenset(
    "A AAAA ANAME CNAME TXT PTR CAA HINFO HTTPS MX NAPTR NULL NS OPENPGPKEY SOA SRV SSHFP SVCB "
    "TLSA CSYNC".split()
)
METADATA = "Metadata `$dns.lookup` missing or invalid"
NO_RESOLVER = "No DNS resolver available"
#: RFC 6761 answers of Tremor's resolver for names in ``localhost.`` (its ``MAX_TTL``).
LOCALHOST = {"A": "127.0.0.1", "AAAA": "::1", "PTR": "localhost."}
LOCAL_TTL = 86400


class LookupError_(Exception):
    """A request that fails; the message goes to ``err``."""


def make_resolver(nameservers: list[str] | None, timeout: float) -> Any:
    """A dnspython resolver: the system's (``/etc/resolv.conf`` of the executor) or the
    ``host`` / ``host:port`` nameservers given (tremorc's ``nameservers`` key); None when the
    system has no resolver configuration (every request then fails, as Tremor's)."""
    import dns.resolver

    if not nameservers:
        try:
            resolver = dns.resolver.Resolver()
        except dns.resolver.NoResolverConfiguration:
            return None
    else:
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers = [_nameserver(text) for text in nameservers]
    resolver.lifetime = timeout
    return resolver


def _nameserver(text: str) -> Any:
    import dns.nameserver

    return dns.nameserver.Do53Nameserver(*parse_nameserver(text))


def parse_nameserver(text: str) -> tuple[str, int]:
    """``(ip, port)`` of ``"ip"`` (port 53), ``"ipv4:port"`` or ``"[ipv6]:port"``; ValueError
    naming the forms otherwise."""
    import ipaddress

    host, sep, port = text.rpartition(":")
    if not sep or ":" in host and not host.startswith("["):  # no port (maybe a bare IPv6)
        host, port = text, "53"
    try:
        address = ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
        number = int(port)
        if not 0 < number < 65536:
            raise ValueError(port)
    except ValueError:
        message = f'nameserver {text!r} is not "ip", "ipv4:port" or "[ipv6]:port"'
        raise ValueError(message) from None
    return str(address), number


def request(meta: dict[str, Any]) -> tuple[str, str | None]:
    """``(name, type or None)`` of an event's ``$`` record, or LookupError_ (Tremor's)."""
    dns_meta = meta.get("dns")
    lookup = dns_meta.get("lookup") if isinstance(dns_meta, dict) else None
    name = lookup if isinstance(lookup, str) else None
    if isinstance(lookup, dict) and isinstance(lookup.get("name"), str):
        name = lookup["name"]
    if name is None:
        raise LookupError_(METADATA)
    kind = lookup.get("type") if isinstance(lookup, dict) else None
    if not isinstance(kind, str):
        return name, None
    if kind not in TYPES:
        raise LookupError_(f"Invalid or unsupported record type: {kind}")
    return name, kind


def answer(resolver: Any, meta: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    """The answer ``(port, value, meta)`` to one request (see the module doc)."""
    out_meta = {"correlation": meta["correlation"]} if "correlation" in meta else {}
    try:
        if resolver is None:
            raise LookupError_(NO_RESOLVER)
        name, kind = request(meta)
        if kind is not None:
            return "out", lookup(resolver, name, kind), out_meta
        try:
            return "out", lookup(resolver, name, "A"), out_meta
        except LookupError_:
            return "out", lookup(resolver, name, "AAAA"), out_meta
    except LookupError_ as err:
        return "err", {"request": meta.get("dns"), "error": str(err)}, out_meta


def lookup(resolver: Any, name: str, kind: str) -> list[dict[str, Any]]:
    """The rendered records of one query, or LookupError_ (none found, or a failure)."""
    import dns.exception
    import dns.name
    import dns.resolver

    try:
        qname = dns.name.from_text(name)
    except dns.exception.DNSException as err:
        raise LookupError_(f"invalid name {name!r}: {err}") from None
    if qname.is_subdomain(dns.name.from_text("localhost.")):
        if kind not in LOCALHOST:
            raise LookupError_(_none_found(qname, kind))
        return [{kind: LOCALHOST[kind], "ttl": LOCAL_TTL}]
    try:
        found = resolver.resolve(qname, kind, search=False)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        raise LookupError_(_none_found(qname, kind)) from None
    except dns.exception.DNSException as err:
        raise LookupError_(f"{kind} lookup of {qname} failed: {err}") from None
    records = [render(rrset, rdata) for rrset in found.response.answer for rdata in rrset]
    return [r for r in records if r is not None]


def _none_found(qname: Any, kind: str) -> str:
    """trust-dns's ``NoRecordsFound`` message, which Tremor puts in ``error``."""
    query = f'Query {{ name: Name("{qname}"), query_type: {kind}, query_class: IN }}'
    return f"no record found for {query}"


def render(rrset: Any, rdata: Any) -> dict[str, Any] | None:
    """``{<TYPE>: text, "ttl": n}`` of one record (None: a type Tremor does not render)."""
    import dns.rdatatype

    kind = dns.rdatatype.to_text(rdata.rdtype)
    if kind not in RENDERED:
        return None
    if kind == "TXT":
        text = "".join(s.decode("utf-8", "replace") for s in rdata.strings)
    else:
        text = rdata.to_text()
    return {kind: text, "ttl": rrset.ttl}
