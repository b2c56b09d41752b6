"""``otel_server`` and ``otel_client`` against real OTLP/gRPC peers.

- The OpenTelemetry Python SDK's OTLP gRPC exporters (opentelemetry-sdk +
  opentelemetry-exporter-otlp-proto-grpc) send a span, a log record and metrics to our
  otel_server: each request is one event in Tremor's JSON shape (expected values written by hand
  from tremor-runtime's logs.rs / metrics.rs / trace.rs conversions).
- Our otel_client sends Tremor's ``otel-client`` integration test input (tests/data/otel/
  client_in.json) to a grpcio server with opentelemetry-proto's servicers (tests/support/servers/
  otel_peer.py), which records each request; Tremor's test asserts the collector printed
  ``Body: snot badger`` and ``Status message : woot``: the same fields are checked here.
- Round trip: requests sent to otel_server → pipeline → otel_client reach the peer unchanged.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, part_lines, serve_in_thread
from tests.support.paths import ROOT
from tests.support.servers import net_peer
from tests.support.spark_cluster import free_port

pytest.importorskip("grpc", reason="grpcio is absent: run .ci/install.d/otel.sh")
pytest.importorskip(
    "opentelemetry.exporter.otlp.proto.grpc",
    reason="the OpenTelemetry SDK's OTLP exporter is absent: run .ci/install.d/otel.sh",
)
from tests.support.servers import otel_peer  # noqa: E402

DATA = ROOT / "tests" / "data" / "otel"

SERVER_FLOW = """
define flow server
flow
  define connector server from otel_server
  with config = {"url": @URL@}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector server; create connector out; create pipeline p;
  connect /connector/server to /pipeline/p;
  connect /pipeline/p/out to /connector/out;
end;
deploy flow server;
"""

CLIENT_FLOW = """
define flow client
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector client from otel_client
  with config = {"url": @URL@}
  end;
  define pipeline p pipeline select event from in into out; end;
  create connector src; create connector client; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/client;
end;
deploy flow client;
"""

ECHO_FLOW = """
define flow echo
flow
  define connector server from otel_server with config = {"url": @URL@} end;
  define connector client from otel_client with config = {"url": @PEER@} end;
  define pipeline p pipeline select event from in into out; end;
  create connector server; create connector client; create pipeline p;
  connect /connector/server to /pipeline/p;
  connect /pipeline/p/out to /connector/client;
end;
deploy flow echo;
"""


def sdk_send(port: int) -> dict[str, Any]:
    """One span, one log record and one metrics export from the OpenTelemetry SDK to
    127.0.0.1:``port``; what the test needs to know of them (ids)."""
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.trace import SpanKind, Status, StatusCode

    endpoint = f"127.0.0.1:{port}"
    resource = Resource.create({"service.name": "otel-test", "host.name": "h1"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint, insecure=True))
    )
    tracer = tracer_provider.get_tracer("tests.otel", "1.0")
    with tracer.start_as_current_span("GET /owners", kind=SpanKind.SERVER) as span:
        span.set_attribute("http.target", "/owners?lastName=snot")
        span.set_attribute("http.status_code", 200)
        span.add_event("cache miss", {"key": "owners"})
        span.set_status(Status(StatusCode.ERROR, "boom"))
        context = span.get_span_context()
    tracer_provider.shutdown()

    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=endpoint, insecure=True))
    )
    from opentelemetry._logs import SeverityNumber

    logger_provider.get_logger("tests.otel.logs", "2.0").emit(
        body="snot badger", severity_number=SeverityNumber.WARN, severity_text="WARN",
        attributes={"user": "badger", "n": 3},
    )  # fmt: skip
    logger_provider.shutdown()

    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=endpoint, insecure=True), export_interval_millis=3_600_000
    )
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    meter = meter_provider.get_meter("tests.otel.metrics", "3.0")
    meter.create_counter("requests", unit="1", description="served").add(5, {"route": "/owners"})
    meter.create_histogram("latency", unit="ms").record(12.5, {"route": "/owners"})
    meter_provider.shutdown()  # exports once
    return {
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
    }


def listening(port: int) -> bool:
    """Does 127.0.0.1:``port`` accept connections (grpcio binds an IPv6 dual-stack socket, which
    /proc/net/tcp does not list)?"""
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


RESOURCE = {"service.name": "otel-test", "host.name": "h1"}


def check_resource(entry: dict[str, Any]) -> None:
    attributes = entry["resource"]["attributes"]
    assert {k: attributes[k] for k in RESOURCE} == RESOURCE
    assert entry["resource"]["dropped_attributes_count"] == 0


def check_trace(event: dict[str, Any], ids: dict[str, str]) -> None:
    (entry,) = event["trace"]
    check_resource(entry)
    (group,) = entry["instrumentation_library_spans"]
    assert group["instrumentation_library"] == {"name": "tests.otel", "version": "1.0"}
    (span,) = group["spans"]
    assert span["attributes"] == {"http.target": "/owners?lastName=snot", "http.status_code": 200}
    assert span["name"] == "GET /owners" and span["kind"] == 2  # SPAN_KIND_SERVER
    assert span["status"] == {"code": 2, "deprecated_code": 0, "message": "boom"}
    assert span["trace_id"] == ids["trace_id"] and span["span_id"] == ids["span_id"]
    assert span["parent_span_id"] == "" and span["links"] == [] and span["trace_state"] == ""
    (cache_miss,) = span["events"]
    assert cache_miss["name"] == "cache miss" and cache_miss["attributes"] == {"key": "owners"}
    assert cache_miss["dropped_attributes_count"] == 0
    assert 0 < span["start_time_unix_nano"] <= span["end_time_unix_nano"]
    assert span["dropped_attributes_count"] == span["dropped_events_count"] == 0


def check_logs(event: dict[str, Any]) -> None:
    (entry,) = event["logs"]
    check_resource(entry)
    (group,) = entry["instrumentation_library_logs"]
    assert group["instrumentation_library"] == {"name": "tests.otel.logs", "version": "2.0"}
    (log,) = group["logs"]
    assert log["body"] == "snot badger" and log["attributes"] == {"user": "badger", "n": 3}
    assert log["severity_number"] == 13 and log["severity_text"] == "WARN"  # WARN is 13
    assert log["name"] == "" and log["flags"] == 0 and log["dropped_attributes_count"] == 0
    assert log["span_id"] == "" and log["trace_id"] == ""  # emitted outside a span


def check_metrics(event: dict[str, Any]) -> None:
    (entry,) = event["metrics"]
    check_resource(entry)
    (group,) = entry["instrumentation_library_metrics"]
    assert group["instrumentation_library"] == {"name": "tests.otel.metrics", "version": "3.0"}
    by_name = {m["name"]: m for m in group["metrics"]}
    requests, latency = by_name["requests"], by_name["latency"]
    assert (requests["unit"], requests["description"]) == ("1", "served")
    total = requests["data"]["double-sum"]
    assert total["is_monotonic"] is True and total["aggregation_temporality"] == 2  # cumulative
    (point,) = total["data_points"]
    assert point["value"] == 5 and type(point["value"]) is int  # as_int
    assert point["attributes"] == {"route": "/owners"} and point["exemplars"] == []
    histogram = latency["data"]["double-histogram"]
    (point,) = histogram["data_points"]
    assert (
        point["sum"] == 12.5 and point["count"] == 1 and point["attributes"] == {"route": "/owners"}
    )
    assert len(point["bucket_counts"]) == len(point["explicit_bounds"]) + 1
    assert sum(point["bucket_counts"]) == 1


@pytest.mark.spark
def test_server_receives_the_sdk_exports(spark, tmp_path: Path) -> None:
    port = free_port()
    module = build(SERVER_FLOW, URL=f"127.0.0.1:{port}", OUT=tmp_path / "out")
    thread = serve_in_thread(spark, module, 3)
    net_peer.wait_until(lambda: listening(port), 120, "the otel_server")
    ids = sdk_send(port)
    thread.join(300)
    events = {next(iter(e)): e for e in part_lines(tmp_path / "out")}
    assert sorted(events) == ["logs", "metrics", "trace"]  # one event per export request
    check_trace(events["trace"], ids)
    check_logs(events["logs"])
    check_metrics(events["metrics"])


def expected_client_requests() -> dict[str, Any]:
    """Tremor's otel-client/in.json as the collector receives it, written by hand."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    scope = {"name": "name", "version": "v0.1.2"}
    resource = {"dropped_attributes_count": 8}
    aaaa8, aaaa16 = "YWFhYWFhYWE=", "YWFhYWFhYWFhYWFhYWFhYQ=="  # base64 of 8 / 16 bytes 0x61
    logs = {"resource_logs": [{"resource": resource, "schema_url": "schema_url", "scope_logs": [{
        "scope": scope, "schema_url": "schema_url", "log_records": [{
            "flags": 128, "span_id": aaaa8, "trace_id": aaaa16, "dropped_attributes_count": 100,
            "body": {"string_value": "snot badger"}}]}]}]}  # fmt: skip
    trace = {"resource_spans": [{"resource": resource, "schema_url": "schema_url", "scope_spans": [{
        "scope": scope, "schema_url": "schema_url", "spans": [{
            "name": "test", "dropped_attributes_count": 100, "trace_state": "snot:badger",
            "span_id": aaaa8, "trace_id": aaaa16, "status": {"message": "woot"},
            "dropped_events_count": 11, "dropped_links_count": 13}]}]}]}  # fmt: skip
    return {
        "logs": json_format.ParseDict(logs, ExportLogsServiceRequest(), True),
        "trace": json_format.ParseDict(trace, ExportTraceServiceRequest(), True),
    }


@pytest.mark.spark
def test_client_sends_tremors_integration_input(spark, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text((DATA / "client_in.json").read_text())  # its last line "exit": not sent
    peer, port, out = otel_peer.start(str(tmp_path))
    try:
        module = build(CLIENT_FLOW, IN=source, URL=f"127.0.0.1:{port}")
        run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
        net_peer.wait_until(lambda: otel_peer.count(out) >= 3, 30, "three requests at the peer")
    finally:
        otel_peer.stop(peer)
    got = dict(otel_peer.requests(out))
    assert sorted(got) == ["logs", "metrics", "trace"]
    expected = expected_client_requests()
    assert got["logs"] == expected["logs"] and got["trace"] == expected["trace"]
    log = got["logs"].resource_logs[0].scope_logs[0].log_records[0]
    assert log.body.string_value == "snot badger"  # Tremor: "Body: snot badger"
    span = got["trace"].resource_spans[0].scope_spans[0].spans[0]
    assert span.status.message == "woot"  # Tremor: "Status message : woot"
    metric = got["metrics"].resource_metrics[0].scope_metrics[0].metrics[0]
    (point,) = metric.gauge.data_points
    assert (metric.name, point.as_int, point.attributes[0].key) == ("test", 42, "snot")


def raw_requests() -> list[tuple[str, Any]]:
    """Requests written by hand (every field Tremor's shape carries), sent with grpcio stubs."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )

    expected = expected_client_requests()
    attrs = [{"key": "k", "value": {"array_value": {"values": [{"int_value": "7"},
             {"double_value": 1.5}, {"kvlist_value": {"values": [
                 {"key": "b", "value": {"bool_value": True}}]}}]}}}]  # fmt: skip
    point = {"start_time_unix_nano": "1", "time_unix_nano": "2", "as_double": 0.5,
             "attributes": attrs}  # fmt: skip
    metrics = {"resource_metrics": [{"scope_metrics": [{"metrics": [
        {"name": "g", "gauge": {"data_points": [point]}},
        {"name": "s", "summary": {"data_points": [{"count": "3", "sum": 4.5, "quantile_values": [
            {"quantile": 0.5, "value": 1.0}]}]}},
    ]}]}]}  # fmt: skip
    parsed = json_format.ParseDict(metrics, ExportMetricsServiceRequest(), True)
    return [("trace", expected["trace"]), ("logs", expected["logs"]), ("metrics", parsed)]


def send_raw(port: int, requests: list[tuple[str, Any]]) -> None:
    import grpc
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2_grpc import (
        MetricsServiceStub,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stubs = {"logs": LogsServiceStub, "metrics": MetricsServiceStub, "trace": TraceServiceStub}
        for kind, request in requests:
            stubs[kind](channel).Export(request, timeout=60)


@pytest.mark.spark
def test_round_trip_server_pipeline_client(spark, tmp_path: Path) -> None:
    """otel_server → pipeline → otel_client: the peer receives what was sent, unchanged."""
    peer, peer_port, out = otel_peer.start(str(tmp_path))
    port = free_port()
    try:
        module = build(ECHO_FLOW, URL=f"127.0.0.1:{port}", PEER=f"http://127.0.0.1:{peer_port}")
        thread = serve_in_thread(spark, module, 3)
        net_peer.wait_until(lambda: listening(port), 120, "the otel_server")
        sent = raw_requests()
        threading.Thread(target=send_raw, args=(port, sent), daemon=True).start()
        thread.join(300)
        net_peer.wait_until(lambda: otel_peer.count(out) >= 3, 30, "three requests at the peer")
    finally:
        otel_peer.stop(peer)
    got = sorted(otel_peer.requests(out), key=lambda pair: pair[0])
    assert got == sorted(sent, key=lambda pair: pair[0])


@pytest.mark.spark
def test_stream_round_trip(tmp_path: Path) -> None:
    """A streaming job (``--stream``): SDK spans received by otel_server reach the peer."""
    import os
    import subprocess
    import sys

    from tests.support.paths import ROOT

    peer, peer_port, out = otel_peer.start(str(tmp_path))
    port = free_port()
    text = ECHO_FLOW.replace("@URL@", json.dumps(f"127.0.0.1:{port}"))
    (tmp_path / "flow.troy").write_text(
        text.replace("@PEER@", json.dumps(f"127.0.0.1:{peer_port}"))
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    build_cmd = [sys.executable, "-m", "compiler", "build", str(tmp_path / "flow.troy")]
    subprocess.run([*build_cmd, "-o", str(tmp_path / "job.py")], check=True, env=env, cwd=ROOT)
    command = [sys.executable, str(tmp_path / "job.py"), "--stream", "--checkpoint"]
    command += [str(tmp_path / "ck"), "--trigger", "500ms"]
    with open(tmp_path / "job.log", "ab") as log:
        job = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        net_peer.wait_until(
            lambda: listening(port), 180, "the streaming otel_server", tmp_path / "job.log"
        )
        ids = sdk_send(port)
        net_peer.wait_until(
            lambda: otel_peer.count(out) >= 3 or job.poll() is not None,
            180,
            "3 requests at the peer",
            tmp_path / "job.log",
        )
    finally:
        died = job.poll() is not None
        job.terminate()
        job.wait(60)
        otel_peer.stop(peer)
    assert not died, (tmp_path / "job.log").read_text()[-4000:]
    got = dict(otel_peer.requests(out))
    assert sorted(got) == ["logs", "metrics", "trace"]
    span = got["trace"].resource_spans[0].scope_spans[0].spans[0]
    assert (span.span_id.hex(), span.trace_id.hex()) == (ids["span_id"], ids["trace_id"])
    assert span.status.message == "boom" and span.name == "GET /owners"
    log = got["logs"].resource_logs[0].scope_logs[0].log_records[0]
    assert log.body.string_value == "snot badger"


def flow_with(connector: str) -> str:
    return f"""define flow main flow
  define connector s from {connector} end;
  define pipeline p pipeline select event from in into out; end;
  create connector s; create pipeline p;
  connect /connector/s to /pipeline/p;
  connect /pipeline/p/out to /connector/s;
end; deploy flow main;"""


@pytest.mark.parametrize(
    ("connector", "message"),
    [
        ('otel_server with config = {"url": "127.0.0.1:1"}', "only a source in tremorc"),
        ('otel_client with config = {"url": "127.0.0.1:1"}', "only a sink in tremorc"),
        (
            'otel_client with codec = "json", config = {"url": "127.0.0.1:1"}',
            "The `otel_client` connector takes no `codec`",
        ),
        (
            'otel_server with config = {"url": "https://127.0.0.1:1"}',
            "TLS is not implemented by tremorc's otel connectors",
        ),
        (
            'otel_server with config = {"traces": true}',
            "Unknown config key `traces` for connector `otel_server`",
        ),
        ('otel_server with config = {"logs": 1}', "`logs`"),
    ],
)
def test_compile_errors(connector: str, message: str) -> None:
    from compiler.diagnostics import CompileError

    with pytest.raises(CompileError) as err:
        compile_source(Source("t.troy", flow_with(connector)), "deploy")
    assert message in str(err.value)


@pytest.mark.long
@pytest.mark.spark
def test_100k_events_through_otel_server_and_otel_client() -> None:
    """100k requests each way (``-m long``; benchmarks/connector_otel.py prints the figures)."""
    from benchmarks.connector_otel import run

    results = {r["connector"]: r for r in run(100_000)}
    assert results["otel_server"]["events"] == 100_000, results["otel_server"]
    assert results["otel_client"]["events"] == 100_000, results["otel_client"]
    assert all(r["first_event_s"] is not None for r in results.values())
