"""Runtime bug classes fixed against Tremor's own semantics (issue 8).

Expected values come from Tremor's sources: the ``dissect`` crate (0.7, its unit tests and
docs), ``tremor-script/src/ctx.rs`` + ``std_lib/origin.rs`` + the connectors' origin URIs,
``tremor-pipeline/src/executable_graph.rs`` (an operator error clears the event's stack) and
``op/trickle/select.rs`` / ``window.rs`` (error wording).
"""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.context import EventContext
from runtime_support.tremor.extractors import NO_MATCH, ExtractorError, compile_extractor
from runtime_support.tremor.graph import run_events
from runtime_support.tremor.origin import decode_origin, encode_origin, origin_string
from runtime_support.tremor.stdlib.registry import call, lookup

# --- 1. dissect -------------------------------------------------------------------------------

DISSECT = [
    # (rule, input, expected) — from the dissect crate's tests and Tremor's extractor_dissect case
    ("%{protocol}://%{host}.%{.tld}", "http://example.com/", {
        "protocol": "http", "host": "example", ".tld": "com/"}),
    ("%{date}|%{_(-)} %{?priority} %{&priority} %{+snot} %{+snot}",
     "2019-04-20|------------------- high 3 foo bar",
     {"date": "2019-04-20", "high": "3", "snot": "foo-bar"}),  # append joins with the last pad
    ("this is a %{arr} %{+arr}", "this is a test case", {"arr": "test case"}),
    ("this is a %{+arr} case named %{+arr}", "this is a test case named cake",
     {"arr": "test cake"}),
    ("%{name}, %{_}%{age}", "John Doe,                22", {"name": "John Doe", "age": "22"}),
    ("%{name}, %{_(-)}%{age}", "John Doe, -----------------------22",
     {"name": "John Doe", "age": "22"}),
    ("this is a %{what}%{_}case named %{name}", "this is a test  case named John",
     {"what": "test", "name": "John"}),
    ("%{name}%{_}%{_(|)}%{age}", "John 22", {"name": "John", "age": "22"}),
    ("%{name}%{_}%{_(|)}%{age}", "John22", NO_MATCH),
    ("%{a}%{_}%{b}", "this    works", {"a": "this", "b": "works"}),
    ("%{a}%{_}", "this   ", {"a": "this"}),
    ("%{a}%{_}", "this", {"a": "this"}),
    ("%{name}%{_}|%{age}", "John|22", {"name": "John", "age": "22"}),
    ("%{syslog_timestamp} %{wf_host} %{syslog_program}: %{syslog_message}%{_}",
     "2019-04-26 tremor-host tremor: dissect is working fine", NO_MATCH),
    ("%{name}}%{age}", "John}22", {"name": "John", "age": "22"}),
    ("%{name}%%{age}", "John}22", NO_MATCH),
    # logstash's `->` padding and `/n` append order are not Tremor syntax: part of the name
    ("%{a->} %{b}", "x    y", {"a->": "x", "b": "   y"}),
    ("%{+ts/2} %{+ts/1}", "x y", {"ts/2": "x", "ts/1": "y"}),
    # types: Rust's i64/f64 parse (no spaces), `string` allowed, `&` lookup typed and consumed
    ("%{a:int} %{b:float} %{c:string}", "+5 1e3 x", {"a": 5, "b": 1000.0, "c": "x"}),
    ("%{a:int}", " 5", NO_MATCH),
    ("%{?k}=%{&k:int}", "x=12", {"x": 12}),
    ("%{?k}=%{&k}", "=12", NO_MATCH),  # an empty looked-up name does not match
    ("%{a}\\t%{b}", "x\ty", {"a": "x", "b": "y"}),  # delimiter escapes
    ("%{a:int} %{+a} %{b}", "1 2 3", {"b": "3"}),  # append onto a non-string drops the field
]  # fmt: skip


@pytest.mark.parametrize(("rule", "text", "expected"), DISSECT)
def test_dissect_matches_tremor(rule: str, text: str, expected: Any) -> None:
    assert compile_extractor("dissect", rule).extract(text) == expected


def test_dissect_append_reorders_keys_as_tremor_records_do() -> None:
    # Tremor removes the key (swap_remove: the last key fills the hole) and re-inserts it.
    got = compile_extractor("dissect", "%{a} %{b} %{c} %{+a}").extract("1 2 3 4")
    assert list(got.items()) == [("c", "3"), ("b", "2"), ("a", "1 4")]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("%{test %{case}", "Unterminated patter at 0"),
        ("this is %{test case", "Unterminated patter at 8"),
        ("%{test}%{pattern}", "A dilimiter needs to be provided between the two patterns at 7"),
        ("%{_x}", "Invalid padding at 0"),
        ("ab%{a:bool}", "Invalid type '2' at bool"),
        ("%{_} x", "The padding at 0 can't be followed up by a dilimiter that begins with it"),
        ("a\\q%{a}", "Invalid escape sequence \\'q' is not valid."),
    ],
)
def test_dissect_rule_errors_use_tremors_words(rule: str, message: str) -> None:
    with pytest.raises(ExtractorError) as err:
        compile_extractor("dissect", rule)
    assert str(err.value) == f"Invalid tilde predicate pattern: {message}"


# --- 2. tremor::origin ------------------------------------------------------------------------


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


# --- 3. a failing operator ends its event -----------------------------------------------------


def _run(program: str, events: list[Any], kind: str = "query") -> list[tuple[str, Any]]:
    job = compile_source(Source(f"p.{'trickle' if kind == 'query' else 'tremor'}", program), kind)
    graph = load_job(job.job, "p").GRAPH
    stream = [("in", i, e, i, None) for i, e in enumerate(events)]
    return [(port, value) for _, _, port, value in run_events(graph, stream)]


def test_where_error_then_success() -> None:
    # Tremor's branch_error_then_ok: the last-connected select runs first; its error clears the
    # stack, so the first select never sees the failed event; the next event is unaffected.
    program = (
        'select event from in where event.format == "valid" into out;\n'
        'select event from in where event.format != "valid" into err;\n'
    )
    out = _run(program, [{}, {"format": "valid"}])
    assert [p for p, _ in out] == ["error_log", "out"]
    assert "    2 | select event from in where event.format != " in out[0][1]["error"]
    assert out[1] == ("out", {"format": "valid"})


def test_outputs_before_the_failure_are_kept_later_branches_dropped() -> None:
    program = (
        "select event from in into out;\n"
        "select event.x + 1 from in into out;\n"
        'select {"third": event} from in into out;\n'
    )
    out = _run(program, [{"x": "a"}, {"x": 1}])
    # event 1: branch 3 ran (first), branch 2 failed, branch 1 never ran
    assert out[0] == ("out", {"third": {"x": "a"}})
    assert out[1][0] == "error_log" and "    2 | " in out[1][1]["error"]
    # event 2: all three, in link order
    assert out[2:] == [("out", {"x": 1}), ("out", 2), ("out", {"third": {"x": 1}})]


def test_a_script_port_named_error_is_not_a_failure() -> None:
    program = (
        'define script s script emit event => "error" end;\n'
        "create script s;\n"
        "select event from in into out;\n"
        "select event from in into s;\n"
        'select {"via": event} from s/error into out;\n'
    )
    assert _run(program, [1]) == [("out", 1), ("out", {"via": 1})]


# --- 4. window-state errors in Tremor's words -------------------------------------------------

WINDOW = """\
define window w from tumbling
with
  size = 2,
  max_groups = 1
end;
select {"g": group[0], "c": aggr::stats::count()} from in[w] group by event.g into out;
"""


def test_max_groups_overflow() -> None:
    out = _run(WINDOW, [{"g": 1}, {"g": 2}, {"g": 1}])
    assert out[0][0] == "error_log"
    assert out[0][1]["error"] == (
        "Error: \n"
        "    6 | " + WINDOW.splitlines()[5] + "\n"
        "      |" + " " * 71 + "^^^^^^^ "
        "Maxmimum amount of groups reached (1). Ignoring group [2]"
    )
    assert out[1] == ("out", {"g": 1, "c": 2})


def test_a_group_that_closes_at_once_does_not_count() -> None:
    # select.rs checks the limit only for a new group its window keeps open
    program = WINDOW.replace("size = 2", "size = 1")
    out = _run(program, [{"g": 1}, {"g": 2}])
    assert out == [("out", {"g": 1, "c": 1}), ("out", {"g": 2, "c": 1})]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("[true]", "An array as return value needs to be a two-element array of booleans with "
                   "the form `[emit, include]`"),
        ("drop", "State based window didn't provide a boolean return"),
        ('"x"', 'Window returned `"x"` this can\'t be used as a window reply'),
    ],
)  # fmt: skip
def test_state_window_replies(script: str, message: str) -> None:
    program = (
        f"define window w from tumbling\nstate\n  null\nscript\n  {script}\nend;\n"
        "select 1 from in[w] into out;\n"
    )
    out = _run(program, [1])
    caret = " " * 2 + "^" * len(script)
    assert out == [
        ("error_log", {"error": f"Error: \n    5 |   {script}\n      | {caret} {message}",
                       "event": 1})
    ]  # fmt: skip


# --- stats::hdr / stats::dds argument handling (stats.rs) ------------------------------------


@pytest.mark.parametrize(
    ("name", "percentile", "why"),
    [
        ("hdr", "x", "ParseFloatError { kind: Invalid }"),
        ("hdr", "", "ParseFloatError { kind: Empty }"),
        ("dds", "0.5x", "invalid float literal"),
        ("dds", "", "cannot parse float from empty string"),
    ],
)
def test_percentile_that_is_not_a_float(name: str, percentile: str, why: str) -> None:
    from runtime_support.tremor.aggregates import make
    from runtime_support.tremor.errors import TremorError

    with pytest.raises(TremorError) as err:
        make(f"aggr::stats::{name}").accumulate((1, ["0.5", percentile]))
    assert str(err.value.args[0]) == (
        f"Runtime error in function stats::{name}/2: "
        f"Provided percentile '{percentile}' isn't a float: {why}"
    )


@pytest.mark.parametrize("name", ["hdr", "dds"])
def test_percentile_arguments_tremor_ignores(name: str) -> None:
    from runtime_support.tremor.aggregates import make

    aggr = make(f"aggr::stats::{name}")
    aggr.accumulate((1, "not an array"))  # defaults kept
    aggr.accumulate(("two", None))  # a non-number is skipped, as is a negative
    aggr.accumulate((-3,))
    out = aggr.emit()
    assert out["count"] == 1
    assert list(out["percentiles"]) == ["0.5", "0.9", "0.95", "0.99", "0.999", "0.9999", "0.99999"]
    only = make(f"aggr::stats::{name}")
    only.accumulate((1, [0.5, "0.9", None]))  # non-strings are filtered out
    assert list(only.emit()["percentiles"]) == ["0.9"]
