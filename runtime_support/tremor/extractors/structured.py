"""Extractors for structured text: ``kv``, ``cidr`` and ``influx``."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from runtime_support.tremor.extractors.base import NO_MATCH, Extractor, ExtractorError

__all__ = ["Cidr", "Influx", "Kv"]

_KV_PART = re.compile(r"%\{key\}(.+?)%\{val\}(.*?)(?=%\{key\}|$)", re.S)


class Kv(Extractor):
    """``key<sep>value`` pairs separated by field separators (default ``:`` and space)."""

    name = "kv"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        if not rule:
            self.kv_seps, self.field_seps = [":"], [" "]
            return
        parts = _KV_PART.findall(rule)
        if not parts or _KV_PART.sub("", rule):
            raise ExtractorError(f"invalid kv pattern: {rule}")
        self.kv_seps = sorted({k for k, _ in parts}, key=len, reverse=True)
        self.field_seps = sorted({f for _, f in parts if f} or {" "}, key=len, reverse=True)
        if set(self.kv_seps) & set(self.field_seps):
            raise ExtractorError("Invalid KV pattern: separators may not overlap")

    def run(self, text: str, ctx: Any) -> Any:
        fields = re.split("|".join(map(re.escape, self.field_seps)), text)
        kv_rx = re.compile("|".join(map(re.escape, self.kv_seps)))
        out: dict[str, str] = {}
        for field in fields:
            m = kv_rx.search(field)
            if m is None:
                if field:
                    return NO_MATCH
                continue
            out[field[: m.start()]] = field[m.end() :]
        return out if out else NO_MATCH


class Cidr(Extractor):
    """An IP (optionally ``/len``) in the listed IPv4 ranges; result = prefix and mask octets."""

    name = "cidr"

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.ranges = []
        for part in filter(None, (p.strip() for p in rule.split(","))):
            try:
                net = ipaddress.ip_network(part, strict=False)
            except ValueError as e:
                raise ExtractorError(str(e)) from None
            if net.version != 4:
                raise ExtractorError(f"IPv6 ranges are not supported: {part}")
            self.ranges.append(net)

    def run(self, text: str, ctx: Any) -> Any:
        try:
            iface = ipaddress.ip_interface(text)
        except ValueError:
            return NO_MATCH
        if self.ranges:
            if iface.version != 4 or not any(iface.ip in r for r in self.ranges):
                return NO_MATCH
        packed, mask = iface.ip.packed, iface.network.netmask.packed
        if iface.version == 4:
            return {"prefix": list(packed), "mask": list(mask)}
        words = [int.from_bytes(packed[i : i + 2], "big") for i in range(0, 16, 2)]
        mwords = [int.from_bytes(mask[i : i + 2], "big") for i in range(0, 16, 2)]
        return {"prefix": words, "mask": mwords}


def _split_unescaped(text: str, seps: str) -> list[str]:
    """Split at any char in ``seps`` not escaped by ``\\`` and not inside double quotes."""
    out, cur, quoted, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if c in seps and not quoted:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


_TRUE = {"t", "T", "true", "True", "TRUE"}
_FALSE = {"f", "F", "false", "False", "FALSE"}


def _field_value(raw: str) -> Any:
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        return _unescape(raw[1:-1])
    if raw in _TRUE or raw in _FALSE:
        return raw in _TRUE
    if raw.endswith(("i", "u")) and re.fullmatch(r"-?\d+", raw[:-1]):
        return int(raw[:-1])
    return float(raw)  # ValueError ⇒ no match


class Influx(Extractor):
    """Influx line protocol into ``{measurement, tags, fields, timestamp}``."""

    name = "influx"

    def run(self, text: str, ctx: Any) -> Any:
        try:
            return self._parse(text, ctx)
        except (ValueError, IndexError):
            return NO_MATCH

    def _parse(self, text: str, ctx: Any) -> Any:
        parts = [p for p in _split_unescaped(text.rstrip("\n"), " ") if p]
        if len(parts) not in (2, 3):
            return NO_MATCH
        head = _split_unescaped(parts[0], ",")
        tags = {}
        for tag in head[1:]:
            k, v = _split_unescaped(tag, "=")
            tags[_unescape(k)] = _unescape(v)
        fields = {}
        for field in _split_unescaped(parts[1], ","):
            k, v = _split_unescaped(field, "=")
            fields[_unescape(k)] = _field_value(v)
        if len(parts) == 3:
            timestamp = int(parts[2])
        else:
            timestamp = int(getattr(ctx, "ingest_ns", 0) or 0)
        measurement = _unescape(head[0])
        return {"measurement": measurement, "tags": tags, "fields": fields, "timestamp": timestamp}
