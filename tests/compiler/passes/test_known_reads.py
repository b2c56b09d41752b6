"""A dead ``let $key = event.path`` keeps its read only where the read can fail: the golden case
``golden/query/known_reads`` shows which reads go; these tests run the job's graph in one thread
and check that every event still ends where Tremor sends it, with the error of the read that
fails (a missing key after the match, a store into ``event`` before the read)."""

from __future__ import annotations

import json

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from tests.support.one_thread import one_thread
from tests.support.paths import ROOT

PROGRAM = ROOT / "golden" / "query" / "known_reads" / "input.trickle"

STORE_THEN_READ = """
define script classify
script
  let $class = "c";
  let $rate = 1;
  match event.app of
    case _ => let $dimension = event.app
  end;
  let event = {"replaced": true};
  let $dimension = event.app;
  event
end;

define operator limit from grouper::bucket;
create script classify;
create operator limit;
select event from in into classify;
select event from classify into limit;
select event from classify/err into err;
select event from limit into out;
select event from limit/overflow into out;
"""


def _run(text: str, name: str, events: list[dict]) -> list[tuple[str, dict]]:
    job = compile_source(Source(name, text), "query").job
    module = load_job(job, name)
    lines = [json.dumps(event) for event in events]
    return [(port, json.loads(out)) for port, out in one_thread(module.GRAPH, {"in": lines}, int)]


def test_reads_that_can_fail_still_fail_where_tremor_fails():
    outputs = _run(
        PROGRAM.read_text(),
        "known_reads.trickle",
        [
            {"app": "a", "host": "h"},  # the first case emits it as it is
            {"app": "b", "host": "h"},  # through both reads of `host`, then `seen` is set
            {"app": "b"},  # no `host`: the read in the second case fails (line 8)
            {"host": "h"},  # no `app`: the match fails (line 6)
        ],
    )
    assert [port for port, _ in outputs] == ["out", "out", "err", "err"]
    assert outputs[0][1] == {"app": "a", "host": "h"}
    assert outputs[1][1] == {"app": "b", "host": "h", "seen": True}
    missing_host, missing_app = outputs[2][1]["error"], outputs[3][1]["error"]
    assert "`host`" in missing_host and "8 |" in missing_host
    assert "`app`" in missing_app and "6 |" in missing_app


def test_a_read_after_a_store_into_event_is_kept():
    """`event.app` was read by the match and in its case, but `let event = …` replaced the
    event: the read after it fails for every event."""
    outputs = _run(STORE_THEN_READ, "store_then_read.trickle", [{"app": "a"}, {"app": "b"}])
    assert [port for port, _ in outputs] == ["err", "err"]
    assert all("`app`" in value["error"] and "10 |" in value["error"] for _, value in outputs)


def test_the_read_after_the_match_is_not_compiled():
    job = compile_source(Source("known_reads.trickle", PROGRAM.read_text()), "query").job
    body = job[job.index("def script_classify_run") : job.index("SCRIPT_CLASSIFY_SITES")]
    assert body.count('get_field(event, "app"') == 2  # the match, and the read after the store
    assert body.count('get_field(event, "host"') == 2  # in the second case, and after the match
