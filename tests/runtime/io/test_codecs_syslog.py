"""``syslog``: Tremor's unit tests (tremor-codec/src/codec/syslog.rs), transcribed by hand.
Tremor's tests fix "now" at the epoch; these call the module's functions with that clock."""

from __future__ import annotations

import datetime as dt

import pytest

from runtime_support.io.codecs import codec_from
from runtime_support.io.codecs.common import CodecError
from runtime_support.io.codecs.syslog import decode_message, encode_message

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def decode(line: str) -> dict:
    return decode_message(line, EPOCH)


def encode(value: dict) -> str:
    return encode_message(value, EPOCH)


def test_rfc5424_with_structured_data_round_trips() -> None:
    line = (
        "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 "
        'iut="3" eventSource= "Application" eventID="1011"][examplePriority@32473 class="high"] '
        "BOMAn application event log entry..."
    )
    decoded = decode(line)
    assert decoded["structured_data"]["examplePriority@32473"] == [{"class": "high"}]
    assert decode(encode(decoded)) == decoded


def test_decode_empty_fields() -> None:
    assert decode("<191>1 2021-03-18T20:30:00.123Z - - - - - message") == {
        "severity": "debug",
        "facility": "local7",
        "msg": "message",
        "protocol": "RFC5424",
        "protocol_version": 1,
        "timestamp": 1_616_099_400_123_000_000,
    }


def test_decode_invalid_message() -> None:
    assert decode("an invalid message") == {"msg": "an invalid message", "protocol": "RFC3164"}


def test_encode_empty_rfc5424() -> None:
    msg = {
        "severity": "notice",
        "facility": "local4",
        "msg": "test message",
        "protocol": "RFC5424",
        "protocol_version": 1,
        "timestamp": 0,
    }
    encoded = encode(msg)
    assert encoded == "<165>1 1970-01-01T00:00:00+00:00 - - - - - test message"
    assert decode(encoded) == msg


BASE = {"msg": "test message", "timestamp": 0}


@pytest.mark.parametrize(
    "msg",
    [
        {
            **BASE,
            "severity": "notice",
            "facility": "snot",
            "protocol": "RFC5424",
            "protocol_version": 1,
        },
        {
            **BASE,
            "severity": "snot",
            "facility": "local4",
            "protocol": "RFC5424",
            "protocol_version": 1,
        },
        {**BASE, "severity": "debug", "facility": "local5", "protocol": "RFC5424"},
        {**BASE, "severity": "notice", "facility": "local6", "protocol_version": 1},
        {**BASE, "severity": "notice", "facility": "local7", "protocol": "snot"},
    ],
    ids=["facility", "severity", "missing-version", "missing-protocol", "invalid-protocol"],
)
def test_encode_rejects_invalid_messages(msg: dict) -> None:
    with pytest.raises(CodecError, match="^Invalid Syslog Protocol data: "):
        encode(msg)


def test_encode_empty_rfc3164() -> None:
    msg = {"severity": "notice", "facility": "local4", "msg": "test message", "protocol": "RFC3164"}
    assert encode(msg) == "<165>Jan  1 00:00:00 - : test message"


def test_incorrect_structured_data_is_skipped() -> None:
    line = "<13>1 2021-03-18T20:30:00.123Z 74794bfb6795 root 8449 - [incorrect x] message"
    assert decode(line) == {
        "hostname": "74794bfb6795",
        "severity": "notice",
        "facility": "user",
        "appname": "root",
        "msg": "message",
        "procid": "8449",
        "protocol": "RFC5424",
        "protocol_version": 1,
        "timestamp": 1_616_099_400_123_000_000,
    }


def test_rfc3164_structured_data_stays_in_the_message_and_the_year_is_this_year() -> None:
    line = (
        '<46>Jan  5 15:33:03 plertrood-ThinkPad-X220 rsyslogd:  [software="rsyslogd" '
        'swVersion="8.32.0"] message'
    )
    now = dt.datetime.now(dt.timezone.utc)
    year = now.year
    stamp = dt.datetime(year, 1, 5, 15, 33, 3, tzinfo=dt.timezone.utc)
    assert decode_message(line, now) == {
        "hostname": "plertrood-ThinkPad-X220",
        "severity": "info",
        "facility": "syslog",
        "appname": "rsyslogd",
        "msg": '[software="rsyslogd" swVersion="8.32.0"] message',
        "protocol": "RFC3164",
        "timestamp": int(stamp.timestamp()) * 10**9,
    }


def test_encode_errors_name_the_missing_part() -> None:
    with pytest.raises(CodecError, match="^Invalid Syslog Protocol data: facility missing$"):
        encode({})
    with pytest.raises(CodecError, match="^Invalid Syslog Protocol data: severity missing$"):
        encode({"facility": "cron"})
    with pytest.raises(
        CodecError,
        match="^Invalid Syslog Protocol data: Invalid structured data: structured data not an "
        "object$",
    ):
        encode({"facility": "cron", "severity": "info", "structured_data": "sd"})


RFC3164 = [
    ("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8", None),
    ("Use the BFG!", "<13>Jan  1 00:00:00 - : Use the BFG!"),
    (
        "<165>Aug 24 05:34:00 CST 1987 mymachine myproc[10]: %% It's time to make the do-nuts.  "
        "%%  Ingredients: Mix=OK, Jelly=OK # Devices: Mixer=OK, Jelly_Injector=OK, Frier=OK # "
        "Transport:Conveyer1=OK, Conveyer2=OK # %%",
        "<165>Aug 24 05:34:00 CST 1987: mymachine myproc[10]: %% It's time to make the do-nuts.  "
        "%%  Ingredients: Mix=OK, Jelly=OK # Devices: Mixer=OK, Jelly_Injector=OK, Frier=OK # "
        "Transport:Conveyer1=OK, Conveyer2=OK # %%",
    ),
    (
        "<0>1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 sched[0]: That's All "
        "Folks!",
        "<13>Jan  1 00:00:00 - : <0>1990 Oct 22 10:52:01 TZ-6 scapegoat.dmz.example.org 10.1.2.3 "
        "sched[0]: That's All Folks!",
    ),
]


@pytest.mark.parametrize(("sample", "expected"), RFC3164)
def test_rfc3164_examples(sample: str, expected: str | None) -> None:
    assert encode(decode(sample)) == (expected or sample)


RFC5424 = [
    (
        "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \ufeff'su root' failed "
        "for lonvick on /dev/pts/8",
        "<34>1 2003-10-11T22:14:15.003+00:00 mymachine.example.com su - ID47 - \ufeff'su root' "
        "failed for lonvick on /dev/pts/8",
    ),
    (
        "<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make "
        "the do-nuts.",
        "<165>1 2003-08-24T12:14:15.000003+00:00 192.0.2.1 myproc 8710 - - %% It's time to make "
        "the do-nuts.",
    ),
    (
        "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 "
        'iut="3" eventSource="Application" eventID="1011"] \ufeffAn application event log entry...',
        "<165>1 2003-10-11T22:14:15.003+00:00 mymachine.example.com evntslog - ID47 "
        '[exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] \ufeffAn '
        "application event log entry...",
    ),
    (
        "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 "
        'iut="3" eventSource="Application" eventID="1011"][examplePriority@32473 class="high"]',
        "<165>1 2003-10-11T22:14:15.003+00:00 mymachine.example.com evntslog - ID47 "
        '[exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"]'
        '[examplePriority@32473 class="high"]',
    ),
]


@pytest.mark.parametrize(("sample", "expected"), RFC5424)
def test_rfc5424_examples(sample: str, expected: str) -> None:
    assert encode(decode(sample)) == expected


def test_the_codec_reads_utf8_bytes_and_rejects_other_bytes() -> None:
    codec = codec_from("syslog")
    keep, value = codec.decode(b"<13>1 - host app - - - hi")
    assert keep and value["msg"] == "hi" and value["hostname"] == "host"
    with pytest.raises(ValueError, match="invalid utf-8"):
        codec.decode(b"<13>1 - host app - - - \xff")
