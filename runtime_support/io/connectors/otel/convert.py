"""OTLP protobuf messages ↔ Tremor's JSON shape of them: the common parts, logs and traces
(metrics: :mod:`.metrics`). The shape is tremor-runtime's (``tremor-connectors-otel``): its
``*_to_json`` for what the server emits, its ``*_to_pb`` for what the client accepts.

Tremor compiles an OTLP of 2022 (``instrumentation_library_*``); the messages here are today's
(``scope_*``). Both are the same on the wire (field numbers and types), so a scope is read and
written as Tremor's ``instrumentation_library`` ``{name, version}`` (a scope's attributes are not
in Tremor's shape: they are not kept, as Tremor does not see them either). Fields OTLP removed
since read as Tremor's defaults: a log record's ``name`` is ``""``, a status' ``deprecated_code``
``0``; the client can not send them. Ids are lower-case hex strings; the client also takes byte
arrays. Invariant: ``x_to_pb(x_to_json(m)) == m`` for every message Tremor's shape covers.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "OtelError",
    "any_to_json",
    "any_to_pb",
    "hex_id",
    "id_to_pb",
    "kv_to_json",
    "kv_to_pb",
    "logs_to_json",
    "logs_to_pb",
    "resource_to_json",
    "resource_to_pb",
    "resources_to_json",
    "resources_to_pb",
    "scope_to_json",
    "scope_to_pb",
    "trace_to_json",
    "trace_to_pb",
]

I64 = 1 << 63


class OtelError(ValueError):
    """An event that is not Tremor's JSON shape of an OTLP request (Tremor fails the event)."""


# Values, attributes, ids ------------------------------------------------------------------------


def any_to_json(value: Any) -> Any:
    """An ``AnyValue`` → its JSON value (unset: null; bytes stay bytes)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    inner = getattr(value, kind)
    if kind == "array_value":
        return [any_to_json(v) for v in inner.values]
    if kind == "kvlist_value":
        return kv_to_json(inner.values)
    return inner


def any_to_pb(data: Any, out: Any) -> None:
    """Fill the ``AnyValue`` ``out`` from a JSON value (an unsigned past i64 wraps, as Tremor)."""
    if data is None:
        return
    if type(data) is bool:
        out.bool_value = data
    elif type(data) is int:
        out.int_value = data - (1 << 64) if data >= I64 else data
    elif type(data) is float:
        out.double_value = data
    elif type(data) is str:
        out.string_value = data
    elif type(data) is bytes:
        out.bytes_value = data
    elif isinstance(data, list):
        values = out.array_value.values
        out.array_value.SetInParent()
        for item in data:
            any_to_pb(item, values.add())
    elif isinstance(data, dict):
        out.kvlist_value.SetInParent()
        kv_to_pb(data, out.kvlist_value.values)
    else:
        raise OtelError(f"not an OTLP value: {type(data).__name__}")


def kv_to_json(pairs: Any) -> dict[str, Any]:
    """Repeated ``KeyValue`` → a record (a pair without a value: null; a later key wins)."""
    return {kv.key: any_to_json(kv.value) if kv.HasField("value") else None for kv in pairs}


def kv_to_pb(data: Any, out: Any, what: str = "attributes") -> None:
    """A record → repeated ``KeyValue`` ``out``; null → none, another type is an error."""
    if data is None:
        return
    if not isinstance(data, dict):
        raise OtelError(f"`{what}` must be a record")
    for key, value in data.items():
        pair = out.add()
        pair.key = key
        pair.value.SetInParent()
        any_to_pb(value, pair.value)


def hex_id(data: bytes) -> str:
    return data.hex()


def id_to_pb(data: Any, kind: str, size: int, allow_empty: bool = False) -> bytes:
    """A hex string, bytes or an array of bytes → the id (``size`` bytes, or empty if allowed)."""
    try:
        if isinstance(data, str):
            raw = bytes.fromhex(data)
        elif isinstance(data, bytes):
            raw = data
        elif isinstance(data, list) and all(type(b) is int for b in data):
            raw = bytes(data)
        else:
            raise OtelError(f"Cannot convert json value to otel pb `{kind}` id")
    except ValueError as err:
        raise OtelError(f"Invalid `{kind}` id: {err}") from None
    if len(raw) == size or allow_empty and not raw:
        return raw
    raise OtelError(f"Invalid `{kind}` id ( wrong array length ) - cannot convert to pb")


def maybe_id(data: Any, kind: str, size: int) -> bytes:
    """An optional id (Tremor: absent or invalid → empty)."""
    try:
        return id_to_pb(data, kind, size)
    except OtelError:
        return b""


def _str(data: Any, what: str) -> str:
    if data is None:
        return ""
    if not isinstance(data, str):
        raise OtelError(f"`{what}` must be a string")
    return data


def _uint(data: Any, what: str, default: int | None = None) -> int:
    """An unsigned integer field; ``default`` (not None): used when absent or not one."""
    if type(data) is int and data >= 0:
        return data
    if default is not None:
        return default
    raise OtelError(f"`{what}` must be a non-negative integer")


def _int(data: Any, what: str, default: int | None = None) -> int:
    if type(data) is int:
        return data
    if default is not None:
        return default
    raise OtelError(f"`{what}` must be an integer")


def _record(data: Any, what: str) -> dict:
    if not isinstance(data, dict):
        raise OtelError(f"`{what}` must be a record")
    return data


def _array(data: Any, what: str) -> list:
    if not isinstance(data, list):
        raise OtelError(f"Invalid json to mapping for `{what}`")
    return data


# Resource and scope -----------------------------------------------------------------------------


def resource_to_json(resource: Any) -> dict[str, Any]:
    return {
        "attributes": kv_to_json(resource.attributes),
        "dropped_attributes_count": resource.dropped_attributes_count,
    }


def resource_to_pb(data: Any, out: Any) -> None:
    data = _record(data, "resource")
    out.SetInParent()
    out.dropped_attributes_count = _uint(data.get("dropped_attributes_count"), "", 0)
    kv_to_pb(data.get("attributes"), out.attributes)


def scope_to_json(scope: Any) -> dict[str, str]:
    return {"name": scope.name, "version": scope.version}


def scope_to_pb(data: Any, out: Any) -> None:
    data = _record(data, "instrumentation_library")
    out.SetInParent()
    out.name = _str(data.get("name"), "name")
    out.version = _str(data.get("version"), "version")


#: Per request kind: the top key, the ``Resource*`` field of the groups, Tremor's key of the
#: groups, the group's field of the items and Tremor's key of the items.
SHAPES = {
    "logs": ("logs", "scope_logs", "instrumentation_library_logs", "log_records", "logs"),
    "trace": ("trace", "scope_spans", "instrumentation_library_spans", "spans", "spans"),
    "metrics": (
        "metrics",
        "scope_metrics",
        "instrumentation_library_metrics",
        "metrics",
        "metrics",
    ),
}


def resources_to_json(kind: str, resources: Any, item: Any) -> dict[str, list]:
    """Repeated ``Resource*`` → ``{<top>: [{<groups>: [...], schema_url, resource?}]}``."""
    top, groups, key, field, items = SHAPES[kind]
    out = []
    for res in resources:
        entry: dict[str, Any] = {key: [], "schema_url": res.schema_url}
        for group in getattr(res, groups):
            one = {items: [item(i) for i in getattr(group, field)], "schema_url": group.schema_url}
            if group.HasField("scope"):
                one["instrumentation_library"] = scope_to_json(group.scope)
            entry[key].append(one)
        if res.HasField("resource"):
            entry["resource"] = resource_to_json(res.resource)
        out.append(entry)
    return {top: out}


def resources_to_pb(kind: str, data: Any, out: Any, item: Any) -> None:
    """Tremor's ``{<top>: [...]}`` → ``out`` (repeated ``Resource*``); ``item(json, message)``
    fills one log record, span or metric. What is not a record in a list is skipped (Tremor)."""
    top, groups, key, field, items = SHAPES[kind]
    for res_json in _array(data.get(top) if isinstance(data, dict) else None, top):
        if not isinstance(res_json, dict):
            continue
        res = out.add()
        res.schema_url = _str(res_json.get("schema_url"), "schema_url")
        if res_json.get("resource") is not None:
            resource_to_pb(res_json["resource"], res.resource)
        for group_json in _array(res_json.get(key), key):
            if not isinstance(group_json, dict):
                continue
            group = getattr(res, groups).add()
            group.schema_url = _str(group_json.get("schema_url"), "schema_url")
            if group_json.get("instrumentation_library") is not None:
                scope_to_pb(group_json["instrumentation_library"], group.scope)
            listed = group_json.get(items)
            for one in listed if isinstance(listed, list) else ():
                item(one, getattr(group, field).add())


# Logs -------------------------------------------------------------------------------------------


def _flags(flags: int) -> int:
    if flags not in (0, 128):
        raise OtelError(f"Invalid trace flags: {flags}")
    return flags


def _severity(number: int) -> int:
    if not 0 <= number <= 24:
        raise OtelError(f"Invalid severity number: {number}")
    return number


def log_to_json(log: Any) -> dict[str, Any]:
    return {
        "name": "",
        "time_unix_nano": log.time_unix_nano,
        "severity_number": _severity(log.severity_number),
        "severity_text": log.severity_text,
        "flags": _flags(log.flags),
        "span_id": hex_id(log.span_id),
        "trace_id": hex_id(log.trace_id),
        "attributes": kv_to_json(log.attributes),
        "dropped_attributes_count": log.dropped_attributes_count,
        "body": any_to_json(log.body) if log.HasField("body") else None,
    }


def log_to_pb(data: Any, out: Any) -> None:
    data = _record(data, "logs")
    out.time_unix_nano = _uint(data.get("time_unix_nano"), "", 0)
    number = data.get("severity_number")
    out.severity_number = _severity(number) if type(number) is int else 0
    text = data.get("severity_text")
    out.severity_text = text if isinstance(text, str) else ""
    if "body" in data:
        out.body.SetInParent()
        any_to_pb(data["body"], out.body)
    out.flags = _flags(_uint(data.get("flags"), "", 0))
    out.span_id = maybe_id(data.get("span_id"), "span", 8)
    out.trace_id = maybe_id(data.get("trace_id"), "trace", 16)
    out.dropped_attributes_count = _uint(data.get("dropped_attributes_count"), "", 0)
    if isinstance(data.get("attributes"), dict):
        kv_to_pb(data["attributes"], out.attributes)


def logs_to_json(request: Any) -> dict[str, Any]:
    """An ``ExportLogsServiceRequest`` → ``{"logs": [...]}``."""
    return resources_to_json("logs", request.resource_logs, log_to_json)


def logs_to_pb(data: Any) -> Any:
    """``{"logs": [...]}`` → an ``ExportLogsServiceRequest``."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    request = ExportLogsServiceRequest()
    resources_to_pb("logs", data, request.resource_logs, log_to_pb)
    return request


# Traces -----------------------------------------------------------------------------------------


def status_to_json(span: Any) -> dict[str, Any]:
    if not span.HasField("status"):
        return {"code": 0, "deprecated_code": 0, "message": "status code unset"}
    return {"code": span.status.code, "deprecated_code": 0, "message": span.status.message}


def span_to_json(span: Any) -> dict[str, Any]:
    return {
        "attributes": kv_to_json(span.attributes),
        "events": [
            {
                "time_unix_nano": e.time_unix_nano,
                "name": e.name,
                "attributes": kv_to_json(e.attributes),
                "dropped_attributes_count": e.dropped_attributes_count,
            }
            for e in span.events
        ],
        "links": [
            {
                "trace_id": hex_id(link.trace_id),
                "span_id": hex_id(link.span_id),
                "trace_state": link.trace_state,
                "attributes": kv_to_json(link.attributes),
                "dropped_attributes_count": link.dropped_attributes_count,
            }
            for link in span.links
        ],
        "span_id": hex_id(span.span_id),
        "parent_span_id": hex_id(span.parent_span_id),
        "trace_id": hex_id(span.trace_id),
        "start_time_unix_nano": span.start_time_unix_nano,
        "end_time_unix_nano": span.end_time_unix_nano,
        "trace_state": span.trace_state,
        "dropped_attributes_count": span.dropped_attributes_count,
        "dropped_events_count": span.dropped_events_count,
        "dropped_links_count": span.dropped_links_count,
        "status": status_to_json(span),
        "kind": span.kind,
        "name": span.name,
    }


def span_to_pb(data: Any, out: Any) -> None:
    data = _record(data, "spans")
    out.name = _str(data.get("name"), "name")
    out.start_time_unix_nano = _uint(data.get("start_time_unix_nano"), "start_time_unix_nano")
    out.end_time_unix_nano = _uint(data.get("end_time_unix_nano"), "end_time_unix_nano")
    if data.get("status") is not None:
        status = _record(data["status"], "status")
        out.status.code = _int(status.get("code"), "code")
        _int(status.get("deprecated_code"), "deprecated_code")  # required by Tremor, not sent
        out.status.message = _str(status.get("message"), "message")
    out.kind = _int(data.get("kind"), "kind", 0)
    try:
        out.parent_span_id = id_to_pb(data.get("parent_span_id"), "parent span", 8, True)
    except OtelError:
        out.parent_span_id = b""
    out.span_id = id_to_pb(data.get("span_id"), "span", 8)
    out.trace_id = id_to_pb(data.get("trace_id"), "trace", 16)
    out.trace_state = _str(data.get("trace_state"), "trace_state")
    kv_to_pb(_record(data.get("attributes"), "attributes"), out.attributes)
    for key in ("dropped_attributes_count", "dropped_events_count", "dropped_links_count"):
        setattr(out, key, _uint(data.get(key), key, 0))
    for event in data.get("events") if isinstance(data.get("events"), list) else ():
        _span_event_to_pb(_record(event, "events"), out.events.add())
    for link in data.get("links") if isinstance(data.get("links"), list) else ():
        _link_to_pb(_record(link, "links"), out.links.add())


def _span_event_to_pb(data: dict, out: Any) -> None:
    out.name = _str(data.get("name"), "name")
    out.time_unix_nano = _uint(data.get("time_unix_nano"), "time_unix_nano")
    if isinstance(data.get("attributes"), dict):
        kv_to_pb(data["attributes"], out.attributes)
    out.dropped_attributes_count = _uint(data.get("dropped_attributes_count"), "", 0)


def _link_to_pb(data: dict, out: Any) -> None:
    out.span_id = id_to_pb(data.get("span_id"), "span", 8)
    out.trace_id = id_to_pb(data.get("trace_id"), "trace", 16)
    out.trace_state = _str(data.get("trace_state"), "trace_state")
    kv_to_pb(_record(data.get("attributes"), "attributes"), out.attributes)
    key = "dropped_attributes_count"
    out.dropped_attributes_count = _uint(data.get(key), key)


def trace_to_json(request: Any) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` → ``{"trace": [...]}``."""
    return resources_to_json("trace", request.resource_spans, span_to_json)


def trace_to_pb(data: Any) -> Any:
    """``{"trace": [...]}`` → an ``ExportTraceServiceRequest``."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    resources_to_pb("trace", data, request.resource_spans, span_to_pb)
    return request
