"""``json``, ``string``, ``binary``, ``null``, ``csv``, ``yaml``, ``msgpack`` and ``avro``:
Tremor's unit tests (tremor-codec/src/codec/*.rs) transcribed by hand; byte layouts checked
against the formats' specifications (and, for Avro, against fastavro's own reader/writer)."""

from __future__ import annotations

import io

import fastavro
import pytest

from runtime_support.io.codecs import codec_from


def codec(name: str, config: object = None):  # noqa: ANN201 - a Codec
    return codec_from(name if config is None else {"name": name, "config": config})


# json.rs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, {"mode": "unsorted"}, {"mode": "sorted"}])
def test_json_duplicate_keys_last_wins_and_encodes_compact(mode: object) -> None:
    c = codec("json", mode)
    assert c.decode(b'{ "snot": "badger" }') == (True, {"snot": "badger"})
    keep, value = c.decode(b'{"key": 1, "key":2}')
    assert value == {"key": 2}
    assert c.encode(value) == '{"key":2}'


def test_json_sorted_mode_sorts_keys() -> None:
    value = {"b": 1, "a": {"d": 2.0, "c": None}}
    assert codec("json", {"mode": "sorted"}).encode(value) == '{"a":{"c":null,"d":2.0},"b":1}'
    assert codec("json").encode(value) == '{"b":1,"a":{"d":2.0,"c":null}}'


# string.rs, binary.rs, null.rs ------------------------------------------------------------------


def test_string_codec() -> None:
    c = codec("string")
    assert c.decode(c.encode("snot badger")) == (True, "snot badger")
    assert c.encode(["snot badger"]) == '["snot badger"]'
    with pytest.raises(ValueError, match="invalid utf-8"):
        c.decode(b"snot \xff badger")


def test_binary_codec() -> None:
    c = codec("binary")
    assert c.encode(b"snot badger") == b"snot badger"
    assert c.decode(b"snot badger") == (True, b"snot badger")
    assert c.decode(c.encode("snot badger")) == (True, b"snot badger")
    assert c.decode(c.encode([1, 2, 3])) == (True, b"[1,2,3]")
    assert c.decode(b"\xff\x00\xfe") == (True, b"\xff\x00\xfe")  # any bytes, exactly


def test_null_codec_decodes_a_null_event_and_encodes_no_bytes() -> None:
    c = codec("null")
    assert c.decode(b"whatever") == (True, None)
    assert c.encode({"snot": "badger"}) == b""


# csv.rs -----------------------------------------------------------------------------------------


def test_csv_decodes_one_record_of_strings() -> None:
    c = codec("csv")
    assert c.decode(b"a,b,c,123") == (True, ["a", "b", "c", "123"])
    assert c.decode(b'"x,y","say ""hi"""\nsecond,line') == (True, ["x,y", 'say "hi"'])
    assert c.decode(b"") == (False, None)


def test_csv_encodes_an_array() -> None:
    c = codec("csv")
    assert c.encode(["a", "b", "c", 123]) == "a,b,c,123"
    assert c.encode(["x,y", 'say "hi"', 1.0, None, True]) == '"x,y","say ""hi""",1,null,true'


def test_csv_rejects_a_non_array(capsys: pytest.CaptureFixture[str]) -> None:
    assert codec("csv").encode({"a": 1}) is None  # reported, written as nothing
    assert "can not encode an event: The value Object cannot be serialized to CSV" in (
        capsys.readouterr().err
    )


# yaml.rs ----------------------------------------------------------------------------------------


def test_yaml_round_trip_and_text() -> None:
    c = codec("yaml")
    seed = {"snot": "badger"}
    assert c.encode(seed) == "snot: badger\n"
    assert c.decode(c.encode(seed)) == (True, seed)


def test_yaml_is_yaml_1_2() -> None:
    keep, value = codec("yaml").decode(
        b"on: yes\nint: 1\nfloat: 1.0\noctal: 0o17\ndate: 2001-01-01\nnull: ~\nlist: [1, 2]\n"
    )
    assert value == {
        "on": "yes",  # YAML 1.1 would read both as booleans
        "int": 1,
        "float": 1.0,
        "octal": 15,
        "date": "2001-01-01",
        "null": None,  # the key is its text
        "list": [1, 2],
    }
    assert type(value["float"]) is float


def test_yaml_keys_are_their_text_and_two_documents_are_rejected() -> None:
    assert codec("yaml").decode(b"1: a\ntrue: b\n") == (True, {"1": "a", "true": "b"})
    with pytest.raises(ValueError, match="Invalid YAML"):
        codec("yaml").decode(b"a: 1\n---\nb: 2\n")
    with pytest.raises(ValueError, match="keys must be strings"):
        codec("yaml").decode(b"[1]: a\n")


# msgpack.rs -------------------------------------------------------------------------------------


def test_msgpack_round_trip_and_wire_format() -> None:
    c = codec("msgpack")
    seed = {"snot": "badger"}
    # fixmap of 1, fixstr "snot", fixstr "badger" (the MessagePack spec's layout)
    assert c.encode(seed) == b"\x81\xa4snot\xa6badger"
    assert c.decode(c.encode(seed)) == (True, seed)


def test_msgpack_keeps_number_kinds_and_binaries() -> None:
    c = codec("msgpack")
    value = {"i": -1, "u": 2**64 - 1, "f": 1.0, "b": b"\x00\xff", "s": "x", "n": None}
    data = c.encode(value)
    assert b"\xcf" + b"\xff" * 8 in data  # uint64
    assert b"\xcb\x3f\xf0" + b"\0" * 6 in data  # float64 1.0
    assert b"\xc4\x02\x00\xff" in data  # bin 8
    keep, back = c.decode(data + b"trailing bytes are ignored")
    assert back == value and type(back["f"]) is float and type(back["i"]) is int


def test_msgpack_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="Invalid msgpack data"):
        codec("msgpack").decode(b"\xc1")


# avro.rs ----------------------------------------------------------------------------------------

TEST_SCHEMA = {
    "type": "record",
    "name": "test",
    "fields": [
        {"name": "int", "type": "int", "default": 42},
        {"name": "long", "type": "long", "default": 42},
        {"name": "string", "type": "string"},
    ],
}


def avro(schema: object, compression: str = "none"):  # noqa: ANN201 - a Codec
    return codec("avro", {"schema": schema, "compression": compression})


def test_avro_decodes_a_container_written_by_fastavro() -> None:
    out = io.BytesIO()
    fastavro.writer(
        out, fastavro.parse_schema(TEST_SCHEMA), [{"int": 23, "long": 27, "string": "foo"}]
    )
    assert avro(TEST_SCHEMA).decode(out.getvalue()) == (
        True,
        {"string": "foo", "int": 23, "long": 27},
    )


def test_avro_encode_fills_defaults_and_fastavro_reads_it() -> None:
    data = avro(TEST_SCHEMA).encode({"long": 27, "string": "string"})
    assert list(fastavro.reader(io.BytesIO(data))) == [{"int": 42, "long": 27, "string": "string"}]


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "null"}, None),
        ({"type": "boolean"}, True),
        ({"type": "int"}, 42),
        ({"type": "long"}, 42),
        ({"type": "float"}, 42.0),
        ({"type": "double"}, 42.0),
        ({"type": "bytes"}, b"\x01\x02\x03"),
        ({"type": "string"}, "foo"),
        (
            {"type": "record", "name": "test", "fields": [{"name": "one", "type": "int"}]},
            {"one": 1},
        ),
        ({"type": "enum", "name": "test", "symbols": ["SNOT", "BADGER"]}, "SNOT"),
        ({"type": "array", "items": "string"}, ["SNOT", "BADGER"]),
        ({"type": "map", "values": "string"}, {"SNOT": "BADGER"}),
        ({"type": "string", "logicalType": "uuid"}, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"),
        ({"type": "int", "logicalType": "date"}, 1),
        ({"type": "int", "logicalType": "time-millis"}, 1),
        ({"type": "long", "logicalType": "time-micros"}, 1),
        ({"type": "long", "logicalType": "timestamp-millis"}, 1),
        ({"type": "long", "logicalType": "timestamp-micros"}, 1),
        ({"type": "long", "logicalType": "timestamp-nanos"}, 1),
        ({"type": "long", "logicalType": "local-timestamp-millis"}, 1),
        ({"type": "long", "logicalType": "local-timestamp-micros"}, 1),
        ({"name": "bigdecimal", "type": "bytes", "logicalType": "decimal"}, b"\x01\x02\x03"),
    ],
    ids=lambda v: v.get("logicalType", v.get("type")) if isinstance(v, dict) else None,
)
def test_avro_types_round_trip_as_their_underlying_values(schema: dict, value: object) -> None:
    c = avro(schema)
    assert c.decode(c.encode(value)) == (True, value)


ROUND_ROBIN = {
    "type": "record",
    "name": "record",
    "fields": [
        {"name": "null", "type": "null"},
        {"name": "boolean", "type": "boolean"},
        {"name": "int", "type": "int"},
        {"name": "long", "type": "long"},
        {"name": "float", "type": "float"},
        {"name": "double", "type": "double"},
        {"name": "bytes", "type": "bytes"},
        {"name": "string", "type": "string"},
        {
            "name": "enum",
            "type": {"type": "enum", "name": "enumType", "symbols": ["SNOT", "BADGER"]},
        },
        {"name": "array", "type": {"type": "array", "items": "string"}},
        {"name": "map", "type": {"type": "map", "values": "string"}},
        {"name": "uuid", "type": "string", "logicalType": "uuid"},
        {"name": "date", "type": "int", "logicalType": "date"},
        {"name": "time_millis", "type": "int", "logicalType": "time-millis"},
        {"name": "timestamp_nanos", "type": "long", "logicalType": "timestamp-nanos"},
    ],
}
ROUND_ROBIN_VALUE = {
    "null": None,
    "boolean": True,
    "int": 27,
    "long": 42,
    "float": 1.0,
    "double": 2.0,
    "bytes": b"\x01\x02\x03",
    "string": "foo",
    "enum": "SNOT",
    "array": ["SNOT", "BADGER"],
    "map": {"SNOT": "BADGER"},
    "uuid": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    "date": 1,
    "time_millis": 2,
    "timestamp_nanos": 7,
}


@pytest.mark.parametrize("compression", ["none", "deflate", "snappy", "zstd", "bzip2", "xz"])
def test_avro_round_robin_in_every_compression(compression: str) -> None:
    c = avro(ROUND_ROBIN, compression)
    data = c.encode(ROUND_ROBIN_VALUE)
    assert data is not None, f"{compression}: not encoded"
    assert c.decode(data) == (True, ROUND_ROBIN_VALUE)
    assert c.encode(ROUND_ROBIN_VALUE) == data  # the same value, the same bytes


def test_avro_rejects_bad_values_and_bad_data(capsys: pytest.CaptureFixture[str]) -> None:
    c = avro(TEST_SCHEMA)
    assert c.encode({"int": 1.5, "string": "x"}) is None
    assert "Invalid avro value" in capsys.readouterr().err
    with pytest.raises(ValueError, match="Invalid avro data"):
        c.decode(b"not a container")
