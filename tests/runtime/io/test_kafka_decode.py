"""The Kafka source's per-message work without Spark or a broker: ``$kafka_consumer`` as
Tremor's ``kafka_meta`` builds it (tremor-connectors/src/impls/kafka/consumer.rs), the
preprocessor framing and codec of a payload, and the ``meta`` column's round trip."""

from __future__ import annotations

from runtime_support.io.codecs import codec_from, framing_from
from runtime_support.io.connectors.kafka import CHUNK_BITS, _decode_message, kafka_meta
from runtime_support.spark.input_lines import SOURCE_ERROR
from runtime_support.tremor.event_meta import decode_meta, encode_meta
from runtime_support.tremor.jsonio import decode_json


def _row(**fields):
    row = {"key": None, "value": b"", "topic": "t", "partition": 1, "offset": 7}
    row.update({"timestamp": 1_700_000_000_123, "headers": []})
    row.update(fields)
    return row


def test_meta_as_tremor_builds_it() -> None:
    headers = [
        {"key": "a", "value": b"1"},
        {"key": "b", "value": None},
        {"key": "a", "value": b"2"},
    ]
    meta = kafka_meta(_row(key=b"\x00k", headers=headers))
    assert meta == {
        "key": b"\x00k",
        "headers": {"a": b"1", "b": None},  # the first header of a name wins
        "topic": "t",
        "partition": 1,
        "offset": 7,
        "timestamp": 1_700_000_000_123_000_000,  # ms → ns
    }
    assert kafka_meta(_row(timestamp=-1))["timestamp"] is None
    assert kafka_meta(_row())["headers"] is None  # no headers: null, as rdkafka reports


def test_meta_column_round_trip_keeps_binaries() -> None:
    meta = {"kafka_consumer": {"key": b"\xff\x00", "headers": {"h": b"v", "n": None}, "x": [b"a"]}}
    assert decode_meta(encode_meta(meta)) == meta
    assert decode_meta(None) == {}


def _decode(payload: bytes, codec: str, pre: list) -> dict:
    out: dict = {n: [] for n in ("mtime", "file", "block", "row", "value", "origin", "meta")}
    row = _row(value=payload)
    _decode_message(row, codec_from(codec), framing_from(pre), ("broker", 9092, "k"), out)
    return out


def test_separate_splits_a_message_into_events_in_order() -> None:
    out = _decode(b'{"a":1}\n\n{"a":2}\n', "json", ["separate"])
    assert [decode_json(v) for v in out["value"]] == [{"a": 1}, {"a": 2}]  # blank: no event
    assert out["row"] == [7 << CHUNK_BITS, (7 << CHUNK_BITS) | 2]
    assert out["origin"] == ["tremor-kafka://broker:9092/t/1/7"] * 2
    assert out["block"] == [1, 1]


def test_string_codec_and_empty_payload() -> None:
    assert [decode_json(v) for v in _decode(b"hello", "string", [])["value"]] == ["hello"]
    assert _decode(b"", "json", [])["value"] == []  # the json codec makes no event of nothing
    bad = _decode(b"{nope", "json", [])["value"]
    assert bad == [b"{nope"]  # left for the source stage, which reports it on err


def test_tremor_consumer_test_records() -> None:
    """tremor-connectors/tests/kafka/consumer.rs: its two records' events and ``$``."""
    first = _row(
        value=b'{"snot":"badger"}\n',
        key=b"foo",
        partition=1,
        offset=0,
        timestamp=42,
        headers=[{"key": "header", "value": b"snot"}],
    )
    out: dict = {n: [] for n in ("mtime", "file", "block", "row", "value", "origin", "meta")}
    _decode_message(first, codec_from("json"), framing_from([]), ("h", 1, "k"), out)
    second = _row(value=b"null\n", key=b"snot", partition=0, offset=0, timestamp=12)
    _decode_message(second, codec_from("json"), framing_from([]), ("h", 1, "k"), out)
    assert [decode_json(v) for v in out["value"]] == [{"snot": "badger"}, None]
    assert [decode_meta(m) for m in out["meta"]] == [
        {
            "kafka_consumer": {
                "key": b"foo",
                "headers": {"header": b"snot"},
                "topic": "t",
                "partition": 1,
                "offset": 0,
                "timestamp": 42_000_000,
            }
        },
        {
            "kafka_consumer": {
                "key": b"snot",
                "headers": None,
                "topic": "t",
                "partition": 0,
                "offset": 0,
                "timestamp": 12_000_000,
            }
        },
    ]


def test_a_processor_chain_and_its_errors() -> None:
    import base64

    good = _decode(base64.b64encode(b'{"a":1}'), "json", ["base64"])
    assert [decode_json(v) for v in good["value"]] == [{"a": 1}]
    bad = _decode(b"%%%", "json", ["base64"])  # not base64: an err record of the source
    assert bad["origin"] == [SOURCE_ERROR]
    record = decode_json(bad["value"][0])
    assert record["source"] == "k" and record["error"]
