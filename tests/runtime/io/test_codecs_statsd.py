"""``statsd``, ``dogstatsd`` and ``graphite-plaintext``: Tremor's unit tests (tremor-codec's
statsd.rs, dogstatsd.rs, graphite.rs), transcribed by hand: exact decoded values (int vs
float) and byte-exact re-encoding."""

from __future__ import annotations

import pytest

from runtime_support.io.codecs import codec_from

STATSD = codec_from("statsd")
DOG = codec_from("dogstatsd")
GRAPHITE = codec_from("graphite-plaintext")

STATSD_CASES = [
    ("gorets:1|c", {"type": "c", "metric": "gorets", "value": 1}),
    ("glork:320|ms", {"type": "ms", "metric": "glork", "value": 320}),
    ("gaugor:333|g", {"type": "g", "metric": "gaugor", "value": 333}),
    ("uniques:765|s", {"type": "s", "metric": "uniques", "value": 765}),
    ("horst:42.23|h", {"type": "h", "metric": "horst", "value": 42.23}),
    ("sam:7|c|@0.1", {"type": "c", "metric": "sam", "value": 7, "sample_rate": 0.1}),
    ("addy:+123|g", {"type": "g", "metric": "addy", "action": "add", "value": 123}),
    ("subastian:-234|g", {"type": "g", "metric": "subastian", "action": "sub", "value": 234}),
]


@pytest.mark.parametrize(("line", "expected"), STATSD_CASES)
def test_statsd_decodes_and_reencodes_tremors_cases(line: str, expected: dict) -> None:
    keep, value = STATSD.decode(line.encode())
    assert keep and value == expected
    assert type(value["value"]) is type(expected["value"])
    assert STATSD.encode(value) == line


@pytest.mark.parametrize("line", ["foo:1620649445.3351967|h", "foo1:12345|c", "foo2:1234567890|c"])
def test_statsd_bench_lines_round_trip(line: str) -> None:
    assert STATSD.encode(STATSD.decode(line)[1]) == line


@pytest.mark.parametrize("bad", ["gorets", "gorets:1", "gorets:x|c", "gorets:1|q", "a:1|c|@x"])
def test_statsd_rejects_malformed_metrics(bad: str) -> None:
    with pytest.raises(ValueError, match="^Invalid statsd metric$"):
        STATSD.decode(bad)


def metric(**fields: object) -> dict:
    return {"metric": fields}


DOG_CASES = [
    (
        "dog:111|g|@0.5|#foo:bar,fizz:buzz|c:123abc",
        metric(
            metric="dog",
            values=[111.0],
            type="g",
            sample_rate=0.5,
            tags=["foo:bar", "fizz:buzz"],
            container_id="123abc",
        ),
    ),
    (
        "dog:111:222:333:4.44|g|@0.5|#foo:bar,fizz:buzz|c:123abc",
        metric(
            metric="dog",
            values=[111.0, 222.0, 333.0, 4.44],
            type="g",
            sample_rate=0.5,
            tags=["foo:bar", "fizz:buzz"],
            container_id="123abc",
        ),
    ),
    (
        "dog:111|g|@0.5|#foo:bar,fizz:buzz",
        metric(
            metric="dog", values=[111.0], type="g", sample_rate=0.5, tags=["foo:bar", "fizz:buzz"]
        ),
    ),
    (
        "dog:111|g|@0.5|c:123abc",
        metric(metric="dog", values=[111.0], type="g", sample_rate=0.5, container_id="123abc"),
    ),
    (
        "dog:111|g|#foo:bar,fizz:buzz|c:123abc",
        metric(
            metric="dog",
            values=[111.0],
            type="g",
            tags=["foo:bar", "fizz:buzz"],
            container_id="123abc",
        ),
    ),
    (
        "dog:111|g|#foo:bar,fizz:buzz",
        metric(metric="dog", values=[111.0], type="g", tags=["foo:bar", "fizz:buzz"]),
    ),
    ("dog:111|g|#foo:bar", metric(metric="dog", values=[111.0], type="g", tags=["foo:bar"])),
    ("dog:111|g|c:123abc", metric(metric="dog", values=[111.0], type="g", container_id="123abc")),
    ("dog:1|c", metric(type="c", metric="dog", values=[1.0])),
    ("dog:320|ms", metric(type="ms", metric="dog", values=[320.0])),
    (
        "_e{21,36}:An exception occurred|Cannot parse CSV file from 10.0.0.17|t:warning"
        "|#err_type:bad_file",
        {
            "event": {
                "title": "An exception occurred",
                "text": "Cannot parse CSV file from 10.0.0.17",
                "type": "warning",
                "tags": ["err_type:bad_file"],
            }
        },
    ),
    (
        "_e{21,36}:An exception occurred|Cannot parse CSV file from 10.0.0.17",
        {
            "event": {
                "title": "An exception occurred",
                "text": "Cannot parse CSV file from 10.0.0.17",
            }
        },
    ),
    (
        "_e{4,6}:Test|A Test|d:1663016695|h:test.example.com|k:a1b2c3|p:normal|s:test"
        "|t:warning|#err_type:bad_file|c:123abc",
        {
            "event": {
                "title": "Test",
                "text": "A Test",
                "timestamp": 1_663_016_695,
                "hostname": "test.example.com",
                "aggregation_key": "a1b2c3",
                "priority": "normal",
                "source": "test",
                "type": "warning",
                "tags": ["err_type:bad_file"],
                "container_id": "123abc",
            }
        },
    ),
    (
        "_sc|Redis connection|2|#env:dev|m:Redis connection timed out after 10s",
        {
            "service_check": {
                "name": "Redis connection",
                "status": 2,
                "tags": ["env:dev"],
                "message": "Redis connection timed out after 10s",
            }
        },
    ),
    ("_sc|Redis connection|2", {"service_check": {"name": "Redis connection", "status": 2}}),
    (
        "_sc|Redis connection|2|d:1663016695|h:test.example.com|#env:dev"
        "|m:Redis connection timed out after 10s|c:123abc",
        {
            "service_check": {
                "name": "Redis connection",
                "status": 2,
                "timestamp": 1_663_016_695,
                "hostname": "test.example.com",
                "tags": ["env:dev"],
                "message": "Redis connection timed out after 10s",
                "container_id": "123abc",
            }
        },
    ),
]


@pytest.mark.parametrize(("line", "expected"), DOG_CASES)
def test_dogstatsd_decodes_and_reencodes_tremors_cases(line: str, expected: dict) -> None:
    keep, value = DOG.decode(line.encode())
    assert keep and value == expected
    if "metric" in value:
        assert all(type(v) is float for v in value["metric"]["values"])
    assert DOG.encode(value) == line


@pytest.mark.parametrize(
    "line",
    [
        "foo:1620649445.3351967|h",
        "foo1:12345|c",
        "foo2:1234567890|c",
        "_e{21,36}:An exception occurred|Cannot parse CSV file from 10.0.0.17"
        "|#env:dev,test:testing",
    ],
)
def test_dogstatsd_bench_lines_round_trip(line: str) -> None:
    assert DOG.encode(DOG.decode(line)[1]) == line


@pytest.mark.parametrize("bad", ["dog:111", "_e{4,6}:Test", "_sc|Redis connection", "_sc|x|4"])
def test_dogstatsd_rejects_bad_payloads(bad: str) -> None:
    with pytest.raises(ValueError, match="^Invalid dogstatsd metric$"):
        DOG.decode(bad)


def test_graphite_name_value_timestamp() -> None:
    keep, value = GRAPHITE.decode(b"beep.boop 7 1620649445")
    assert value == {"metric": "beep.boop", "value": 7, "timestamp": 1_620_649_445_000_000_000}
    assert type(value["value"]) is int
    assert GRAPHITE.encode(value) == "beep.boop 7 1620649445"


def test_graphite_minus_one_is_the_ingest_time_truncated_to_seconds_on_the_wire() -> None:
    keep, value = GRAPHITE.decode(b"beep.boop 320.0 -1", ingest_ns=1_234_000_000_000)
    assert value == {"metric": "beep.boop", "value": 320.0, "timestamp": 1_234_000_000_000}
    assert type(value["value"]) is float
    assert GRAPHITE.encode(value) == "beep.boop 320.0 1234"


@pytest.mark.parametrize(
    "bad", [b"", b"metric.no.measure.no.timestamp", b"metric.with.measure.no.timestamp 320.0"]
)
def test_graphite_rejects_incomplete_lines(bad: bytes) -> None:
    with pytest.raises(ValueError, match="^Invalid graphite plaintext protocol metric$"):
        GRAPHITE.decode(bad)


@pytest.mark.parametrize("value", [{"metric": "beep.boop", "value": 7}, {"metric": "beep.boop"}])
def test_graphite_encode_needs_value_and_timestamp(value: dict) -> None:
    from runtime_support.io.codecs.graphite import GraphiteCodec

    with pytest.raises(ValueError, match="^Invalid graphite plaintext protocol metric$"):
        GraphiteCodec.encode(value, None)
