"""The ``http_client`` sink against a real HTTP server (``http.server`` in a subprocess that
records every request).

Ported from tremor-runtime ``tremor-cli/tests/integration/http-client-sink-only``: the events
1..70 are PUT to ``/snot`` with the header ``X-Something: snot`` and a ``mime_mapping`` whose
``*/*`` codec is ``json`` sorted; each event is one request, its body the sorted JSON and its
``Content-Type`` the codec's mime type. Tremor's mime rules (tremor-connectors
``utils/mime.rs``, ``http/meta.rs::consolidate_mime``) are checked on the wire too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.net.http import HttpClientSink
from tests.support.flow_jobs import build
from tests.support.servers import net_peer

FLOW = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector http_client from http_client
  with
    config = {
      "url": @URL@,
      "method": "PUT",
      "headers": {"X-Something": "snot"},
      "timeout": 10000000000,
      "mime_mapping": {
        "application/json": {"name": "json", "config": {"mode": "sorted"}},
        "*/*": {"name": "json", "config": {"mode": "sorted"}}
      }
    }
  end;
  define pipeline p pipeline select {"z": event, "a": event * 2} from in into out; end;
  create connector input; create connector http_client; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p/out to /connector/http_client;
end;
deploy flow main;
"""


@pytest.fixture
def http_peer(tmp_path: Path) -> Any:
    process, port, out = net_peer.start("http", str(tmp_path))
    try:
        yield port, Path(out)
    finally:
        net_peer.stop(process)


def requests_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


@pytest.mark.spark
def test_sink_only_put_with_mime_mapping(spark, tmp_path: Path, http_peer: Any) -> None:
    port, out = http_peer
    (tmp_path / "in.json").write_text("".join(f"{n}\n" for n in range(1, 71)))
    module = build(FLOW, IN=tmp_path / "in.json", URL=f"http://127.0.0.1:{port}/snot")
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
    got = requests_of(out)
    assert len(got) == 70
    for request in got:
        assert request["method"] == "PUT" and request["path"] == "/snot"
        assert request["headers"]["x-something"] == "snot"
        assert request["headers"]["content-type"] == "application/json"
    # The sorted json codec of `*/*`: "a" before "z"; one small file is one partition, in order.
    bodies = [r["body"] for r in got]
    assert bodies == [f'{{"a":{2 * n},"z":{n}}}' for n in range(1, 71)]


def sink(config: dict[str, Any], codec: Any = "json") -> HttpClientSink:
    return HttpClientSink(ConnectorSpec("f::c", "http_client", {"codec": codec, "config": config}))


def test_tremor_mime_rules() -> None:
    # No mapping and no Content-Type header: Tremor's default map has no `*/*`, so the
    # connector's codec encodes and the request says application/octet-stream.
    plain = sink({"url": "http://x/"})
    assert plain.codec.name == "json"
    assert ("Content-Type", "application/octet-stream") in plain.headers
    # A Content-Type header picks the codec from the default map (text/plain → string).
    text = sink({"url": "http://x/", "headers": {"Content-Type": "text/plain; charset=utf-8"}})
    assert text.codec.name == "string"
    assert [v for k, v in text.headers if k == "Content-Type"] == ["text/plain; charset=utf-8"]
    # A custom mapping's `*/*` codec, and the mime type the mapping gives that codec.
    custom = sink({"url": "http://x/", "mime_mapping": {"text/x-mine": "string", "*/*": "string"}})
    assert custom.codec.name == "string"
    assert ("Content-Type", "text/x-mine") in custom.headers


def test_auth_headers() -> None:
    basic = sink({"auth": {"basic": {"username": "snot", "password": "badger"}}})
    assert ("Authorization", "Basic c25vdDpiYWRnZXI=") in basic.headers
    bearer = sink({"auth": {"bearer": "token"}})
    assert ("Authorization", "Bearer token") in bearer.headers
    key = sink({"auth": {"elastic_api_key": {"id": "snot", "api_key": "badger"}}})
    assert ("Authorization", "ApiKey c25vdDpiYWRnZXI=") in key.headers
    with pytest.raises(ValueError, match="`auth` must be"):
        sink({"auth": "gcp"})


def test_responses_are_not_events() -> None:
    from compiler.diagnostics import CompileError

    text = """define flow main flow
  define connector c from http_client with config = {"url": "http://127.0.0.1:1/"} end;
  define pipeline p pipeline select event from in into out; end;
  create connector c; create pipeline p;
  connect /connector/c to /pipeline/p;
end; deploy flow main;"""
    with pytest.raises(CompileError, match="only a sink in tremorc: an http_client is a sink"):
        compile_source(Source("t.troy", text), "deploy")
