"""Tremor's own extractor unit tests (tremor-script/src/extractor/test.rs, src/grok.rs),
transcribed, plus the grok default pattern set against representative log lines."""

from __future__ import annotations

import lzma

import pytest

from runtime_support.tremor.extractors import NO_MATCH, compile_extractor
from runtime_support.tremor.extractors.grok import Grok, load_patterns
from tests.support.paths import WORKLOADS

SYSLOG = (
    r"^<%%{POSINT:syslog_pri}>(?:(?<syslog_version>\d{1,3}) )?(?:%{SYSLOGTIMESTAMP:"
    r"syslog_timestamp0}|%{TIMESTAMP_ISO8601:syslog_timestamp1}) %{SYSLOGHOST:syslog_hostname}"
    r"  ?(?:%{TIMESTAMP_ISO8601:syslog_ingest_timestamp} )?(%{WORD:wf_pod} %{WORD:wf_datacenter}"
    r" )?%{GREEDYDATA:syslog_message}"
)
ESX = (
    r"^<%%{POSINT:syslog_pri}> %{TIMESTAMP_ISO8601:syslog_timestamp} (?<esx_uid>[-0-9a-f]+) "
    r"%{SYSLOGHOST:syslog_hostname} (?:(?<syslog_program>[\x21-\x39\x3b-\x5a\x5c\x5e-\x7e]+)"
    r"(?:\[%{POSINT:syslog_pid}\])?:?)? (?:%{TIMESTAMP_ISO8601:syslog_ingest_timestamp} )?"
    r"(%{WORD:wf_pod} %{WORD:wf_datacenter} )?%{GREEDYDATA:syslog_message}"
)

CASES = [
    # extractor/test.rs
    (
        "rerg",
        "(?P<key>[^=]+)=(?P<val>[^&]+)&",
        "foo=bar&baz=bat&",
        {"key": ["foo", "baz"], "val": ["bar", "bat"]},
    ),
    ("re", "(snot)?foo(?P<snot>.*)", "foobar", {"snot": "bar"}),
    ("kv", "", "a:b c:d", {"a": "b", "c": "d"}),
    ("json", "", '{"a":"b", "c":"d"}', {"a": "b", "c": "d"}),
    ("glob", "*INFO*", "INFO", True),
    ("base64", "", "8J+agHNuZWFreSByb2NrZXQh", "\U0001f680sneaky rocket!"),
    ("dissect", "%{name}", "John", {"name": "John"}),
    (
        "grok",
        SYSLOG,
        "<%1>123 Jul   7 10:51:24 hostname 2019-04-01T09:59:19+0010 pod dc foo bar baz",
        {
            "syslog_ingest_timestamp": "2019-04-01T09:59:19+0010",
            "wf_datacenter": "dc",
            "syslog_hostname": "hostname",
            "syslog_pri": "1",
            "wf_pod": "pod",
            "syslog_message": "foo bar baz",
            "syslog_version": "123",
            "syslog_timestamp0": "Jul   7 10:51:24",
        },
    ),
    ("cidr", "", "192.168.1.0", {"prefix": [192, 168, 1, 0], "mask": [255, 255, 255, 255]}),
    ("cidr", "", "192.168.1.0/24", {"prefix": [192, 168, 1, 0], "mask": [255, 255, 255, 0]}),
    (
        "cidr",
        "",
        "2001:4860:4860:0000:0000:0000:0000:8888",
        {"prefix": [8193, 18528, 18528, 0, 0, 0, 0, 34952], "mask": [65535] * 8},
    ),
    (
        "cidr",
        "10.22.0.0/24, 10.22.1.0/24",
        "10.22.0.254",
        {"prefix": [10, 22, 0, 254], "mask": [255, 255, 255, 255]},
    ),
    ("cidr", "10.22.0.0/24, 10.22.1.0/24", "99.98.97.96", NO_MATCH),
    (
        "influx",
        "",
        "wea\\ ther,location=us-midwest temperature=82 1465839830100400200",
        {
            "measurement": "wea ther",
            "tags": {"location": "us-midwest"},
            "fields": {"temperature": 82.0},
            "timestamp": 1465839830100400200,
        },
    ),
    ("datetime", "%Y-%m-%d %H:%M:%S", "2019-06-20 00:00:00", 1_560_988_800_000_000_000),
    # grok.rs
    ("grok", "%{USERNAME}", "foobar", {}),
    ("grok", "%{USERNAME:username}", "foobar", {"username": "foobar"}),
    (
        "grok",
        "%{USERNAME:snot} %{USERNAME:snot}",
        "foobar badger",
        {"snot": "badger", "name0": "foobar"},
    ),
    (
        "grok",
        "%{USERNAME:snot} %{USERNAME:name0}",
        "foobar badger",
        {"snot": "foobar", "name0": "badger"},
    ),
    ("grok", "{}", "cookie monster", NO_MATCH),
    (
        "grok",
        ESX,
        "<%1> 2019-04-01T09:59:19+0000 deadbeaf01234 example program_name[1234] "
        "2019-04-01T09:59:19+0010 pod dc foo bar baz",
        {
            "syslog_program": "program_name",
            "esx_uid": "deadbeaf01234",
            "wf_datacenter": "dc",
            "syslog_timestamp": "2019-04-01T09:59:19+0000",
            "wf_pod": "pod",
            "syslog_message": "foo bar baz",
            "syslog_hostname": "example",
            "syslog_pid": "1234",
            "syslog_ingest_timestamp": "2019-04-01T09:59:19+0010",
            "syslog_pri": "1",
        },
    ),
    # extractor.rs doc example
    (
        "grok",
        "%{IP:client} %{WORD:method} %{URIPATHPARAM:request} %{NUMBER:bytes} %{NUMBER:duration}",
        "55.3.244.1 GET /index.html 15824 0.043",
        {
            "client": "55.3.244.1",
            "method": "GET",
            "request": "/index.html",
            "bytes": "15824",
            "duration": "0.043",
        },
    ),
]


@pytest.mark.parametrize("kind,rule,text,expected", CASES)
def test_tremor_case(kind: str, rule: str, text: str, expected: object) -> None:
    assert compile_extractor(kind, rule).extract(text) == expected


# is_exclusive_to(x) in test.rs means "x can never match": here, not is_match.
EXCLUSIVE = [
    ("glob", "snot*", ["badger snot"], ["snot", "snot badger"]),
    ("glob", "*badger", ["snot", "badger snot"], ["snot badger"]),
    ("glob", "snot*badger", ["snot", "badger snot"], ["snot badger", "snot snot badger"]),
    ("re", "^snot.*badger$", ["snot", "badger snot"], ["snot badger", "snot snot badger"]),
    ("rerg", "^snot.*badger$", ["snot", "badger snot"], ["snot badger", "snot snot badger"]),
    # test.rs also lists "abc=" / "124=" as not excluded (alphabet check only); both decode to
    # invalid UTF-8, so extraction gives no match in Tremor and here alike.
    ("base64", "", ["sn!ot", "badger snot", "abc=", "124="], ["c25vdA=="]),
    ("kv", "", ["sn!ot", "badger snot"], ["a:2", "ip:1.2.3.4 error:REFUSED"]),
    ("json", "", ['"sn!ot', "{badger snot"], ["2", "[]"]),
    ("dissect", "snot%{name}", ["badger snot"], ["snot", "snot badger"]),
    ("grok", "%{NUMBER:duration}", ["snot"], ["snot 123 badger", "123"]),
    ("cidr", "", ["snot", "1", "123"], ["127.0.0.1"]),
    (
        "influx",
        "",
        ["snot", "123"],
        [
            "weather,location=us-midwest temperature=82 1465839830100400200",
            "weather,location=us-midwest temperature=82",
        ],
    ),
    (
        "datetime",
        "%Y-%m-%d %H:%M:%S",
        ["snot", "123", "2019-06-20 00:00:71"],
        ["2019-06-20 00:00:00"],
    ),
]


@pytest.mark.parametrize("kind,rule,never,may", EXCLUSIVE)
def test_tremor_exclusive(kind: str, rule: str, never: list[str], may: list[str]) -> None:
    ex = compile_extractor(kind, rule)
    assert [ex.is_match(s) for s in never] == [False] * len(never)
    assert [ex.is_match(s) for s in may] == [True] * len(may)


# --- grok default pattern set ---------------------------------------------------------------


def test_pattern_set_size() -> None:
    assert len(load_patterns()) >= 89


@pytest.mark.parametrize("name", sorted(load_patterns()))
def test_every_pattern_compiles(name: str) -> None:
    Grok(f"%{{{name}:x}}")


APACHE = WORKLOADS / "data" / "apache_access_logs.xz"


@pytest.mark.skipif(not APACHE.exists(), reason="workload data not present")
def test_commonapachelog_on_workload_data() -> None:
    with lzma.open(APACHE, "rt") as f:
        lines = [next(f).rstrip("\n") for _ in range(200)]
    g = Grok("^%{COMMONAPACHELOG}$")
    results = [g.extract(line) for line in lines]
    assert NO_MATCH not in results
    assert results[0] == {
        "clientip": "127.0.0.1",
        "ident": "-",
        "auth": "-",
        "timestamp": "19/Jun/1998:22:00:01 +0000",
        "verb": "GET",
        "request": "/english/competition/matchprog8902.htm",
        "httpversion": "1.0",
        "response": "200",
        "bytes": "47408",
    }


LOG_LINES = [
    (
        "%{COMBINEDAPACHELOG}",
        '83.149.9.216 - - [17/May/2015:10:05:03 +0000] "GET /presentations/logstash/ HTTP/1.1"'
        ' 200 203023 "http://semicomplete.com/presentations/" "Mozilla/5.0 (Macintosh)"',
        {
            "clientip": "83.149.9.216",
            "ident": "-",
            "auth": "-",
            "timestamp": "17/May/2015:10:05:03 +0000",
            "verb": "GET",
            "request": "/presentations/logstash/",
            "httpversion": "1.1",
            "response": "200",
            "bytes": "203023",
            "referrer": '"http://semicomplete.com/presentations/"',
            "agent": '"Mozilla/5.0 (Macintosh)"',
        },
    ),
    (
        "%{SYSLOGBASE} %{GREEDYDATA:message}",
        "Mar  7 04:02:11 web-01 sshd[4321]: Accepted publickey for deploy",
        {
            "timestamp": "Mar  7 04:02:11",
            "logsource": "web-01",
            "program": "sshd",
            "pid": "4321",
            "message": "Accepted publickey for deploy",
        },
    ),
    (
        "%{SYSLOGLINE}",
        "2019-04-01T09:59:19+0000 host1 cron: job done",
        {
            "timestamp8601": "2019-04-01T09:59:19+0000",
            "logsource": "host1",
            "program": "cron",
            "message": "job done",
        },
    ),
    (
        "%{SYSLOG5424LINE}",
        "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed",
        {
            "syslog5424_pri": "34",
            "syslog5424_ver": "1",
            "syslog5424_ts": "2003-10-11T22:14:15.003Z",
            "syslog5424_host": "mymachine.example.com",
            "syslog5424_app": "su",
            "syslog5424_msgid": "ID47",
            "syslog5424_msg": "'su root' failed",
        },
    ),
    (
        "%{HTTPD20_ERRORLOG}",
        "[Wed Oct 11 14:32:52 2000] [error] [client 127.0.0.1] client denied by server",
        {
            "timestamp": "Wed Oct 11 14:32:52 2000",
            "loglevel": "error",
            "clientip": "127.0.0.1",
            "message": "client denied by server",
        },
    ),
    ("%{IPV6:ip}", "addr fe80::1%eth0 up", {"ip": "fe80::1%eth0 up"}),
    (
        "%{MAC:m} %{UUID:u}",
        "00:1A:2b:3c:4D:5e 123e4567-e89b-12d3-a456-426614174000",
        {"m": "00:1A:2b:3c:4D:5e", "u": "123e4567-e89b-12d3-a456-426614174000"},
    ),
    (
        "%{URI:u}",
        "see https://user@example.com:8080/a/b?c=d now",
        {"u": "https://user@example.com:8080/a/b?c=d", "port": "8080"},
    ),
    (
        "%{LOGLEVEL:l} %{UNIXPATH:p}",
        "WARNING /var/log/x.log",
        {"l": "WARNING", "p": "/var/log/x.log"},
    ),
]


@pytest.mark.parametrize("rule,line,expected", LOG_LINES)
def test_grok_log_lines(rule: str, line: str, expected: dict) -> None:
    assert Grok(rule).extract(line) == expected


def test_grok_caret_is_a_line_anchor_as_in_oniguruma() -> None:
    assert Grok("^%{WORD:w}$").extract("a b\nword") == {"w": "word"}


def test_grok_unknown_pattern() -> None:
    with pytest.raises(ValueError, match='definition name "NOPE" could not be found'):
        Grok("%{NOPE:x}")


def test_grok_inline_definition() -> None:
    assert Grok("%{THREE:n=\\d\\d\\d}").extract("ab 1234") == {"n": "123"}


def test_grok_clashing_aliases_in_httpd_errorlog() -> None:
    # HTTPD_ERRORLOG = HTTPD20|HTTPD24 reuses aliases: as in the grok crate the last one wins,
    # so a 2.0-style line reports its fields under the generated `name<i>` keys.
    out = Grok("%{HTTPD_ERRORLOG}").extract("[Wed Oct 11 14:32:52 2000] [error] x")
    assert "timestamp" not in out and "Wed Oct 11 14:32:52 2000" in out.values()
