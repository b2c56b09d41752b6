"""Event origin URIs, as Tremor's ``EventOriginUri`` (``scheme``, ``host``, ``port``, ``path``).

An origin travels with each event as one string (the ``origin`` input column): the URI
``scheme://host[:port][/seg/seg…]`` with every path segment percent-encoded, so a segment that
holds ``/`` (the file connector's path is one segment) survives the round trip. Invariant:
``decode_origin(encode_origin(s, h, p, path)) == {scheme: s, host: h, port: p, path: path}``, and
a plain URI (the test harness's ``snot://test:23/snot``) decodes as Tremor's ``url`` parse does.
"""

from __future__ import annotations

import re
import socket
from typing import Any
from urllib.parse import quote, unquote

__all__ = ["decode_origin", "encode_origin", "hostname", "origin_string"]

_URI = re.compile(r"(?P<scheme>[^:/]*)://(?P<netloc>[^/]*)(?P<path>/.*)?", re.DOTALL)
_PORT = re.compile(r"(?P<host>.*):(?P<port>[0-9]+)", re.DOTALL)


def hostname() -> str:
    """The host name connectors put in origins (Tremor: ``tremor_host.local`` when unknown)."""
    try:
        return socket.gethostname() or "tremor_host.local"
    except OSError:
        return "tremor_host.local"


def encode_origin(scheme: str, host: str, port: int | None, path: list[str]) -> str:
    """The column text of an origin (segments percent-encoded)."""
    netloc = host if port is None else f"{host}:{port}"
    return f"{scheme}://{netloc}" + "".join("/" + quote(seg, safe="") for seg in path)


def decode_origin(text: Any) -> dict[str, Any] | None:
    """Tremor's origin record ``{scheme, host, port, path}``; None for no (or no valid) origin."""
    if isinstance(text, dict) or text is None:
        return text
    m = _URI.fullmatch(str(text))
    if m is None:
        return None
    netloc, port = m.group("netloc"), None
    hp = _PORT.fullmatch(netloc)
    if hp is not None and int(hp.group("port")) < 65536:
        netloc, port = hp.group("host"), int(hp.group("port"))
    path = m.group("path")
    segs = [] if path is None else [unquote(s) for s in path[1:].split("/")]
    return {"scheme": m.group("scheme"), "host": netloc, "port": port, "path": segs}


def origin_string(rec: dict[str, Any]) -> str:
    """Tremor's ``Display`` of an origin: ``scheme://host[:port]`` then ``/``-joined path."""
    port = "" if rec.get("port") is None else f":{rec['port']}"
    path = rec.get("path") or []
    sep = "/" if path else ""
    return f"{rec['scheme']}://{rec['host']}{port}{sep}{'/'.join(path)}"
