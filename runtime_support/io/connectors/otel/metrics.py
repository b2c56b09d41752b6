"""OTLP metrics ↔ Tremor's JSON shape (tremor-runtime ``tremor-connectors-otel`` metrics.rs).

A metric is ``{name, description, unit, data}``, ``data`` one of ``double-gauge``,
``double-sum``, ``double-histogram``, ``double-summary`` (what OTLP carries today) or, client
side only, Tremor's ``int-gauge``, ``int-sum``, ``int-histogram`` (removed from OTLP: sent as a
gauge, sum or histogram of integer points, their string ``labels`` as attributes, which is what
OTLP folded them into). An exponential histogram is not in Tremor's shape: its ``data`` is null
(reported on stderr), as in Tremor, whose OTLP predates it. Tremor reads a histogram's
``bucket_counts`` from ``explicit_bounds`` (a bug); tremorc reads ``bucket_counts``.
"""

from __future__ import annotations

import sys
from typing import Any

from runtime_support.io.connectors.otel.convert import (
    OtelError,
    _array,
    _int,
    _record,
    _str,
    _uint,
    hex_id,
    id_to_pb,
    kv_to_json,
    kv_to_pb,
    resources_to_json,
    resources_to_pb,
)

__all__ = ["metrics_to_json", "metrics_to_pb"]


def _value_json(out: dict[str, Any], point: Any) -> dict[str, Any]:
    """``value`` from a ``NumberDataPoint`` / ``Exemplar`` oneof (absent when unset)."""
    kind = point.WhichOneof("value")
    if kind is not None:
        out["value"] = getattr(point, kind)
    return out


def _exemplars_json(exemplars: Any) -> list[dict[str, Any]]:
    return [
        _value_json(
            {
                "span_id": hex_id(e.span_id),
                "trace_id": hex_id(e.trace_id),
                "filtered_attributes": kv_to_json(e.filtered_attributes),
                "time_unix_nano": e.time_unix_nano,
            },
            e,
        )
        for e in exemplars
    ]


def _point_json(p: Any, **extra: Any) -> dict[str, Any]:
    return {
        "start_time_unix_nano": p.start_time_unix_nano,
        "time_unix_nano": p.time_unix_nano,
        "attributes": kv_to_json(p.attributes),
        **extra,
    }


def _number_points(points: Any) -> list[dict[str, Any]]:
    return [_value_json(_point_json(p, exemplars=_exemplars_json(p.exemplars)), p) for p in points]


def _histogram_points(points: Any) -> list[dict[str, Any]]:
    return [
        _point_json(
            p,
            exemplars=_exemplars_json(p.exemplars),
            sum=p.sum,
            count=p.count,
            explicit_bounds=list(p.explicit_bounds),
            bucket_counts=list(p.bucket_counts),
        )
        for p in points
    ]


def _summary_points(points: Any) -> list[dict[str, Any]]:
    return [
        _point_json(
            p,
            quantile_values=[{"value": q.value, "quantile": q.quantile} for q in p.quantile_values],
            sum=p.sum,
            count=p.count,
        )
        for p in points
    ]


def data_to_json(metric: Any) -> dict[str, Any] | None:
    kind = metric.WhichOneof("data")
    data = getattr(metric, kind) if kind else None
    if kind == "gauge":
        return {"double-gauge": {"data_points": _number_points(data.data_points)}}
    if kind == "sum":
        return {
            "double-sum": {
                "is_monotonic": data.is_monotonic,
                "data_points": _number_points(data.data_points),
                "aggregation_temporality": data.aggregation_temporality,
            }
        }
    if kind == "histogram":
        return {
            "double-histogram": {
                "data_points": _histogram_points(data.data_points),
                "aggregation_temporality": data.aggregation_temporality,
            }
        }
    if kind == "summary":
        return {"double-summary": {"data_points": _summary_points(data.data_points)}}
    if kind is not None:
        print(f"Warning: otel_server: metric {metric.name!r}: {kind} is not in Tremor's shape, "
              "its data is null", file=sys.stderr)  # fmt: skip
    return None


def metric_to_json(metric: Any) -> dict[str, Any]:
    return {
        "name": metric.name,
        "description": metric.description,
        "data": data_to_json(metric),
        "unit": metric.unit,
    }


def metrics_to_json(request: Any) -> dict[str, Any]:
    """An ``ExportMetricsServiceRequest`` → ``{"metrics": [...]}``."""
    return resources_to_json("metrics", request.resource_metrics, metric_to_json)


# To protobuf ------------------------------------------------------------------------------------


def _f64(data: Any, what: str) -> float:
    if type(data) in (int, float):
        return float(data)
    raise OtelError(f"`{what}` must be a number")


def _times(data: dict, out: Any) -> None:
    out.time_unix_nano = _uint(data.get("time_unix_nano"), "time_unix_nano")
    out.start_time_unix_nano = _uint(data.get("start_time_unix_nano"), "start_time_unix_nano")


def _labels(data: Any, out: Any) -> None:
    """Tremor's string ``labels`` (int points) → attributes of string values."""
    for key, value in _record(data, "labels").items():
        kv_to_pb({key: _str(value, "labels")}, out)


def _attributes(data: dict, out: Any, what: str = "attributes") -> None:
    """``attributes`` and/or ``labels`` (at least one) → attributes (Tremor's rule)."""
    label = "labels" if what == "attributes" else "filtered_labels"
    if not isinstance(data.get(what), dict) and not isinstance(data.get(label), dict):
        raise OtelError(f"missing field `{what}`")
    for key in (what, label):
        if isinstance(data.get(key), dict):
            kv_to_pb(data[key], out)


def _set_value(value: Any, out: Any, integer: bool) -> None:
    if integer:
        out.as_int = _int(value, "value")
    elif type(value) is float:
        out.as_double = value
    elif type(value) is int:
        out.as_int = value
    elif value is not None:
        raise OtelError("`value` must be a number")


def _exemplars(data: Any, out: Any, integer: bool) -> None:
    for item in _array(data, "Exemplar"):
        item = _record(item, "exemplars")
        one = out.add()
        if integer:
            _labels(item.get("filtered_labels"), one.filtered_attributes)
        else:
            _attributes(item, one.filtered_attributes, "filtered_attributes")
        one.time_unix_nano = _uint(item.get("time_unix_nano"), "time_unix_nano")
        _set_value(item.get("value"), one, integer)
        one.span_id = id_to_pb(item.get("span_id"), "span", 8)
        one.trace_id = id_to_pb(item.get("trace_id"), "trace", 16)


def _number_points_pb(data: Any, out: Any, integer: bool) -> None:
    for item in _array(data, "NumberDataPoint"):
        item, point = _record(item, "data_points"), out.add()
        if integer:
            _labels(item.get("labels"), point.attributes)
        else:
            _attributes(item, point.attributes)
        _exemplars(item.get("exemplars"), point.exemplars, integer)
        _times(item, point)
        _set_value(item.get("value"), point, integer)


def _histogram_points_pb(data: Any, out: Any, integer: bool) -> None:
    for item in _array(data, "HistogramDataPoint"):
        item, point = _record(item, "data_points"), out.add()
        if integer:
            _labels(item.get("labels"), point.attributes)
        else:
            _attributes(item, point.attributes)
        _times(item, point)
        point.sum = float(_int(item.get("sum"), "sum")) if integer else _f64(item.get("sum"), "sum")
        point.count = _uint(item.get("count"), "count")
        _exemplars(item.get("exemplars"), point.exemplars, integer)
        point.explicit_bounds.extend(
            _f64(b, "explicit_bounds") for b in _array(item.get("explicit_bounds"), "f64")
        )
        counts = _array(item.get("bucket_counts"), "u64")
        point.bucket_counts.extend(_uint(c, "bucket_counts") for c in counts)


def _summary_points_pb(data: Any, out: Any) -> None:
    for item in _array(data, "SummaryDataPoint"):
        item, point = _record(item, "data_points"), out.add()
        _attributes(item, point.attributes)
        _times(item, point)
        point.sum = _f64(item.get("sum"), "sum")
        point.count = _uint(item.get("count"), "count")
        for q in _array(item.get("quantile_values"), "ValueAtQuantile"):
            one = point.quantile_values.add()
            one.value = _f64(_record(q, "quantile_values").get("value"), "value")
            one.quantile = _f64(q.get("quantile"), "quantile")


def _sum_fields(data: dict, out: Any, temporality_only: bool = False) -> None:
    if not temporality_only:
        if type(data.get("is_monotonic")) is not bool:
            raise OtelError("`is_monotonic` must be a boolean")
        out.is_monotonic = data["is_monotonic"]
    out.aggregation_temporality = _int(data.get("aggregation_temporality"), "temporality")


def data_to_pb(data: Any, out: Any) -> None:
    """Tremor's ``data`` record → the metric ``out``'s data oneof."""
    kinds = ("int-gauge", "double-gauge", "int-sum", "double-sum", "int-histogram")
    kinds += ("double-histogram", "double-summary")
    kind = next((k for k in kinds if isinstance(data, dict) and isinstance(data.get(k), dict)), "")
    if not kind:
        raise OtelError("Invalid json to mapping for `metric::Data`")
    body, integer = data[kind], kind.startswith("int-")
    if kind.endswith("gauge"):
        out.gauge.SetInParent()
        _number_points_pb(body.get("data_points"), out.gauge.data_points, integer)
    elif kind.endswith("sum"):
        out.sum.SetInParent()
        _number_points_pb(body.get("data_points"), out.sum.data_points, integer)
        _sum_fields(body, out.sum)
    elif kind.endswith("histogram"):
        out.histogram.SetInParent()
        _histogram_points_pb(body.get("data_points"), out.histogram.data_points, integer)
        _sum_fields(body, out.histogram, temporality_only=True)
    else:
        out.summary.SetInParent()
        _summary_points_pb(body.get("data_points"), out.summary.data_points)


def metric_to_pb(data: Any, out: Any) -> None:
    data = _record(data, "metrics")
    out.name = _str(data.get("name"), "name")
    out.description = _str(data.get("description"), "description")
    out.unit = _str(data.get("unit"), "unit")
    if "data" in data:  # null too: Tremor fails the event
        data_to_pb(data["data"], out)


def metrics_to_pb(data: Any) -> Any:
    """``{"metrics": [...]}`` → an ``ExportMetricsServiceRequest``."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )

    request = ExportMetricsServiceRequest()
    resources_to_pb("metrics", data, request.resource_metrics, metric_to_pb)
    return request
