"""``influx`` and ``binflux``: Tremor's unit tests (tremor-codec/src/codec/influx.rs,
binflux.rs), their inputs and expected values transcribed by hand."""

from __future__ import annotations

import struct

import pytest

from runtime_support.io.codecs import codec_from

INFLUX = codec_from("influx")
BINFLUX = codec_from("binflux")


def point(measurement: str, tags: dict, fields: dict, timestamp: int) -> dict:
    return {"measurement": measurement, "tags": tags, "fields": fields, "timestamp": timestamp}


W = "weather"
LOC = {"location": "us-midwest"}
T0 = 1_465_839_830_100_400_200

# influx.rs get_data_for_tests (value side; the round trip encodes it, decodes it back)
CASES = [
    point(W, {"location": "us,midwest"}, {"temperature": 82.0}, T0),
    point(W, {"location_place": "us-midwest"}, {"temp=erature": 82.0}, T0),
    point(W, {"location place": "us-midwest"}, {"temperature": 82.0}, T0),
    point("wea,ther", LOC, {"temperature": 82.0}, T0),
    point("wea ther", LOC, {"temperature": 82.0}, T0),
    point(W, LOC, {"temperature_str": "too\\ hot\\cold"}, T0),
    point(W, LOC, {"temperature_str": "too hot/cold"}, T0),
    point(W, LOC, {"temperature_str": "too hot\\cold"}, T0),
    point(W, LOC, {"temperature_str": "too hot\\\\cold"}, 1_465_839_830_100_400_204),
    point(W, LOC, {"temperature_str": "too hot\\\\cold"}, 1_465_839_830_100_400_205),
    point(W, LOC, {"temperature_str": "too hot\\\\\\cold"}, 1_465_839_830_100_400_206),
    point(W, LOC, {"temperature": 82.0, "bug_concentration": 98.0}, T0),
    point(W, LOC, {"temperature": 82}, T0),
]

# the byte side of the cases that influx.rs decodes directly
DECODES = [
    (b"weather,location=us\\,midwest temperature=82 1465839830100400200", CASES[0]),
    (b"weather,location_place=us-midwest temp\\=erature=82 1465839830100400200", CASES[1]),
    (b"weather,location\\ place=us-midwest temperature=82 1465839830100400200", CASES[2]),
    (b"wea\\,ther,location=us-midwest temperature=82 1465839830100400200", CASES[3]),
    (b"wea\\ ther,location=us-midwest temperature=82 1465839830100400200", CASES[4]),
    (
        b'weather,location=us-midwest temperature_str="too\\ hot\\cold" 1465839830100400200',
        CASES[5],
    ),
    (
        b'weather,location=us-midwest temperature_str="too hot/cold" 1465839830100400200',
        CASES[6],
    ),
    (
        b'weather,location=us-midwest temperature_str="too hot\\\\cold" 1465839830100400200',
        CASES[7],
    ),
    (
        b'weather,location=us-midwest temperature_str="too hot\\\\\\cold" 1465839830100400204',
        CASES[8],
    ),
    (
        b'weather,location=us-midwest temperature_str="too hot\\\\\\\\cold" 1465839830100400205',
        CASES[9],
    ),
    (
        b'weather,location=us-midwest temperature_str="too hot\\\\\\\\\\cold" 1465839830100400206',
        CASES[10],
    ),
    (
        b"weather,location=us-midwest temperature=82,bug_concentration=98 1465839830100400200",
        CASES[11],
    ),
    (b"weather,location=us-midwest temperature=82i 1465839830100400200", CASES[12]),
]


@pytest.mark.parametrize(("data", "expected"), DECODES)
def test_influx_decodes_tremors_cases(data: bytes, expected: dict) -> None:
    keep, value = INFLUX.decode(data)
    assert keep and value == expected
    # int vs float is kept: 82 is a float, 82i an integer
    assert [type(v) for v in value["fields"].values()] == [
        type(v) for v in expected["fields"].values()
    ]


@pytest.mark.parametrize("case", CASES)
def test_influx_and_binflux_round_trip_tremors_cases(case: dict) -> None:
    assert INFLUX.decode(INFLUX.encode(case)) == (True, case)
    assert BINFLUX.decode(BINFLUX.encode(case)) == (True, case)


def test_influx_encodes_the_mixed_bag_exactly() -> None:
    value = point(
        "wea,\\ ther",
        {},
        {"temp=erature": 82.0, 'too\\ \\\\\\"hot"': True},
        T0,
    )
    assert INFLUX.encode(value) == (
        'wea\\,\\\\\\ ther temp\\=erature=82.0,too\\\\\\ \\\\\\\\\\\\\\"hot\\"=true '
        "1465839830100400200"
    )


def test_influx_live_usecase_decodes_and_reencodes_byte_for_byte() -> None:
    line = (
        b"kafka_BrokerTopicMetrics,agent=jmxtrans,dc=iad1,host_name=kafka-iad1-g4-1,"
        b"junk=kafka_topic,kafka_type=server,metric_type=counter,"
        b"topic_name=customerEmailServiceMessage BytesInPerSec=0i,BytesOutPerSec=0i,"
        b"FailedFetchRequestsPerSec=0i,FetchMessageConversionsPerSec=0i,"
        b"TotalFetchRequestsPerSec=1993153i 1562179275506000000"
    )
    keep, value = INFLUX.decode(line)
    assert value == point(
        "kafka_BrokerTopicMetrics",
        {
            "agent": "jmxtrans",
            "dc": "iad1",
            "host_name": "kafka-iad1-g4-1",
            "junk": "kafka_topic",
            "kafka_type": "server",
            "metric_type": "counter",
            "topic_name": "customerEmailServiceMessage",
        },
        {
            "TotalFetchRequestsPerSec": 1_993_153,
            "BytesOutPerSec": 0,
            "BytesInPerSec": 0,
            "FailedFetchRequestsPerSec": 0,
            "FetchMessageConversionsPerSec": 0,
        },
        1_562_179_275_506_000_000,
    )
    assert INFLUX.encode(value) == line.decode()


def test_influx_missing_timestamp_is_the_ingest_time_and_comments_are_no_event() -> None:
    assert INFLUX.decode(b"m f=1i", ingest_ns=42) == (True, point("m", {}, {"f": 1}, 42))
    assert INFLUX.decode(b"# a comment") == (False, None)
    assert INFLUX.decode(b"   ") == (False, None)


@pytest.mark.parametrize(
    "bad",
    [b"weather", b"weather,location temperature=1", b"m f=", b"m f=1x", b"m f=1 notanumber"],
)
def test_influx_rejects_malformed_lines_with_tremors_message(bad: bytes) -> None:
    with pytest.raises(ValueError, match="^Invalid Influx Line Protocol data: "):
        INFLUX.decode(bad)


def test_binflux_encode_decode() -> None:
    value = point(
        "m",
        {"t1": "v1", "t2": "v2"},
        {"f1": 42, "f2": 42.0, "f3": True, "f4": False, "f5": "snot"},
        42,
    )
    data = BINFLUX.encode(value)
    # the layout: version 0, measurement, u64 timestamp, tags, typed fields (big-endian)
    assert data[:13] == b"\0\0" + b"\0\x01m" + struct.pack(">Q", 42)
    assert BINFLUX.decode(data) == (True, value)


def test_binflux_errors_are_tremors() -> None:
    from runtime_support.io.codecs.common import CodecError
    from runtime_support.io.codecs.influx import BinfluxCodec

    with pytest.raises(CodecError, match="^Invalid BInflux Line Protocol data: measurement"):
        BinfluxCodec.encode({}, None)
    with pytest.raises(CodecError, match="^Invalid BInflux Line Protocol data: timestamp"):
        BinfluxCodec.encode({"measurement": "m"}, None)
    with pytest.raises(
        CodecError,
        match="^Invalid BInflux Line Protocol data: Unknown type as influx line value: Array$",
    ):
        BinfluxCodec.encode({"measurement": "m", "timestamp": 42, "fields": {"snot": [1]}}, None)
    with pytest.raises(ValueError, match="invalid version"):
        BINFLUX.decode(b"\0\x01")
