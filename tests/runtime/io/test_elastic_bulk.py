"""The ``elastic`` connector's compile-time checks and its bulk requests, without a server.

Expectations from tremor-connectors ``impls/elastic.rs`` (``ESMeta::insert_op``,
``request_target``'s options, ``build_cfg``'s node checks), written by hand.
"""

from __future__ import annotations

import json

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.io.connectors.elastic_bulk import (
    BadMeta,
    operation,
    request_target,
    requests_of,
)

HEAD = """define flow main flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": "in", "mode": "read"}
  end;
  define connector out from file
  with codec = "json", postprocessors = ["separate"], config = {"path": "o", "mode": "truncate"}
  end;
  define connector es from elastic with config = CONFIG end;
  define pipeline a pipeline select event from in into out; end;
  define pipeline b pipeline select event from in into out; end;
  create connector input; create connector out; create connector es;
  create pipeline a; create pipeline b;
"""


def compile_flow(connects: str, config: str = '{"nodes": ["http://127.0.0.1:9200"]}') -> str:
    text = HEAD.replace("CONFIG", config) + connects + "\nend;\ndeploy flow main;\n"
    return compile_source(Source("t.troy", text), "deploy").job


def error_of(connects: str, config: str = '{"nodes": ["http://127.0.0.1:9200"]}') -> str:
    with pytest.raises(CompileError) as caught:
        compile_flow(connects, config)
    return caught.value.render()


SINK = "connect /connector/input to /pipeline/a; connect /pipeline/a to /connector/es;"


def test_responses_compile_to_a_second_pass() -> None:
    job = compile_flow(SINK + "connect /connector/es/out to /pipeline/b; "
                       "connect /pipeline/b to /connector/out;")  # fmt: skip
    assert 'answered=("main/out/in",)' in job
    assert 'meta_outputs=("main/es/in",)' in job


def test_a_pipeline_in_both_passes_is_rejected_at_the_connect() -> None:
    message = error_of(SINK + "connect /connector/es/err to /pipeline/a;")
    assert "The pipeline `a` gets the responses of `es` and events of a source" in message
    assert "connect /connector/es/err to /pipeline/a" in message


def test_responses_to_responses_are_rejected() -> None:
    message = error_of(SINK + "connect /connector/es/out to /pipeline/b; "
                       "connect /pipeline/b to /connector/es;")  # fmt: skip
    assert "which answers too" in message


def test_plain_sink_has_no_second_pass() -> None:
    job = compile_flow(SINK)
    assert "answered=" not in job


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('{"nodes": []}', "empty nodes provided"),
        ('{"nodes": ["http://x:9200"], "tls": true}', "needs 'https' scheme with tls"),
        ('{"nodes": ["https://x"], "tls": {"domain": "x"}}', "server name override"),
        ('{"nodes": ["http://x"], "auth": "gcp"}', "`auth` must be"),
        ('{"nodes": ["http://x"], "bogus": 1}', "bogus"),
    ],
)
def test_config_errors(config: str, expected: str) -> None:
    assert expected in error_of(SINK, config)


def lines(value, meta) -> list:
    return [json.loads(line) for line in operation(value, meta)]


def test_bulk_operations_as_tremor() -> None:
    assert lines({"a": 1}, {}) == [{"index": {}}, {"a": 1}]
    es = {"elastic": {"_index": "i", "_id": "1", "routing": "r", "pipeline": "p", "version": 3}}
    assert lines({"a": 1}, es)[0] == {
        "index": {"_index": "i", "_id": "1", "routing": "r", "pipeline": "p", "version": 3}
    }
    update = {"elastic": {"action": "update", "_id": "1", "retry_on_conflict": 2}}
    assert lines({"a": 1}, update) == [
        {"update": {"_id": "1", "retry_on_conflict": 2}},
        {"doc": {"a": 1}},
    ]
    raw = {"elastic": {"action": "update", "_id": "1", "raw_payload": True}}
    assert lines({"script": "x"}, raw)[1] == {"script": "x"}
    assert lines(None, {"elastic": {"action": "delete", "_id": "7"}}) == [{"delete": {"_id": "7"}}]
    for action in ("delete", "update", "create"):
        with pytest.raises(BadMeta, match="Missing"):
            operation({}, {"elastic": {"action": action}})
    with pytest.raises(BadMeta, match="Invalid Elasticsearch action: upsert"):
        operation({}, {"elastic": {"action": "upsert"}})


def test_request_options() -> None:
    meta = {"elastic": {"_index": "i", "_type": "t", "refresh": "wait_for", "timeout": "5m"}}
    assert request_target(meta, None) == ("/i/t/_bulk", {"timeout": "5m", "refresh": "wait_for"})
    assert request_target({}, "default") == ("/default/_bulk", {})
    assert request_target({"elastic": {"refresh": True}}, None) == ("/_bulk", {"refresh": "true"})
    with pytest.raises(BadMeta, match="refresh"):
        request_target({"elastic": {"refresh": "later"}}, None)


def test_batched_rows_make_one_request() -> None:
    def row(value, batch=None, meta=None):
        return json.dumps(value), json.dumps({"$": meta or {}, "batch": batch})

    rows = [row(1), row(2, [0, 2]), row(3, [1, 2]), row(4, [0, 3]), row(5, [1, 3]), row(6)]
    got = [(r.values, r.batch) for r in requests_of(rows)]
    # An incomplete batch (the run ended it early, or a partition split it) is sent as it is.
    assert got == [([1], False), ([2, 3], True), ([4, 5], True), ([6], False)]
