"""The ``dns_client`` connector through real flow jobs on Spark, against a real DNS server
(tests/support/servers/dns.py: dnslib's DNSServer on 127.0.0.1, a free UDP port, stopped by its
PID).

Ported from tremor-runtime ``tremor-cli/tests/integration/dns`` (config.troy, in.json,
expected_out.json) and the answer shapes of ``tremor-connectors/src/impls/dns/client.rs``;
expectations written by hand from the zone in tests/support/servers/dns.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import check_flow, run_stream_flow
from runtime_support.io.connectors.base import RunContext
from runtime_support.spark.stream_job import StreamError
from tests.runtime.flows.test_stream_flow import build, stream_args, write_file

# config.troy with the integration library's connectors inlined; the exit connector stops the
# run at the first non-empty answer (Tremor's `exit` connector).
TREMOR_FLOW = """
define flow dns
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "truncate", "single_file": true}
  end;
  define connector exit from exit;
  define connector dns from dns_client;
  create connector input; create connector output; create connector exit; create connector dns;

  define pipeline request
  pipeline
    define script dns_meta
    script
      let $dns = {"lookup": {"name": event, "type": "A"}};
      emit event;
    end;
    create script dns_meta;
    select event from in where event != "exit" into dns_meta;
    select event from in where event == "exit" into out;
    select event from dns_meta into out;
    select event from dns_meta/err into err;
  end;
  create pipeline request;
  define pipeline response
  into out, exit
  pipeline
    use std::array;
    select group[0]["A"] from in group by each(event) into out;
    select event from in where array::len(event) > 0 into exit;
  end;
  create pipeline response;

  connect /connector/input to /pipeline/request;
  connect /pipeline/request to /connector/dns;
  connect /connector/dns to /pipeline/response;
  connect /pipeline/response/out to /connector/output;
  connect /pipeline/response/exit to /connector/exit;
end;
deploy flow dns;
"""

# Requests against the test server: `[$dns, $correlation?]` per line.
ZONE_FLOW = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dns from dns_client with config = {"nameservers": [@NS@]} end;
  define connector output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "truncate", "single_file": true}
  end;
  define connector errors from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @ERR@, "mode": "truncate", "single_file": true}
  end;
  define pipeline request
  pipeline
    define script meta
    script
      let $dns = event[0];
      let $correlation = event[1];
      emit null
    end;
    create script meta;
    select event from in into meta;
    select event from meta into out;
  end;
  define pipeline response
  pipeline
    select {"event": event, "meta": $} from in into out;
  end;
  create connector input; create connector dns; create connector output;
  create connector errors; create pipeline request; create pipeline response;
  create pipeline failed from response;
  connect /connector/input to /pipeline/request;
  connect /pipeline/request to /connector/dns;
  connect /connector/dns/out to /pipeline/response;
  connect /connector/dns/err to /pipeline/failed;
  connect /pipeline/response to /connector/output;
  connect /pipeline/failed to /connector/errors;
end;
deploy flow main;
"""


def lines(path: Path) -> list[Any]:
    return [json.loads(text) for text in path.read_text().splitlines() if text]


@pytest.fixture(scope="module")
def nameserver(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("dnslib", reason="dnslib (the DNS server) absent: run .ci/install.d/dns.sh")
    from tests.support.servers import dns as server

    process, port, queries = server.start(str(tmp_path_factory.mktemp("dns")))
    try:
        yield f"127.0.0.1:{port}", Path(queries)
    finally:
        server.stop(process)


@pytest.mark.spark
def test_tremor_integration(spark, tmp_path: Path) -> None:
    """Tremor's test: `localhost` type A answers 127.0.0.1 (its resolver's RFC 6761 answer)."""
    (tmp_path / "in.json").write_text('"localhost"')
    module = build(TREMOR_FLOW, IN=tmp_path / "in.json", OUT=tmp_path / "out.log")
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
    assert lines(tmp_path / "out.log") == ["127.0.0.1"]


def _no_record(name: str, kind: str) -> str:
    return (
        f'no record found for Query {{ name: Name("{name}"), query_type: {kind}, query_class: IN }}'
    )


REQUESTS = [
    ({"lookup": "tremorc.test"}, 1),
    ({"lookup": {"name": "www.tremorc.test", "type": "A"}}, 2),
    ({"lookup": {"name": "tremorc.test", "type": "AAAA"}}, 3),
    ({"lookup": "v6.tremorc.test"}, 4),
    ({"lookup": {"name": "tremorc.test", "type": "MX"}}, 5),
    ({"lookup": {"name": "tremorc.test", "type": "TXT"}}, 6),
    ({"lookup": {"name": "_svc._tcp.tremorc.test", "type": "SRV"}}, 7),
    ({"lookup": {"name": "tremorc.test", "type": "SOA"}}, 8),
    ({"lookup": {"name": "www.tremorc.test", "type": "CNAME"}}, 9),
    ({"lookup": "missing.tremorc.test"}, 10),
    ({"lookup": {"name": "ns.tremorc.test", "type": "MX"}}, 11),
    ({"lookup": {"name": "tremorc.test", "type": "WKS"}}, 12),
    ({"lookup": {"type": "A"}}, 13),
    ({"lookup": "localhost", "other": 1}, {"any": ["value"]}),
]
EXPECTED_OUT = [
    {"event": [{"A": "192.0.2.1", "ttl": 300}, {"A": "192.0.2.2", "ttl": 300}], "meta": 1},
    {
        "event": [
            {"CNAME": "tremorc.test.", "ttl": 120},
            {"A": "192.0.2.1", "ttl": 300},
            {"A": "192.0.2.2", "ttl": 300},
        ],
        "meta": 2,
    },
    {"event": [{"AAAA": "2001:db8::1", "ttl": 300}], "meta": 3},
    {"event": [{"AAAA": "2001:db8::6", "ttl": 300}], "meta": 4},
    {"event": [{"MX": "10 mail.tremorc.test.", "ttl": 300}], "meta": 5},
    {"event": [{"TXT": "v=spf1 -all", "ttl": 300}], "meta": 6},
    {"event": [{"SRV": "1 2 8080 www.tremorc.test.", "ttl": 300}], "meta": 7},
    {
        "event": [
            {"SOA": "ns.tremorc.test. admin.tremorc.test. 2026112401 3600 600 86400 60", "ttl": 300}
        ],
        "meta": 8,
    },
    {"event": [{"CNAME": "tremorc.test.", "ttl": 120}], "meta": 9},
    {"event": [{"A": "127.0.0.1", "ttl": 86400}], "meta": {"any": ["value"]}},
]
EXPECTED_ERR = [
    ({"lookup": "missing.tremorc.test"}, _no_record("missing.tremorc.test.", "AAAA"), 10),
    (
        {"lookup": {"name": "ns.tremorc.test", "type": "MX"}},
        _no_record("ns.tremorc.test.", "MX"),
        11,
    ),
    (
        {"lookup": {"name": "tremorc.test", "type": "WKS"}},
        "Invalid or unsupported record type: WKS",
        12,
    ),
    ({"lookup": {"type": "A"}}, "Metadata `$dns.lookup` missing or invalid", 13),
]


@pytest.mark.spark
def test_lookups_against_a_real_server(spark, tmp_path: Path, nameserver: Any) -> None:
    """Every request answered once, in request order, on `out` or `err`, over 3 partitions;
    `$correlation` carried to the answer."""
    text = "".join(json.dumps([dns, c]) + "\n" for dns, c in REQUESTS)
    (tmp_path / "in.json").write_text(text)
    paths = {"IN": tmp_path / "in.json", "OUT": tmp_path / "out", "ERR": tmp_path / "err"}
    module = build(ZONE_FLOW.replace("@NS@", json.dumps(nameserver[0])), **paths)
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index", partitions=3))
    out = lines(tmp_path / "out")
    assert [{"event": o["event"], "meta": o["meta"]["correlation"]} for o in out] == EXPECTED_OUT
    assert all(set(o["meta"]) == {"correlation"} for o in out)
    errors = [
        ({"lookup": e["event"]["request"]["lookup"]}, e["event"]["error"], e["meta"]["correlation"])
        for e in lines(tmp_path / "err")
    ]
    assert errors == EXPECTED_ERR


def test_nameserver_forms() -> None:
    from runtime_support.io.connectors.dns_lookup import parse_nameserver

    assert parse_nameserver("127.0.0.1") == ("127.0.0.1", 53)
    assert parse_nameserver("127.0.0.1:5353") == ("127.0.0.1", 5353)
    assert parse_nameserver("::1") == ("::1", 53)
    assert parse_nameserver("[::1]:5353") == ("::1", 5353)


def test_dead_nameserver_answers_on_err() -> None:
    """No server on the port: the lookup times out and answers on `err` (no exception)."""
    from runtime_support.io.connectors.dns_lookup import answer, make_resolver

    resolver = make_resolver(["127.0.0.1:9"], timeout=0.5)
    port, value, meta = answer(resolver, {"dns": {"lookup": "tremorc.test"}})
    assert (port, meta, value["request"]) == ("err", {}, {"lookup": "tremorc.test"})
    assert "lookup of tremorc.test. failed" in value["error"]


def _compile(text: str) -> None:
    compile_source(Source("t.troy", text), "deploy")


@pytest.mark.parametrize(
    ("with_", "message"),
    [
        ('codec = "json"', "dns_client is a structured connector and can't be configured"),
        ('preprocessors = ["separate"]', "preprocessors would not run"),
        ('config = {"timeout": 5}', "timeout"),
        ('config = {"nameservers": "127.0.0.1"}', "nameservers"),
        ('config = {"nameservers": ["ns.example:53"]}', 'is not "ip", "ipv4:port"'),
        ('config = {"nameservers": ["127.0.0.1:0"]}', "127.0.0.1:0"),
    ],
)
def test_config_checked(with_: str, message: str) -> None:
    text = f"""
define flow main
flow
  define connector dns from dns_client with {with_} end;
  create connector dns;
end;
deploy flow main;
"""
    with pytest.raises(CompileError, match=message):
        _compile(text)


def test_stream_rejects_connected_answers(tmp_path: Path) -> None:
    module = build(
        ZONE_FLOW.replace("@NS@", '"127.0.0.1:53"'),
        IN=tmp_path / "in",
        OUT=tmp_path / "out",
        ERR=tmp_path / "err",
    )
    with pytest.raises(StreamError, match="dns_client connector `main::dns`"):
        check_flow(module.FLOW, stream_args(tmp_path / "ck"))


STREAM_FLOW = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dns from dns_client with config = {"nameservers": [@NS@]} end;
  define pipeline request
  pipeline
    define script meta script let $dns = {"lookup": event}; emit event end;
    create script meta;
    select event from in into meta;
    select event from meta into out;
  end;
  create connector input; create connector dns; create pipeline request;
  connect /connector/input to /pipeline/request;
  connect /pipeline/request to /connector/dns;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_stream_looks_up_each_micro_batch(spark, tmp_path: Path, nameserver: Any) -> None:
    """A stream with the answers unconnected still asks the server, as Tremor's sink does:
    two files, two micro-batches, every request queried (an untyped lookup: A, then AAAA)."""
    address, queries = nameserver
    before = len(queries.read_text().splitlines()) if queries.exists() else 0
    write_file(tmp_path / "in", 0, ['"tremorc.test"', '"ns.tremorc.test"'])
    write_file(tmp_path / "in", 1, ['"v6.tremorc.test"'])
    module = build(STREAM_FLOW.replace("@NS@", json.dumps(address)), IN=tmp_path / "in")
    args = stream_args(tmp_path / "ck", flush=False)
    run_stream_flow(spark, module.FLOW, module.run_pipeline, args, RunContext())
    asked = sorted(queries.read_text().splitlines()[before:])
    assert asked == [
        "ns.tremorc.test. A",
        "tremorc.test. A",
        "v6.tremorc.test. A",
        "v6.tremorc.test. AAAA",
    ]
