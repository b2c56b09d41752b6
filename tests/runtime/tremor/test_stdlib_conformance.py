"""The assertions of Tremor's std-library unit tests (conformance/stdlib/*.tremor), transcribed.

Each case is ``(line in the .tremor file, assertion name, thunk)``; the thunk evaluates the
two compared expressions through the registry (``registry.call``, as generated jobs do) and
the test applies ``test::assert``'s equality. Expected values are copied from the .tremor
files, not produced by the code under test.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from runtime_support.tremor.context import EventContext
from runtime_support.tremor.stdlib import registry
from runtime_support.tremor.values import tremor_eq

CTX = EventContext(ingest_ns=time.time_ns())


def F(path: str) -> Any:  # noqa: N802 (mirrors a Tremor call site)
    fn = registry.lookup(path)
    assert fn is not None, path
    return lambda *args: registry.call(fn, args, CTX)


def C(path: str) -> Any:  # noqa: N802
    return registry.constant(path)


def as_string(arr: list) -> list:
    """The ``as_string`` helper fn defined in std.tremor."""
    return [F("std::type::as_string")(e) for e in arr]


def lenbytes(arr: list) -> list:
    """The ``lenbytes`` helper fn defined in std.tremor."""
    return [[F("std::string::len")(e), F("std::string::bytes")(e)] for e in arr]


STD_CASES = [
    (41, "array sort 1", lambda: (F("std::array::sort")([1, 4, 3]), [1, 3, 4])),
    (
        45,
        "array sort 2",
        lambda: (F("std::array::sort")(["b", "a", "parrot"]), ["a", "b", "parrot"]),
    ),
    (49, "array reverse 1", lambda: (F("std::array::reverse")([1, 2, 3]), [3, 2, 1])),
    (
        53,
        "array reverse 2",
        lambda: (F("std::array::reverse")(["fudge", "brownies"]), ["brownies", "fudge"]),
    ),
    (57, "array len 1", lambda: (F("std::array::len")([]), 0)),
    (61, "array len 2", lambda: (F("std::array::len")(["snot"]), 1)),
    (65, "array len 3", lambda: (F("std::array::len")(["snot", "badger"]), 2)),
    (69, "array is empty 1", lambda: (F("std::array::is_empty")([]), True)),
    (73, "array is not empty 1", lambda: (F("std::array::is_empty")([1]), False)),
    (77, "array is not empty 2", lambda: (F("std::array::is_empty")([1, 2]), False)),
    (81, "array contains 1", lambda: (F("std::array::contains")([], 1), False)),
    (85, "array contains 2", lambda: (F("std::array::contains")([1], 1), True)),
    (89, "array contains 3", lambda: (F("std::array::contains")([1, 2], 2), True)),
    (93, "array push 1", lambda: (F("std::array::push")([1, 2], 3), [1, 2, 3])),
    (97, "array zip 1", lambda: (F("std::array::zip")(["a", "b"], [1, 2]), [["a", 1], ["b", 2]])),
    (
        101,
        "array unzip 1",
        lambda: (F("std::array::unzip")([["a", 1], ["b", 2]]), [["a", "b"], [1, 2]]),
    ),
    (
        105,
        "array flatten 1",
        lambda: (
            F("std::array::flatten")(
                [["a", "b"], [1, 2], [[3, 4, None, {}], [[5, 6], [[7, 8], [], 9]]]]
            ),
            ["a", "b", 1, 2, 3, 4, None, {}, 5, 6, 7, 8, 9],
        ),
    ),
    (109, "array flatten 2", lambda: (F("std::array::flatten")([]), [])),
    (
        113,
        "array flatten 2",
        lambda: (
            F("std::array::flatten")([False, [], [[], [[[]], [[], [None]]]], True]),
            [False, None, True],
        ),
    ),
    (117, "array coalesce 1", lambda: (F("std::array::coalesce")([1, 2, None, 3]), [1, 2, 3])),
    (121, "array join 1", lambda: (F("std::array::join")([1, 2, 3], " "), "1 2 3")),
    (132, "integer max", lambda: (F("std::float::parse")("42.42"), 42.42)),
    (
        144,
        "integer signed min",
        lambda: (C("std::integer::signed::MIN"), -9_223_372_036_854_775_808),
    ),
    (
        148,
        "integer signed max",
        lambda: (C("std::integer::signed::MAX"), 9_223_372_036_854_775_807),
    ),
    (152, "integer unsigned min", lambda: (C("std::integer::unsigned::MIN"), 0)),
    (
        156,
        "integer unsignedmax",
        lambda: (C("std::integer::unsigned::MAX"), 18_446_744_073_709_551_615),
    ),
    (160, "integer parse", lambda: (F("std::integer::parse")("42"), 42)),
    (171, "json encode", lambda: (F("std::json::encode")(1), "1")),
    (
        175,
        "json encode pretty",
        lambda: (F("std::json::encode_pretty")([1, 2, 3]), "[\n  1,\n  2,\n  3\n]"),
    ),
    (
        179,
        "json decode",
        lambda: (F("std::json::decode")(F("std::json::encode_pretty")([3, 2, 1])), [3, 2, 1]),
    ),
    (190, "math floor", lambda: (F("std::math::floor")(42.9), 42)),
    (194, "math ceiling", lambda: (F("std::math::ceil")(42.9), 43)),
    (198, "math round 1", lambda: (F("std::math::round")(42.4), 42)),
    (202, "math trunc", lambda: (F("std::math::trunc")(42.5), 42)),
    (206, "math max", lambda: (F("std::math::max")(42.6, 42.5), 42.6)),
    (210, "math min", lambda: (F("std::math::min")(42.5, 42.6), 42.5)),
    (214, "math min", lambda: (F("std::math::min")(42.6, 42.5), 42.5)),
    (225, "random bool", lambda: (F("std::type::is_bool")(F("std::random::bool")()), True)),
    (229, "random string", lambda: (F("std::type::is_string")(F("std::random::string")(16)), True)),
    (
        233,
        "random integer",
        lambda: (F("std::type::is_integer")(F("std::random::integer")(0, 100)), True),
    ),
    (
        237,
        "random float",
        lambda: (F("std::type::is_float")(F("std::random::float")(0, 100)), True),
    ),
    (248, "range 1", lambda: (F("std::range::range")(0, 5), [0, 1, 2, 3, 4])),
    (
        252,
        "contains 1",
        lambda: (F("std::range::contains")(F("std::range::range")(0, 5), -1), False),
    ),
    (256, "contains 2", lambda: (F("std::range::contains")(F("std::range::range")(0, 5), 3), True)),
    (260, "contains 3", lambda: (F("std::range::contains")(F("std::range::range")(0, 5), 4), True)),
    (
        264,
        "contains 4",
        lambda: (F("std::range::contains")(F("std::range::range")(0, 5), 5), False),
    ),
    (
        275,
        "record replace first occurance 1",
        lambda: (F("std::re::replace")("c", "abaca", "b"), "ababa"),
    ),
    (
        279,
        "record replace first occurance 2",
        lambda: (F("std::re::replace")("c", "abacacaca", "b"), "ababacaca"),
    ),
    (
        283,
        "record replace all occurances 1",
        lambda: (F("std::re::replace_all")("c", "abacacaca", "b"), "ababababa"),
    ),
    (287, "record is match 1", lambda: (F("std::re::is_match")("(a?)+a?", "abacacaca"), True)),
    (
        291,
        "record split 1",
        lambda: (
            F("std::re::split")("a[abc]", "snotabsnotacsnotacsnotacsnotaabadger"),
            ["snot", "snot", "snot", "snot", "snot", "badger"],
        ),
    ),
    (307, "record length 1", lambda: (F("std::record::len")({}), 0)),
    (311, "record length 2", lambda: (F("std::record::len")({"a": 1}), 1)),
    (315, "record length 3", lambda: (F("std::record::len")({"a": 1, "b": 2}), 2)),
    (319, "record is empty 1", lambda: (F("std::record::is_empty")({}), True)),
    (323, "record is empty 2", lambda: (F("std::record::is_empty")({"a": 1}), False)),
    (327, "record contains 1", lambda: (F("std::record::contains")({}, "snot"), False)),
    (331, "record contains 2", lambda: (F("std::record::contains")({"a": 1}, "a"), True)),
    (335, "record keys 1", lambda: (F("std::record::keys")({}), [])),
    (339, "record keys 2", lambda: (F("std::record::keys")({"a": 1}), ["a"])),
    (
        343,
        "record keys 3",
        lambda: (F("std::array::len")(F("std::record::keys")({"a": 1, "b": 2})), 2),
    ),
    (347, "record values 1", lambda: (F("std::record::values")({}), [])),
    (351, "record values 2", lambda: (F("std::record::values")({"a": 1}), [1])),
    (
        355,
        "record values 3",
        lambda: (F("std::array::len")(F("std::record::values")({"a": 1, "b": 2})), 2),
    ),
    (359, "record to array 1", lambda: (F("std::record::to_array")({}), [])),
    (363, "record to array 2", lambda: (F("std::record::to_array")({"a": 1}), [["a", 1]])),
    (367, "record from array 1", lambda: (F("std::record::from_array")([]), {})),
    (371, "record from array 2", lambda: (F("std::record::from_array")([["a", 1]]), {"a": 1})),
    (375, "record extract 1", lambda: (F("std::record::extract")({"a": 1}, ["c"]), {})),
    (379, "record extract 2", lambda: (F("std::record::extract")({"a": 1}, ["a"]), {"a": 1})),
    (383, "record combine 1", lambda: (F("std::record::combine")({"a": 1}, {"a": 2}), {"a": 2})),
    (
        387,
        "record combine 2",
        lambda: (F("std::record::combine")({"a": 1}, {"b": 2}), {"a": 1, "b": 2}),
    ),
    (391, "record rename 1", lambda: (F("std::record::rename")({"a": 1}, {"a": "A"}), {"A": 1})),
    (
        395,
        "record rename 1",
        lambda: (F("std::record::rename")({"a": 1}, {"b": "Badger"}), {"a": 1}),
    ),
    (406, "reverse", lambda: (F("std::string::reverse")("cats"), "stac")),
    (
        410,
        "from_butf8_lossy",
        lambda: (F("std::string::from_utf8_lossy")(bytes([115, 110, 111, 116])), "snot"),
    ),
    (
        414,
        "into_binary",
        lambda: (F("std::string::into_binary")("snot"), bytes([115, 110, 111, 116])),
    ),
    (418, "format 1", lambda: (F("std::string::format")("blah"), "blah")),
    (422, "format 2", lambda: (F("std::string::format")("{}", "snot"), "snot")),
    (
        426,
        "format 3",
        lambda: (
            F("std::string::format")("the {} is {}", "meaning of life", 42),
            "the meaning of life is 42",
        ),
    ),
    (
        430,
        "string::len(string) and string::bytes(string)",
        lambda: (lenbytes(["snot", "badger", "💩👻💀👽👾🤖🎃"]), [[4, 4], [6, 6], [7, 7 * 4]]),
    ),
    (
        438,
        "replace 1",
        lambda: (F("std::string::replace")("snot badger", "badger", "snot"), "snot snot"),
    ),
    (
        442,
        "replace 2",
        lambda: (F("std::string::replace")("snot snot", "snot", "badger"), "badger badger"),
    ),
    (446, "trim 1", lambda: (F("std::string::trim")("    foo    "), "foo")),
    (450, "trim 2", lambda: (F("std::string::trim")("\n\n  foo\n\n  "), "foo")),
    (454, "trim_start 1", lambda: (F("std::string::trim_start")("    foo    "), "foo    ")),
    (458, "trim_start 2", lambda: (F("std::string::trim_start")("\n\n  foo\n\n  "), "foo\n\n  ")),
    (462, "trim_end 1", lambda: (F("std::string::trim_end")("    foo    "), "    foo")),
    (466, "trim_end 2", lambda: (F("std::string::trim_end")("\n\n  foo\n\n  "), "\n\n  foo")),
    (470, "lowercase 1", lambda: (F("std::string::lowercase")("SnOt BaDgEr"), "snot badger")),
    (474, "lowercase 2", lambda: (F("std::string::lowercase")("SNOT BADGER"), "snot badger")),
    (478, "uppercase 1", lambda: (F("std::string::uppercase")("SnOt BaDgEr"), "SNOT BADGER")),
    (482, "uppercase 2", lambda: (F("std::string::uppercase")("snot badger"), "SNOT BADGER")),
    (486, "capitalize 1", lambda: (F("std::string::capitalize")("SnOt BaDgEr"), "SnOt BaDgEr")),
    (490, "capitalize 2", lambda: (F("std::string::capitalize")("snot badger"), "Snot badger")),
    (494, "substr 1", lambda: (F("std::string::substr")("SnOt BaDgEr", 0, 4), "SnOt")),
    (498, "substr 2", lambda: (F("std::string::substr")("snot badger", 5, 10), "badge")),
    (502, "split 1", lambda: (F("std::string::split")("", " "), [""])),
    (506, "split 2", lambda: (F("std::string::split")("snot badger", " "), ["snot", "badger"])),
    (510, "contains 1", lambda: (F("std::string::contains")("snot badger", "snot"), True)),
    (514, "contains 2", lambda: (F("std::string::contains")("snot badger", "aardvark"), False)),
    (525, "as_string(null)", lambda: (F("std::type::as_string")(None), "null")),
    (529, "as_string(bool)", lambda: (as_string([True, False]), ["bool", "bool"])),
    (533, "as_string(int)", lambda: (as_string([-1, 0, 1]), ["integer", "integer", "integer"])),
    (
        537,
        "as_string(float)",
        lambda: (as_string([-1.01, 0.01, 1.01]), ["float", "float", "float"]),
    ),
    (541, "as_string(string)", lambda: (as_string(["snot", "badger"]), ["string", "string"])),
    (545, "as_string([])", lambda: (as_string([[], ["snot"]]), ["array", "array"])),
    (549, "as_string({})", lambda: (as_string([{}, {"snot": "badger"}]), ["record", "record"])),
    (553, "is_null(null)", lambda: (F("std::type::is_null")(None), True)),
    (557, "is_null(true)", lambda: (F("std::type::is_null")(True), False)),
    (561, "is_bool(null)", lambda: (F("std::type::is_bool")(None), False)),
    (565, "is_bool(true)", lambda: (F("std::type::is_bool")(True), True)),
    (569, "is_integer(null)", lambda: (F("std::type::is_integer")(None), False)),
    (573, "is_integer(1)", lambda: (F("std::type::is_integer")(1), True)),
    (577, "is_float(null)", lambda: (F("std::type::is_float")(None), False)),
    (581, "is_float(1.0)", lambda: (F("std::type::is_float")(1.0), True)),
    (585, "is_number(null)", lambda: (F("std::type::is_number")(None), False)),
    (589, "is_number(1.0)", lambda: (F("std::type::is_number")(1.0), True)),
    (593, "is_number(1)", lambda: (F("std::type::is_number")(1), True)),
    (597, "is_string(null)", lambda: (F("std::type::is_string")(None), False)),
    (601, 'is_string("snot")', lambda: (F("std::type::is_string")("snot"), True)),
    (605, "is_array(null)", lambda: (F("std::type::is_array")(None), False)),
    (609, "is_array([])", lambda: (F("std::type::is_array")([]), True)),
    (613, "is_record(null)", lambda: (F("std::type::is_record")(None), False)),
    (617, "is_record({})", lambda: (F("std::type::is_record")({}), True)),
    (621, "is_binary(null)", lambda: (F("std::type::is_binary")(None), False)),
    (625, "is_binary(<<>>)", lambda: (F("std::type::is_binary")(bytes([])), True)),
    (
        636,
        "url::encode",
        lambda: (
            F("std::url::encode")("!*'();:@&=+$,/?#[]"),
            "%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D",
        ),
    ),
    (
        640,
        "url::decode",
        lambda: (
            F("std::url::decode")("%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D"),
            "!*'();:@&=+$,/?#[]",
        ),
    ),
    (
        651,
        "base64::encode",
        lambda: (F("std::base64::encode")(bytes([115, 110, 111, 116])), "c25vdA=="),
    ),
    (
        655,
        "base64::decode",
        lambda: (F("std::base64::decode")("c25vdA=="), bytes([115, 110, 111, 116])),
    ),
    (666, "binary::len", lambda: (F("std::binary::len")(bytes([115, 110, 111, 116])), 4)),
    (
        670,
        "binary::from_bytes",
        lambda: (F("std::binary::from_bytes")([115, 110, 111, 116]), bytes([115, 110, 111, 116])),
    ),
    (
        674,
        "binary::into_bytes",
        lambda: (F("std::binary::into_bytes")(bytes([115, 110, 111, 116])), [115, 110, 111, 116]),
    ),
    (678, "binary::into_bytes", lambda: (F("std::binary::into_bytes")(bytes([0, 1])), [0, 1])),
    (
        689,
        "path::try_default",
        lambda: (F("std::path::try_default")(None, ["snot"], "horse"), "horse"),
    ),
    (693, "path::try_default", lambda: (F("std::path::try_default")(None, [], "horse"), "horse")),
    (
        697,
        "path::try_default",
        lambda: (F("std::path::try_default")({"snort": "badger"}, ["snot"], "horse"), "horse"),
    ),
    (
        701,
        "path::try_default",
        lambda: (F("std::path::try_default")({"snot": ["badger"]}, ["snot"], "horse"), ["badger"]),
    ),
    (
        705,
        "path::try_default",
        lambda: (F("std::path::try_default")({"snot": ["badger"]}, ["snort"], "horse"), "horse"),
    ),
    (
        709,
        "path::try_default",
        lambda: (F("std::path::try_default")({"snot": ["badger"]}, ["snot", 0], "horse"), "badger"),
    ),
    (
        720,
        "time::nanos::from_weeks",
        lambda: (F("std::time::nanos::to_weeks")(F("std::time::nanos::from_weeks")(42)), 42),
    ),
    (
        724,
        "time::nanos::from_days",
        lambda: (F("std::time::nanos::to_days")(F("std::time::nanos::from_days")(42)), 42),
    ),
    (
        728,
        "time::nanos::from_hours",
        lambda: (F("std::time::nanos::to_hours")(F("std::time::nanos::from_hours")(42)), 42),
    ),
    (
        732,
        "time::nanos::from_minutes",
        lambda: (F("std::time::nanos::to_minutes")(F("std::time::nanos::from_minutes")(42)), 42),
    ),
    (
        736,
        "time::nanos::from_seconds",
        lambda: (F("std::time::nanos::to_seconds")(F("std::time::nanos::from_seconds")(42)), 42),
    ),
    (
        740,
        "time::nanos::from_millis",
        lambda: (F("std::time::nanos::to_millis")(F("std::time::nanos::from_millis")(42)), 42),
    ),
    (
        744,
        "time::nanos::from_micros",
        lambda: (F("std::time::nanos::to_micros")(F("std::time::nanos::from_micros")(42)), 42),
    ),
    (
        748,
        "time::nanos::truncate_micros",
        lambda: (F("std::time::nanos::truncate_micros")(9_999), 9_000),
    ),
    (
        752,
        "time::nanos::truncate_millis",
        lambda: (F("std::time::nanos::truncate_millis")(9_999_999), 9_000_000),
    ),
    (
        756,
        "time::nanos::truncate_seconds",
        lambda: (F("std::time::nanos::truncate_seconds")(9_999_999_999), 9_000_000_000),
    ),
    (
        760,
        "time::nanos::truncate_minutes",
        lambda: (F("std::time::nanos::truncate_minutes")(69_999_999_999), 60_000_000_000),
    ),
    (
        764,
        "time::nanos::truncate_hours",
        lambda: (F("std::time::nanos::truncate_hours")(3_699_999_999_999), 3_600_000_000_000),
    ),
    (
        768,
        "time::nanos::truncate_hours",
        lambda: (F("std::time::nanos::truncate_hours")(-1), -3_600_000_000_000),
    ),
    (
        772,
        "time::nanos::truncate_days",
        lambda: (F("std::time::nanos::truncate_days")(86_499_999_999_999), 86_400_000_000_000),
    ),
    (
        783,
        "datetime::rfc3339",
        lambda: (F("std::datetime::rfc3339")(0), "1970-01-01T00:00:00+00:00"),
    ),
    (
        787,
        "datetime::rfc2282",
        lambda: (F("std::datetime::rfc2822")(0), "Thu, 1 Jan 1970 00:00:00 +0000"),
    ),
    (
        791,
        "datetime::rfc3339 Z",
        lambda: (
            F("std::datetime::rfc3339")(1_559_655_782_000_000_000),
            "2019-06-04T13:43:02+00:00",
        ),
    ),
    (
        795,
        "datetime::format",
        lambda: (
            F("std::datetime::format")(1667998614978835761, C("std::datetime::formats::RFC2822")),
            "Wed, 09 Nov 2022 12:56:54 +0000",
        ),
    ),
    (
        799,
        "datetime::format",
        lambda: (
            F("std::datetime::format")(
                F("std::datetime::with_timezone")(
                    123, C("std::datetime::timezones::EUROPE_BERLIN")
                ),
                "%Y-%m-%dT%H:%M:%S.%f%:z",
            ),
            "1970-01-01T01:00:00.000000123+01:00",
        ),
    ),
    (
        803,
        "datetime::with_timezone",
        lambda: (
            F("std::datetime::with_timezone")(0, C("std::datetime::timezones::EUROPE_LONDON")),
            {"timestamp": 0, "tz": C("std::datetime::timezones::EUROPE_LONDON")},
        ),
    ),
    (
        807,
        "datetime::with_timezone",
        lambda: (
            F("std::datetime::with_timezone")(0, "Europe/London"),
            {"timestamp": 0, "tz": "Europe/London"},
        ),
    ),
    (
        811,
        "datetime::with_timezone",
        lambda: (F("std::datetime::with_timezone")(0, "-0200"), {"timestamp": 0, "tz": "-0200"}),
    ),
    (
        815,
        "datetime::with_timezone",
        lambda: (
            F("std::datetime::with_timezone")(
                {"timestamp": 0, "tz": C("std::datetime::timezones::EUROPE_LONDON")},
                C("std::datetime::timezones::ATLANTIC_JAN_MAYEN"),
            ),
            {"timestamp": 0, "tz": C("std::datetime::timezones::ATLANTIC_JAN_MAYEN")},
        ),
    ),
    (
        819,
        "datetime::parse",
        lambda: (
            F("std::datetime::parse")(
                "2022-11-09T14:46:11.499274824+01:00", C("std::datetime::formats::RFC3339")
            ),
            1668001571499274824,
        ),
    ),
    (
        823,
        "datetime::parse",
        lambda: (
            F("std::datetime::parse")(
                "2023-04-23T13:11:37.285Z", C("std::datetime::formats::RFC3339")
            ),
            1682255497285000000,
        ),
    ),
    (
        827,
        "datetime::parse",
        lambda: (
            F("std::datetime::parse")(
                "Fri, 21 Nov 1997 09:55:06 -0600", C("std::datetime::formats::RFC2822")
            ),
            880127706000000000,
        ),
    ),
    (
        831,
        "datetime::format",
        lambda: (
            F("std::datetime::format")(880127706000000000, C("std::datetime::formats::RFC2822")),
            "Fri, 21 Nov 1997 15:55:06 +0000",
        ),
    ),
    (
        835,
        "datetime::format",
        lambda: (
            F("std::datetime::format")(
                F("std::datetime::with_timezone")(
                    880127706000000000, C("std::datetime::timezones::US_CENTRAL")
                ),
                C("std::datetime::formats::RFC2822"),
            ),
            "Fri, 21 Nov 1997 09:55:06 -0600",
        ),
    ),
    (839, "datetime::year", lambda: (F("std::datetime::year")(0), 1970)),
    (843, "datetime::month", lambda: (F("std::datetime::month")(0), 1)),
    (847, "datetime::iso_week", lambda: (F("std::datetime::iso_week")(1668001571499274824), 45)),
    (
        851,
        "datetime::day_of_month",
        lambda: (F("std::datetime::day_of_month")(F("std::time::nanos::from_days")(40)), 10),
    ),
    (
        855,
        "datetime::day_of_year",
        lambda: (F("std::datetime::day_of_year")(F("std::time::nanos::from_days")(40)), 41),
    ),
    (
        859,
        "datetime::hour",
        lambda: (F("std::datetime::hour")({"timestamp": 0, "tz": "+01:00"}), 1),
    ),
    (
        863,
        "datetime::minute",
        lambda: (F("std::datetime::minute")({"timestamp": 0, "tz": "+01:02"}), 2),
    ),
    (867, "datetime::second", lambda: (F("std::datetime::second")(0), 0)),
    (
        871,
        "datetime::subsecond_millis",
        lambda: (F("std::datetime::subsecond_millis")(1668001571499274824), 499),
    ),
    (
        875,
        "datetime::subsecond_micros",
        lambda: (F("std::datetime::subsecond_micros")(1668001571499274824), 499274),
    ),
    (
        879,
        "datetime::subsecond_nanos",
        lambda: (F("std::datetime::subsecond_nanos")(1668001571499274824), 499274824),
    ),
]

TREMOR_CASES = [
    (10, "hostname", lambda: (F("tremor::system::hostname")() != "localhost", True)),
    (
        14,
        "ingest_ns",
        lambda: (F("tremor::system::ingest_ns")() <= F("tremor::system::ingest_ns")(), True),
    ),
    (18, "instance", lambda: (F("tremor::system::instance")(), "tremor")),
    (29, "origin scheme", lambda: (None, F("tremor::origin::scheme")())),
    (33, "origin host", lambda: (None, F("tremor::origin::host")())),
    (37, "origin port", lambda: (None, F("tremor::origin::port")())),
    (41, "origin path", lambda: (None, F("tremor::origin::path")())),
    (45, "origin as uri string", lambda: (None, F("tremor::origin::as_uri_string")())),
    (49, "origin as uri record", lambda: (None, F("tremor::origin::as_uri_record")())),
    (62, "hash 1", lambda: (F("tremor::chash::jump")("snot", 9), 8)),
    (66, "hash 2", lambda: (F("tremor::chash::jump")("badger", 9), 2)),
    (70, "hash 3", lambda: (F("tremor::chash::jump_with_keys")(8, 2, "badger", 9), 3)),
    (
        74,
        "sorted serialize 3",
        lambda: (
            F("tremor::chash::sorted_serialize")([8, "snot", 2, "badger"]),
            '[8,"snot",2,"badger"]',
        ),
    ),
]


@pytest.mark.parametrize("line,name,thunk", STD_CASES, ids=[f"std:{c[0]}" for c in STD_CASES])
def test_std_assertion(line: int, name: str, thunk: Any) -> None:
    left, right = thunk()
    assert tremor_eq(left, right), (name, left, right)


@pytest.mark.parametrize(
    "line,name,thunk", TREMOR_CASES, ids=[f"tremor:{c[0]}" for c in TREMOR_CASES]
)
def test_tremor_assertion(line: int, name: str, thunk: Any) -> None:
    left, right = thunk()
    assert tremor_eq(left, right), (name, left, right)


def test_case_counts() -> None:
    assert (len(STD_CASES), len(TREMOR_CASES)) == (180, 13)
