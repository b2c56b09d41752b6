"""The ``confluent-schema-registry`` codec: Tremor's codec unit tests (creation, missing and
invalid ``url``) as compile errors, Confluent's wire format against a real schema registry
(karapace on a real Kafka broker, tests/support/servers/schema_registry.py), and a Kafka round trip
topic → pipeline → topic with the codec at both ends. Expected bytes are written here by hand
from the wire format (magic 0, big-endian schema id, Avro binary datum), never by the codec."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from runtime_support.io.codecs import codec_from
from runtime_support.io.codecs.common import CodecError
from runtime_support.spark.input_lines import CODEC_ERROR
from tests.support.paths import ROOT
from tests.support.servers import kafka
from tests.support.servers import schema_registry as server

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
CSR = "confluent-schema-registry"
NEEDS_SERVERS = pytest.mark.skipif(
    kafka.classpath() is None or not server.available(),
    reason=f"{kafka.skip_reason()}; {server.skip_reason()}",
)


def _codec(config: str) -> str:
    return f'{{"name": "{CSR}", "config": {config}}}'


def _flow(kind: str, codec: str) -> str:
    config = (
        '{"brokers": ["127.0.0.1:9092"], "topic": "t"}'
        if kind == "kafka_producer"
        else '{"path": "x.bin", "mode": "read"}'
    )
    return f"""define flow f
flow
  define connector c from {kind}
  with
    codec = {codec},
    config = {config}
  end;
  create connector c;
end;
deploy flow f;
"""


def _compile(troy: str) -> str:
    return compile_source(Source("flow.troy", troy), kind_of(Path("flow.troy"))).job


def _error(troy: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        _compile(troy)
    return info.value


# tremor-codec/src/codec/confluent_schema_registry.rs: test_codec_creation, invalid_config,
# invalid_url
def test_codec_creation_with_a_url() -> None:
    job = _compile(_round_trip_flow("127.0.0.1:9092", "http://localhost:8081", "a", "b"))
    assert '"config": {"url": "http://localhost:8081"}' in job


def test_invalid_config_without_url() -> None:
    troy = _flow("kafka_producer", _codec("{}"))
    error = _error(troy)
    assert "url" in str(error) and "required" in str(error).lower()


def test_invalid_url() -> None:
    troy = _flow("kafka_producer", _codec('{"url": "loc alhost:8081"}'))
    error = _error(troy)
    assert "Invalid URL `loc alhost:8081`" in str(error)
    assert troy[error.span.start : error.span.end].startswith("{")  # the caret at the codec


def test_only_at_kafka_connectors() -> None:
    error = _error(_flow("file", _codec('{"url": "http://localhost:8081"}')))
    assert "runs only at `kafka_consumer` and `kafka_producer`" in str(error)
    assert "not at `file`" in str(error)


def test_a_message_without_the_wire_format_header_is_an_err_event() -> None:
    codec = codec_from({"name": CSR, "config": {"url": "http://127.0.0.1:9"}})
    text = codec.decoded_text(b"\x01\x00\x00\x00\x01\x02")
    assert text is not None and text.startswith(CODEC_ERROR)
    assert "magic byte 1, expected 0" in text
    assert "at least 5 needed" in codec.decoded_text(b"\x00\x01")


def test_an_unreachable_registry_is_a_codec_error() -> None:
    from runtime_support.io.codecs.confluent import ConfluentCodec

    with pytest.raises(CodecError, match="can not be reached"):
        ConfluentCodec.decode(b"\x00\x00\x00\x00\x07\x02", {"url": "http://127.0.0.1:9"}, 0)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    pytest.importorskip("confluent_kafka", reason=kafka.skip_reason())
    folder = tmp_path_factory.mktemp("registry")
    with kafka.kafka_broker(folder / "kafka") as broker:
        with server.schema_registry(broker, folder / "karapace") as running:
            yield broker, running


RECORD = {
    "type": "record",
    "name": "Event",
    "fields": [
        {"name": "n", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    ],
}


def _frame(schema_id: int, datum: bytes) -> bytes:
    return b"\x00" + schema_id.to_bytes(4, "big") + datum


@NEEDS_SERVERS
def test_decode_by_schema_id_and_encode_with_the_topics_subject(registry) -> None:
    _, running = registry
    subject = f"t{uuid.uuid4().hex[:8]}"
    schema_id = running.register(f"{subject}-value", RECORD)
    config = {"url": running.url}
    # n=3 → zigzag 6; "ab" → length 2 (zigzag 4) + bytes; at=1 → 2 (a logical type: its long)
    message = _frame(schema_id, b"\x06\x04ab\x02")
    assert codec_from({"name": CSR, "config": config}).decode(message) == (
        True,
        {"n": 3, "name": "ab", "at": 1},
    )
    from runtime_support.io.codecs.confluent import for_topic

    encoder = for_topic(codec_from({"name": CSR, "config": config}), subject)
    assert encoder.encode({"n": -1, "name": "", "at": 64}) == _frame(schema_id, b"\x01\x00\x80\x01")


@NEEDS_SERVERS
def test_unknown_id_subject_and_value_are_reported(registry, capsys) -> None:
    _, running = registry
    codec = codec_from({"name": CSR, "config": {"url": running.url}})
    text = codec.decoded_text(_frame(987654, b"\x02"))
    assert text is not None and text.startswith(CODEC_ERROR) and "answered 404" in text
    from runtime_support.io.codecs.confluent import for_topic

    assert for_topic(codec, f"none{uuid.uuid4().hex}").encode({"n": 1}) is None
    assert "answered 404" in capsys.readouterr().err
    subject = f"t{uuid.uuid4().hex[:8]}"
    running.register(f"{subject}-value", RECORD)
    assert for_topic(codec, subject).encode({"n": "one"}) is None
    assert "Invalid avro value" in capsys.readouterr().err


OUT = {
    "type": "record",
    "name": "Out",
    "fields": [{"name": "n", "type": "long"}, {"name": "twice", "type": "long"}],
}


def _round_trip_flow(brokers: str, url: str, source: str, target: str) -> str:
    codec = _codec(json.dumps({"url": url}))
    return f"""define flow k2k
flow
  define connector input from kafka_consumer
  with
    codec = {codec},
    config = {{"brokers": ["{brokers}"], "topics": ["{source}"], "group_id": "g"}}
  end;
  define connector output from kafka_producer
  with
    codec = {codec},
    config = {{"brokers": ["{brokers}"], "topic": "{target}"}}
  end;
  define pipeline twice
  pipeline
    select {{"n": event.n, "twice": event.n * 2}} from in into out;
  end;
  create connector input;
  create connector output;
  create pipeline twice;
  connect /connector/input to /pipeline/twice;
  connect /pipeline/twice to /connector/output;
end;
deploy flow k2k;
"""


@NEEDS_SERVERS
def test_kafka_round_trip_through_the_registry(registry, tmp_path: Path) -> None:
    broker, running = registry
    source, target = f"in-{uuid.uuid4().hex[:8]}", f"out-{uuid.uuid4().hex[:8]}"
    broker.create_topic(source)
    broker.create_topic(target)
    in_id = running.register(f"{source}-value", RECORD)
    out_id = running.register(f"{target}-value", OUT)
    # n → zigzag 2n (one byte below 64); name "e<n>"; at 0
    names = [f"e{n}".encode() for n in range(20)]
    datums = [bytes([2 * n, 2 * len(name)]) + name + b"\0" for n, name in enumerate(names)]
    messages = [{"value": _frame(in_id, datum)} for datum in datums]
    broker.produce(source, messages)
    job = tmp_path / "job.py"
    job.write_text(_compile(_round_trip_flow(broker.bootstrap, running.url, source, target)))
    done = subprocess.run(
        [sys.executable, str(job)], env=ENV, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out = [m.value() for m in broker.consume(target, 20)]
    assert out == [_frame(out_id, bytes([2 * n, 4 * n])) for n in range(20)]


@pytest.mark.long
@NEEDS_SERVERS
def test_hundred_thousand_events_batch_and_stream() -> None:
    """benchmarks/connector_confluent.py: 100k events topic → pipeline → topic through the
    registry, batch and stream (its own servers); every event is checked in both runs."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "connector_confluent.py"), "--events", "100000"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=7200,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert [(row["run"], row["events"]) for row in rows] == [("batch", 100000), ("stream", 100000)]
