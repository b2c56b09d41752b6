"""Window-state errors of the select operator (runtime_support/tremor/select.py, windows.py) in
Tremor's words (``op/trickle/select.rs`` / ``window.rs``): ``max_groups`` overflow, and the
replies a state window's script may give."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events


def _run(program: str, events: list[Any], kind: str = "query") -> list[tuple[str, Any]]:
    job = compile_source(Source(f"p.{'trickle' if kind == 'query' else 'tremor'}", program), kind)
    graph = load_job(job.job, "p").GRAPH
    stream = [("in", i, e, i, None) for i, e in enumerate(events)]
    return [(port, value) for _, _, port, value in run_events(graph, stream)]


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
