"""OTLP protobuf ↔ Tremor's JSON shape (runtime_support/io/connectors/otel/convert.py, metrics.py).

Expectations transcribed by hand from tremor-runtime ``tremor-connectors-otel`` unit tests
(common.rs, resource.rs, logs.rs, metrics.rs, trace.rs) and from the ``otel`` integration
test's in.json / expected.json (tests/data/otel/). Differences to Tremor (OTLP moved on since
Tremor's copy): a log record's ``name`` reads ``""``, ``deprecated_code`` ``0`` (see
convert.py's module doc).
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip(
    "opentelemetry.proto", reason="opentelemetry-proto is absent: run .ci/install.d/otel.sh"
)

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (  # noqa: E402
    ExportLogsServiceRequest,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (  # noqa: E402
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.common.v1 import common_pb2 as C  # noqa: E402, N812
from opentelemetry.proto.logs.v1 import logs_pb2 as L  # noqa: E402, N812
from opentelemetry.proto.metrics.v1 import metrics_pb2 as M  # noqa: E402, N812
from opentelemetry.proto.resource.v1.resource_pb2 import Resource  # noqa: E402

from runtime_support.io.connectors.otel import convert  # noqa: E402
from runtime_support.io.connectors.otel.convert import OtelError  # noqa: E402
from runtime_support.io.connectors.otel.metrics import metrics_to_json, metrics_to_pb  # noqa: E402
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "otel"
I64_MAX, I64_MIN = (1 << 63) - 1, -(1 << 63)


def any_value(**kw: object) -> C.AnyValue:
    return C.AnyValue(**kw)


@pytest.mark.parametrize(
    ("pb", "expected"),
    [
        (any_value(), None),
        (any_value(string_value="snot"), "snot"),
        (any_value(string_value=""), ""),
        (any_value(bool_value=True), True),
        (any_value(bool_value=False), False),
        (any_value(int_value=0), 0),
        (any_value(int_value=I64_MAX), I64_MAX),
        (any_value(int_value=I64_MIN), I64_MIN),
        (any_value(double_value=0.0), 0.0),
        (any_value(double_value=1.7976931348623157e308), 1.7976931348623157e308),
        (any_value(double_value=-1.7976931348623157e308), -1.7976931348623157e308),
        (any_value(array_value=C.ArrayValue(values=[any_value(string_value="snot")])), ["snot"]),
        (any_value(array_value=C.ArrayValue()), []),
        (
            any_value(
                kvlist_value=C.KeyValueList(
                    values=[C.KeyValue(key="badger", value=any_value(string_value="snot"))]
                )
            ),
            {"badger": "snot"},
        ),
        (any_value(kvlist_value=C.KeyValueList()), {}),
    ],
)
def test_any_value_both_ways(pb: C.AnyValue, expected: object) -> None:
    """common.rs ``any_value_*``: pb → json is ``expected``, and back again is ``pb``."""
    json_value = convert.any_to_json(pb)
    assert json_value == expected and type(json_value) is type(expected)
    back = C.AnyValue()
    convert.any_to_pb(json_value, back)
    assert back == pb


def test_unsigned_past_i64_wraps() -> None:
    back = C.AnyValue()
    convert.any_to_pb(1 << 63, back)
    assert back.int_value == I64_MIN  # Tremor casts u64 to i64


def test_key_values_resource_and_library() -> None:
    pairs = [C.KeyValue(key="snot", value=any_value(string_value="snot"))]
    assert convert.kv_to_json(pairs) == {"snot": "snot"}
    resource = Resource(attributes=[C.KeyValue(key="snot", value=any_value(string_value="badger"))])
    resource.dropped_attributes_count = 9
    as_json = convert.resource_to_json(resource)
    assert as_json == {"attributes": {"snot": "badger"}, "dropped_attributes_count": 9}
    back = Resource()
    convert.resource_to_pb(as_json, back)
    assert back == resource
    scope = C.InstrumentationScope(name="name", version="v0.1.2")
    assert convert.scope_to_json(scope) == {"name": "name", "version": "v0.1.2"}


def test_ids() -> None:
    """id.rs: ids are lower-case hex; a hex string, bytes or a byte array converts back."""
    assert convert.hex_id(bytes(range(8))) == "0001020304050607"
    assert convert.id_to_pb("0001020304050607", "span", 8) == bytes(range(8))
    assert convert.id_to_pb(list(range(16)), "trace", 16) == bytes(range(16))
    assert convert.id_to_pb("", "parent span", 8, allow_empty=True) == b""
    for bad in ("00", [256] * 8, "zz" * 8, 7):
        with pytest.raises(OtelError):
            convert.id_to_pb(bad, "span", 8)


def log_request(name_severity: tuple[int, str] = (9, "INFO")) -> ExportLogsServiceRequest:
    number, text = name_severity
    record = L.LogRecord(
        time_unix_nano=0, severity_number=number, severity_text=text,
        body=any_value(string_value="snot"), dropped_attributes_count=100, flags=128,
        span_id=b"\x01" * 8, trace_id=b"\x02" * 16,
    )  # fmt: skip
    scope = L.ScopeLogs(
        schema_url="schema_url",
        scope=C.InstrumentationScope(name="name", version="v0.1.2"),
        log_records=[record],
    )
    resource = Resource(dropped_attributes_count=8)
    return ExportLogsServiceRequest(
        resource_logs=[
            L.ResourceLogs(schema_url="schema_url", resource=resource, scope_logs=[scope])
        ]
    )


def expected_logs(number: int, text: str) -> dict:
    """logs.rs ``resource_logs`` (``name``: "" on today's OTLP, which has no such field)."""
    return {
        "logs": [
            {
                "resource": {"attributes": {}, "dropped_attributes_count": 8},
                "schema_url": "schema_url",
                "instrumentation_library_logs": [
                    {
                        "instrumentation_library": {"name": "name", "version": "v0.1.2"},
                        "schema_url": "schema_url",
                        "logs": [
                            {
                                "severity_number": number,
                                "flags": 128,
                                "span_id": "0101010101010101",
                                "trace_id": "02020202020202020202020202020202",
                                "dropped_attributes_count": 100,
                                "time_unix_nano": 0,
                                "severity_text": text,
                                "name": "",
                                "attributes": {},
                                "body": "snot",
                            }
                        ],
                    }
                ],
            }
        ]
    }


@pytest.mark.parametrize("severity", [(9, "INFO"), (0, "")])
def test_resource_logs(severity: tuple[int, str]) -> None:
    """logs.rs ``resource_logs`` and ``resource_logs_severity_unspecified_regression``."""
    request = log_request(severity)
    as_json = convert.logs_to_json(request)
    assert as_json == expected_logs(*severity)
    assert convert.logs_to_pb(as_json) == request


def test_invalid_logs() -> None:
    """Tremor's checks: flags are 0 or 128, severity 0..=24; ``logs`` must be an array."""
    bad_flags = log_request()
    bad_flags.resource_logs[0].scope_logs[0].log_records[0].flags = 1
    with pytest.raises(OtelError, match="Invalid trace flags: 1"):
        convert.logs_to_json(bad_flags)
    with pytest.raises(OtelError, match="Invalid severity number: 25"):
        convert.logs_to_json(log_request((25, "")))
    with pytest.raises(OtelError):
        convert.logs_to_pb({"logs": 1})


def test_integration_trace_round_trip() -> None:
    """tremor-cli/tests/integration/otel: in.json sent by otel_client and received by
    otel_server is expected.json (the conversions both ways, without the network)."""
    inputs = [json.loads(line) for line in (DATA / "in.json").read_text().splitlines()]
    expected = [json.loads(line) for line in (DATA / "expected.json").read_text().splitlines()]
    assert [convert.trace_to_json(convert.trace_to_pb(event)) for event in inputs] == expected


def metric_request(data: dict) -> ExportMetricsServiceRequest:
    metric = M.Metric(name="test", description="d", unit="u", **data)
    scope = M.ScopeMetrics(scope=C.InstrumentationScope(name="n", version="v"), metrics=[metric])
    return ExportMetricsServiceRequest(resource_metrics=[M.ResourceMetrics(scope_metrics=[scope])])


def number_point(**value: object) -> M.NumberDataPoint:
    return M.NumberDataPoint(start_time_unix_nano=0, time_unix_nano=0, **value)


POINT = {"start_time_unix_nano": 0, "time_unix_nano": 0, "attributes": {}}
METRICS = [
    (  # metrics.rs metrics_data_double_sum
        {"sum": M.Sum(data_points=[number_point(as_double=43.43)])},
        {
            "double-sum": {
                "is_monotonic": False,
                "data_points": [{**POINT, "exemplars": [], "value": 43.43}],
                "aggregation_temporality": 0,
            }
        },  # noqa: E501
    ),
    (  # metrics_data_double_gauge
        {"gauge": M.Gauge(data_points=[number_point(as_double=43.43)])},
        {"double-gauge": {"data_points": [{**POINT, "exemplars": [], "value": 43.43}]}},
    ),
    (  # metrics_data_double_histo
        {"histogram": M.Histogram(data_points=[M.HistogramDataPoint(count=5, sum=10.0)])},
        {
            "double-histogram": {
                "data_points": [
                    {
                        **POINT,
                        "exemplars": [],
                        "sum": 10.0,
                        "count": 5,
                        "explicit_bounds": [],
                        "bucket_counts": [],
                    }
                ],
                "aggregation_temporality": 0,
            }
        },  # noqa: E501
    ),
    (  # metrics_data_double_summary
        {"summary": M.Summary(data_points=[M.SummaryDataPoint(count=0, sum=0.0)])},
        {
            "double-summary": {
                "data_points": [{**POINT, "quantile_values": [], "sum": 0.0, "count": 0}]
            }
        },  # noqa: E501
    ),
]


@pytest.mark.parametrize(("data", "expected"), METRICS)
def test_metrics_data(data: dict, expected: dict) -> None:
    request = metric_request(data)
    as_json = metrics_to_json(request)
    group = as_json["metrics"][0]["instrumentation_library_metrics"][0]
    assert group["instrumentation_library"] == {"name": "n", "version": "v"}
    assert group["metrics"] == [{"name": "test", "description": "d", "data": expected, "unit": "u"}]
    assert metrics_to_pb(as_json) == request


def test_int_metrics_become_integer_points() -> None:
    """Tremor's ``int-gauge`` (the otel-client integration test's metric, removed from OTLP):
    sent as a gauge of integer points, its string labels as attributes."""
    event = json.loads((DATA / "client_in.json").read_text().splitlines()[1])
    got = metrics_to_pb(event).resource_metrics[0].scope_metrics[0].metrics[0]
    label = C.KeyValue(key="snot", value=any_value(string_value="badger"))
    point = M.NumberDataPoint(
        start_time_unix_nano=1656933716264000000, time_unix_nano=1656933716265000000,
        as_int=42, attributes=[label],
    )  # fmt: skip
    expected = M.Metric(
        name="test", description="blah blah blah blah", unit="badgerfeet",
        gauge=M.Gauge(data_points=[point]),
    )  # fmt: skip
    assert got == expected


def test_invalid_metrics() -> None:
    with pytest.raises(OtelError, match="metric::Data"):
        metrics_to_pb(
            {"metrics": [{"instrumentation_library_metrics": [{"metrics": [{"data": {}}]}]}]}
        )
    with pytest.raises(OtelError, match="missing field `attributes`"):
        metrics_to_pb({"metrics": [{"instrumentation_library_metrics": [{"metrics": [
            {"data": {"double-gauge": {"data_points": [{"time_unix_nano": 0}]}}}]}]}]})  # fmt: skip
