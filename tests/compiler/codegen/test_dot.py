"""`tremorc dbg dot` renders the checked IR: scopes in labels, ports on edges, select errors into
`error_log` (expected text written by hand)."""

from __future__ import annotations

from click.testing import CliRunner

from compiler.cli import cli

QUERY = """\
define operator c from generic::counter;
create operator c;
select event from in into c;
select event.n from c where event.n > 1 into out;
"""

EXPECTED = """\
digraph "q.trickle" {
  "in" [shape=invhouse, label="in"];
  "out" [shape=house, label="out"];
  "err" [shape=house, label="err"];
  "c" [shape=box, label="c\\ngeneric::counter\\nglobal (generic::counter state)"];
  "#select1" [shape=box, label="#select1\\nselect\\nstateless"];
  "in" -> "c" [label="out → in"];
  "c" -> "#select1" [label="out → in"];
  "#select1" -> "out" [label="out → in"];
  "#select1" -> "error_log" [label="error"];
  "error_log" [shape=house];
}
"""


def test_dbg_dot_renders_the_ir(tmp_path) -> None:
    path = tmp_path / "q.trickle"
    path.write_text(QUERY)
    result = CliRunner().invoke(cli, ["dbg", "dot", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == EXPECTED


def test_dbg_dot_of_a_flow_names_connectors_and_clusters(tmp_path) -> None:
    path = tmp_path / "f.troy"
    path.write_text(
        "define flow main\nflow\n"
        '  define connector src from metronome with config = {"interval": 1} end;\n'
        "  define connector stop from exit;\n"
        "  create connector src;\n  create connector stop;\n"
        "  create pipeline p from tremor::pipelines::passthrough;\n"
        "  connect /connector/src to /pipeline/p;\n  connect /pipeline/p to /connector/stop;\n"
        "end;\ndeploy flow main;\n"
    )
    lines = CliRunner().invoke(cli, ["dbg", "dot", str(path)]).output.splitlines()
    assert '  "main/src" [shape=component, label="src\\nmetronome\\nstateless"];' in lines
    assert '  subgraph "cluster_main/p" {' in lines
    assert '  "main/src" -> "main/p/in" [label="out → in"];' in lines
    assert '  "main/p/out" -> "main/stop" [label="out → in"];' in lines
