"""The ``elastic`` sink against a real Elasticsearch (tests/support/servers/elastic.py).

Ported from tremor-runtime ``tremor-cli/tests/integration/elastic-sink-only``: events
``{"num": n}`` (n = 1..1024), each an ``update`` with ``raw_payload`` of ``{"doc": event,
"doc_as_upsert": true}`` into ``my_little_index``; even ``num`` set ``$elastic._id`` to the
number, odd ones have none (an ``update`` without ``_id`` fails the request: Tremor reports it on
``err``). Expectations written by hand from Tremor's flow: the index holds exactly the even
documents, each under its number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime_support.flows.batch import run_flow
from runtime_support.io.connectors.base import RunContext
from tests.support.flow_jobs import build, build_and_run
from tests.support.servers import elastic as es_server

pytestmark = pytest.mark.skipif(es_server.es_home() is None, reason=es_server.skip_reason())

SINK_ONLY = """
define flow elastic_sink_only
flow
  define connector elastic_sink from elastic
  with
    config = {"nodes": [@URL@], "include_payload_in_response": false}
  end;
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define pipeline elastic_meta
  pipeline
    define script add_meta
    script
      let $elastic = {
        "_index": "my_little_index",
        "action": "update",
        "raw_payload": true,
        "timeout": "5m",
        "refresh": "wait_for",
        "retry_on_conflict": 2
      };
      match event of
        case %{ present num } =>
          match event["num"] % 2 of
            case 0 =>
              let $elastic["_id"] = "#{event["num"]}"
            case _ => null
          end
        case _ => null
      end;
      emit {"doc": event, "doc_as_upsert": true};
    end;
    create script add_meta;
    select event from in into add_meta;
    select event from add_meta/out into out;
    select event from add_meta/err into err;
  end;
  create connector elastic_sink; create connector input; create pipeline elastic_meta;
  connect /connector/input to /pipeline/elastic_meta;
  connect /pipeline/elastic_meta/out to /connector/elastic_sink;
end;
deploy flow elastic_sink_only;
"""


@pytest.fixture(scope="module")
def elastic() -> Iterator[Any]:
    with es_server.elastic_server() as server:
        yield server


@pytest.mark.spark
def test_sink_only_update_upsert(spark, tmp_path: Path, elastic: Any) -> None:
    # Each request waits for a refresh (`"refresh": "wait_for"`): refresh every 50 ms, not 1 s.
    elastic.delete("my_little_index")
    elastic.put("/my_little_index", {"settings": {"index": {"refresh_interval": "50ms"}}})
    (tmp_path / "in.json").write_text("".join(f'{{"num": {n}}}\n' for n in range(1, 1025)))
    module = build(SINK_ONLY, IN=tmp_path / "in.json", URL=elastic.url)
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
    docs = elastic.documents("my_little_index")
    assert docs == {str(n): {"num": n} for n in range(2, 1025, 2)}


@pytest.mark.spark
def test_stream_writes_each_micro_batch(tmp_path: Path, elastic: Any) -> None:
    """The same flow as a checkpointed stream (``write_batch``), one micro-batch per input file:
    each event indexed; a rerun on the same checkpoint has nothing new to write."""
    elastic.delete("my_little_index")
    elastic.put("/my_little_index", {"settings": {"index": {"refresh_interval": "50ms"}}})
    (tmp_path / "in").mkdir()
    for part, numbers in enumerate((range(1, 41), range(41, 81))):
        lines = "".join(f'{{"num": {n}}}\n' for n in numbers)
        (tmp_path / "in" / f"{part}.json").write_text(lines)
    text = SINK_ONLY.replace("@IN@", json.dumps(str(tmp_path / "in"))).replace(
        "@URL@", json.dumps(elastic.url)
    )
    options = ["--stream", "--checkpoint", str(tmp_path / "ck"), "--trigger", "available-now"]
    build_and_run(tmp_path, text, {}, *options, "--files-per-batch", "1")
    assert elastic.documents("my_little_index") == {str(n): {"num": n} for n in range(2, 81, 2)}
    elastic.delete("my_little_index")
    elastic.put("/my_little_index", {"settings": {"index": {"refresh_interval": "50ms"}}})
    build_and_run(tmp_path, text, {}, *options)
    assert elastic.documents("my_little_index") == {}  # committed batches are not written again


BATCHED = """
define flow main
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector es from elastic
  with config = {"nodes": [@URL@], "index": "fallback", "concurrency": 1} end;
  define pipeline p
  pipeline
    define script meta
    script
      let $elastic = {"_id": "doc-#{event.n}", "routing": "r#{event.n % 2}"};
      match event of
        case %{ present idx } => let $elastic["_index"] = event.idx
        case _ => null
      end;
      match event of
        case %{ present action } => let $elastic["action"] = event.action
        case _ => null
      end;
      event
    end;
    create script meta;
    define operator batch from generic::batch with count = 3 end;
    create operator batch;
    select event from in into meta;
    select event from meta into batch;
    select event from batch into out;
  end;
  create connector input; create connector es; create pipeline p;
  connect /connector/input to /pipeline/p;
  connect /pipeline/p/out to /connector/es;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_batched_events_with_metadata(spark, tmp_path: Path, elastic: Any) -> None:
    events = [
        {"n": 1},
        {"n": 2, "idx": "other"},
        {"n": 3, "action": "create"},
        {"n": 4},
        {"n": 1, "action": "delete"},
        {"n": 4, "action": "update", "extra": True},
    ]
    (tmp_path / "in.json").write_text("".join(json.dumps(e) + "\n" for e in events))
    module = build(BATCHED, IN=tmp_path / "in.json", URL=elastic.url)
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))
    # Two bulk requests of three, one at a time (`concurrency` 1: with more in flight the
    # second request's delete of doc-1 may reach the server before the first's index of it, in
    # Tremor too): the config's index where `$elastic._index` is absent, each
    # event's own `_id`, action and routing (an update merges `doc` into the document).
    assert elastic.documents("fallback") == {
        "doc-3": {"n": 3, "action": "create"},
        "doc-4": {"n": 4, "action": "update", "extra": True},
    }
    assert elastic.documents("other") == {"doc-2": {"n": 2, "idx": "other"}}
    routed = elastic.get("/fallback/_doc/doc-3", routing="r1")
    assert routed["found"] is True and routed["_routing"] == "r1"


RESPONSES = """
define flow main
flow
  define pipeline main
  pipeline
  define
    script process_batch_item
    script
      let $elastic = {
        "_index": "my_little_index",
        "action": event.action,
      };
      let $correlation = event.snot;
      match event of
        case %{present doc_id} => let $elastic["_id"] = event.doc_id
        case _ => null
      end;
      event
    end;
    create script process_batch_item;
    define operator batch from generic::batch with
      count = 6
    end;
    create operator batch;
    select event from in into process_batch_item;
    select event from process_batch_item into batch;
    select event from batch into out;
    select event from process_batch_item/err into err;
  end;

  define pipeline response_handling
  into out, exit, err
  pipeline
    select {
      "action": $elastic.action,
      "success": $elastic.success,
      "payload": event.payload,
      "index": $elastic["_index"],
      "correlation": $correlation
    }
    from in where $elastic.success == true into out;

    select {
      "action": $elastic.action,
      "payload": event.payload,
      "success": $elastic.success,
      "index": $elastic["_index"],
      "correlation": $correlation
    }
    from in where $elastic.success == false into err;

    select "exit" from in where match event.payload of case %{ present exit } => true
      case _ => false end into exit;
  end;

  define connector elastic from elastic
  with
    config = {"nodes": [@URL@], "concurrency": 10, "include_payload_in_response": true}
  end;
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector errfile from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @ERR@, "mode": "truncate", "single_file": true}
  end;
  define connector okfile from file
  with codec = "json", postprocessors = ["separate"],
    config = {"path": @OK@, "mode": "truncate", "single_file": true}
  end;
  define connector exit from exit;
  create connector input; create connector errfile; create connector okfile;
  create connector exit; create connector elastic;
  create pipeline main;
  create pipeline response_handling;

  connect /connector/input/out to /pipeline/main/in;
  connect /pipeline/main/out to /connector/elastic/in;
  connect /connector/elastic/out to /pipeline/response_handling/in;
  connect /pipeline/response_handling/out to /connector/okfile/in;
  connect /pipeline/response_handling/exit to /connector/exit/in;
  connect /connector/elastic/err to /pipeline/response_handling/in;
  connect /pipeline/response_handling/err to /connector/errfile/in;
end;

deploy flow main;
"""

TREMOR_IN = """\
{"snot": "badger", "action": null}
{"snot": "racoon", "tremor": [true, true, true, false], "action": null}
{"snot": "tons", "tremor": 12, "cause": "different type", "action": null}
{"snot": "badger", "action": "delete", "doc_id": "badger"}
{"snot": "badger", "action": "index", "doc_id": "badger"}
{"snot": "badger", "action": "update", "doc_id": "badger", "exit": true}
"""


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.mark.spark
def test_responses_feed_a_pipeline(spark, tmp_path: Path, elastic: Any) -> None:
    """tremor-cli/tests/integration/elastic: one batch of six events, one bulk request; the
    bulk items come back on `out` (success) and `err` (the mapping conflict of "tons")."""
    elastic.delete("my_little_index")
    (tmp_path / "in.json").write_text(TREMOR_IN)
    ok, err = tmp_path / "ok.log", tmp_path / "err.log"
    module = build(RESPONSES, IN=tmp_path / "in.json", URL=elastic.url, OK=ok, ERR=err)
    run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index"))

    def item(action: str, snot: str, payload: dict, success: bool = True) -> dict:
        return {
            "action": action,
            "correlation": snot,
            "index": "my_little_index",
            "payload": payload,
            "success": success,
        }

    assert _lines(ok) == [
        item("index", "badger", {"action": None, "snot": "badger"}),
        item("index", "racoon", {"action": None, "snot": "racoon", "tremor": [True] * 3 + [False]}),
        item("delete", "badger", {"action": "delete", "doc_id": "badger", "snot": "badger"}),
        item("index", "badger", {"action": "index", "doc_id": "badger", "snot": "badger"}),
        item(
            "update",
            "badger",
            {"action": "update", "doc_id": "badger", "exit": True, "snot": "badger"},
        ),
    ]
    tons = {"action": None, "cause": "different type", "snot": "tons", "tremor": 12}
    assert _lines(err) == [item("index", "tons", tons, success=False)]
