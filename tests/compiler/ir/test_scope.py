"""The job-graph IR: every node's state scope and ports, as `tremorc dbg ir` prints them.

Expected texts are written by hand from Tremor's semantics (TREMOR.md §2.2–2.4, §4): a select
without windows keeps no state; windows keep state per group (keyed by the group-by
expression); without group by there is one group (global); `max_groups` and
`win::cardinality()` count groups across keys (global); a script with `state` and the
counter/batch/history/roundrobin operators keep one state (global); grouper::bucket keeps its
state per `$class` (Tremor's bucket.rs: one LRU of dimensions per class).
"""

from __future__ import annotations

import textwrap

from compiler.ir.graph import PipelineGraph
from compiler.ir.scope import Global, Keyed, Stateless, combine, describe
from compiler.pipeline import check_program
from compiler.source import Source

ROUNDROBIN = """\
define window two from tumbling
with
  size = 2
end;
define operator rr from qos::roundrobin
with
  outputs = ["a", "b"]
end;
create operator rr;
select event from in into rr;
select {"g": event.g, "n": aggr::stats::count()} from rr/a[two] group by event.g into out;
select event.x from rr/b where event.x > 1 into out;
"""

ROUNDROBIN_IR = """\
pipeline
  inputs: in='in'
  outputs: out='out', err='err'
  PortNode 'in' (from in)
      scope: stateless | in: in | out: out
  PortNode 'out' (into out)
      scope: stateless | in: in | out: out
  PortNode 'err' (into err)
      scope: stateless | in: in | out: out
  OperatorNode 'rr' qos::roundrobin config={'outputs': ['a', 'b']}
      scope: global (qos::roundrobin state) | in: in | out: a, b, overflow
  SelectNode '#select1' clauses=['group'] aggregates=('aggr::stats::count',)
      window 'two' size=2
      scope: keyed by event.g | in: in | out: out, error
  SelectNode '#select2' clauses=['where'] aggregates=()
      scope: stateless | in: in | out: out, error
  link in/out -> rr/in
  link rr/a -> #select1/in
  link #select1/out -> out/in
  link rr/b -> #select2/in
  link #select2/out -> out/in
  error #select1/error -> error_log
  error #select2/error -> error_log"""


def _graph(text: str) -> PipelineGraph:
    ir = check_program(Source("t.trickle", text), "query").ir
    assert isinstance(ir, PipelineGraph)
    return ir


def _scopes(text: str) -> dict[str, str]:
    return {
        n.name: describe(n.scope) for n in _graph(text).nodes if n.name not in ("in", "out", "err")
    }


def test_dump_shows_every_scope_and_port() -> None:
    assert _graph(ROUNDROBIN).dump() == ROUNDROBIN_IR


def test_keyed_scope_records_the_group_by_text_and_span() -> None:
    node = _graph(ROUNDROBIN).nodes[4]
    assert isinstance(node.scope, Keyed)
    span = node.scope.span
    assert ROUNDROBIN[span.start : span.end] == "event.g"


WINDOW = "define window w from tumbling with size = 2{extra} end;\n"


def _select(group: str, extra: str = "", target: str = "aggr::stats::count()") -> str:
    return WINDOW.format(extra=extra) + f"select {target} from in[w]{group} into out;\n"


def test_windowed_select_scopes() -> None:
    assert _scopes(_select("")) == {"#select1": "global (windows without group by: one group)"}
    assert _scopes(_select(" group by set(event.a, each(event.b))")) == {
        "#select1": "keyed by set(event.a, each(event.b))"
    }
    assert _scopes(_select(" group by event.a", ", max_groups = 10")) == {
        "#select1": "global (max_groups counts the groups of every key)"
    }
    target = "[aggr::stats::count(), win::cardinality()]"
    assert _scopes("use std::win;\n" + _select(" group by event.a", target=target)) == {
        "#select1": "global (win::cardinality() counts the groups of every key)"
    }


def test_script_and_operator_scopes() -> None:
    text = textwrap.dedent("""\
        define script counting
        script
          let state = 1;
          emit event => "side"
        end;
        define script plain
        script
          event
        end;
        define operator c from generic::counter;
        define operator b from grouper::bucket;
        define operator h from debug::history with op = "x", name = "y" end;
        create script counting;
        create script plain;
        create operator c;
        create operator b;
        create operator h;
        select event from in into counting;
        select event from counting/side into plain;
        select event from plain into c;
        select event from c into b;
        select event from b into h;
        select event from h into out;
        """)
    assert _scopes(text) == {
        "counting": "global (script state)",
        "plain": "stateless",
        "c": "global (generic::counter state)",
        "b": "keyed by $class",
        "h": "global (debug::history state)",
    }
    ports = {n.name: n.out_ports for n in _graph(text).nodes}
    assert ports["counting"] == ("out", "err", "side")
    assert ports["b"] == ("out", "overflow", "err")


def test_tremor_script_and_flow_scopes() -> None:
    script = check_program(Source("t.tremor", 'let state = 1;\nemit => "x"'), "script").ir
    assert (
        script.dump().splitlines()[1]
        == "  scope: global (script state) | in: in | out: out, err, x"
    )
    flow = textwrap.dedent("""\
        define flow main
        flow
          define connector src from metronome with config = {"interval": 1} end;
          define connector stop from exit;
          create connector src;
          create connector stop;
          create pipeline p from tremor::pipelines::passthrough;
          connect /connector/src to /pipeline/p;
          connect /pipeline/p to /connector/stop;
        end;
        deploy flow main;
        """)
    lines = check_program(Source("t.troy", flow), "deploy").ir.dump().splitlines()
    assert lines[3] == "      scope: stateless | ports: out, err"
    assert lines[5] == "      scope: global (writes in emission order) | ports: in"


def test_combine_scopes() -> None:
    key = Keyed(key="event.a")
    assert combine([Stateless(), key]) == key
    assert combine([key, Keyed(key="event.b")]) == Global(
        reason="state keyed by event.a and event.b"
    )
    assert combine([key, Global(reason="x")]) == Global(reason="x")
    assert combine([]) == Stateless()


def _chain(*links: tuple[str, str]) -> PipelineGraph:
    from compiler.ir.graph import Link

    edges = tuple(Link(source=(a, "out"), target=(b, "in")) for a, b in links)
    return PipelineGraph(inputs=(), outputs=(), nodes=(), links=edges)


def test_reachable_follows_links_and_stops_at_the_first_refused_node() -> None:
    graph = _chain(("a", "b"), ("b", "c"), ("b", "d"), ("d", "b"), ("x", "a"))
    assert graph.reachable("a", lambda name: True) == {"b", "c", "d"}
    assert graph.reachable("c", lambda name: False) == set()  # nothing leaves c
    assert graph.reachable("a", lambda name: name != "d") is None
    assert graph.reachable("x", lambda name: True) == {"a", "b", "c", "d"}
    looped = _chain(("a", "b"), ("b", "a"))
    assert looped.reachable("a", lambda name: True) == {"a", "b"}  # itself through the cycle


def test_reaching_names_exactly_the_nodes_reachable_refuses() -> None:
    """``reaching(hits)`` holds the names whose ``reachable(name, not hits)`` is None, a cycle
    and a node reaching itself included."""
    graph = _chain(("a", "b"), ("b", "c"), ("b", "d"), ("d", "b"), ("x", "a"), ("c", "e"))
    names = {"a", "b", "c", "d", "e", "x"}
    for refused in ({"d"}, {"c"}, {"e"}, {"a"}, {"x"}, set(), {"b", "e"}):
        expected = {n for n in names if graph.reachable(n, lambda m, r=refused: m not in r) is None}
        assert graph.reaching(lambda m, r=refused: m in r) == expected, refused
    assert graph.reaching(lambda m: m == "d") == {"a", "b", "d", "x"}  # d reaches itself via b
