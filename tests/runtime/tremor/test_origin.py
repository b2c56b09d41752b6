"""``tremor::origin`` (runtime_support/tremor/origin.py): the origin URI of an event as
``tremor-script/src/ctx.rs``, ``std_lib/origin.rs`` and the connectors' origin URIs make it."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.origin import decode_origin, encode_origin, origin_string
from runtime_support.tremor.stdlib.registry import call, lookup


def _origin_call(name: str, origin: Any) -> Any:
    fn = lookup(f"tremor::origin::{name}")
    assert fn is not None
    return call(fn, (), EventContext(origin_uri=origin))


def test_origin_functions_on_a_file_source_origin() -> None:
    uri = encode_origin("tremor-file", "host1", None, ["/data/in.json"])
    assert _origin_call("as_uri_string", uri) == "tremor-file://host1//data/in.json"
    assert _origin_call("path", uri) == ["/data/in.json"]  # one segment, as Tremor sets it
    assert _origin_call("port", uri) is None
    assert _origin_call("as_uri_record", uri) == {
        "scheme": "tremor-file", "host": "host1", "port": None, "path": ["/data/in.json"]
    }  # fmt: skip


def test_origin_without_path_has_no_trailing_slash() -> None:
    uri = encode_origin("tremor-stdin", "h", None, [])
    assert _origin_call("as_uri_string", uri) == "tremor-stdin://h"
    assert _origin_call("path", uri) == []


def test_origin_of_the_script_harness() -> None:
    assert _origin_call("as_uri_string", "snot://test:23/snot") == "snot://test:23/snot"
    assert decode_origin("snot://test:23/snot") == {
        "scheme": "snot", "host": "test", "port": 23, "path": ["snot"]
    }  # fmt: skip
    assert all(_origin_call(n, None) is None for n in ("scheme", "host", "port", "path"))


@pytest.mark.parametrize("path", [[], ["a"], ["a b/c", "%", ""], ["/abs/x.json"]])
def test_origin_round_trip(path: list[str]) -> None:
    rec = decode_origin(encode_origin("s", "h", 7, path))
    assert rec == {"scheme": "s", "host": "h", "port": 7, "path": path}
    assert origin_string(rec) == "s://h:7" + "".join("/" + p for p in path)


FLOW = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "IN", "mode": "read"}
  end;
  define connector output from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": "out.json", "mode": "truncate", "single_file": true}
  end;
  define pipeline p
  pipeline
    use tremor::origin;
    define script s
    script
      use tremor::origin;
      let event.in_script = origin::as_uri_string();
      event
    end;
    create script s;
    select {"uri": origin::as_uri_string(), "path": origin::path(), "port": origin::port()}
    from in into s;
    select event from s into out;
  end;
  create connector input; create connector output; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p to /connector/output;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_file_source_events_carry_tremors_origin(spark, tmp_path, monkeypatch) -> None:
    import json
    import socket

    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.json").write_text('{"a": 1}\n{"a": 2}\n')
    path = str(tmp_path / "in.json")  # Spark resolves relative paths against the JVM's cwd
    module = load_job(compile_source(Source("t.troy", FLOW.replace("IN", path)), "deploy").job, "t")
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index")) == 0
    uri = f"tremor-file://{socket.gethostname()}/{path}"  # file.rs: scheme, hostname, [path]
    want = {"uri": uri, "path": [path], "port": None, "in_script": uri}
    assert [json.loads(x) for x in (tmp_path / "out.json").read_text().splitlines()] == [want] * 2
