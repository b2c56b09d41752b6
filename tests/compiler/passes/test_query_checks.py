"""The query checks (compiler/passes/query_checks.py) Tremor makes of script and window
definitions: duplicate script ports, and what a window's ``tick`` script may touch; also for
definitions that come from modules."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program
from compiler.source import Source


def _error(text: str, kind: str = "query") -> str:
    name = {"query": "t.trickle", "script": "t.tremor"}[kind]
    with pytest.raises(CompileError) as info:
        check_program(Source(name, text), kind)
    return info.value.render()


DUPLICATE_PORT = """define script s
script from p
  event
script from q
  event
script from p
  1
script
  event
end;
create script s;
select event from in into s;
"""


def test_duplicate_script_port_is_rejected_at_its_first_clause() -> None:
    """Tremor checks the named scripts last to first: the first ``p`` is the duplicate."""
    assert _error(DUPLICATE_PORT) == (
        "Error: \n"
        "    1 | define script s\n"
        "    2 | script from p\n"
        "      |             ^ script port already defined\n"
        "    3 |   event\n"
        "    4 | script from q\n"
        "    5 |   event\n"
        "    6 | script from p\n"
        "    7 |   1\n"
        "    8 | script\n"
        "    9 |   event\n"
        "   10 | end;"
    )


def test_duplicate_port_inside_a_nested_pipeline_definition() -> None:
    text = (
        "define pipeline p\npipeline\n"
        "  define script s script from x 1 script from x 2 script event end;\n"
        "  select event from in into out;\nend;\n"
        "create pipeline p;\nselect event from in into p;\n"
    )
    assert "script port already defined" in _error(text)


def test_distinct_script_ports_are_accepted() -> None:
    text = DUPLICATE_PORT.replace("from p\n  1", "from r\n  1")
    check_program(Source("t.trickle", text), "query")


def test_reserved_in_port_wins_when_it_is_the_later_clause() -> None:
    text = DUPLICATE_PORT.replace("script from p\n  1", "script from in\n  1")
    text = text.replace("script from q", "script from p")
    assert "port `in` is reserved for the `script` section" in _error(text)


def _window(tick: str, main: str = "event") -> str:
    return (
        "define window w from tumbling\nwith\n  interval = 1\n"
        f"script from tick\n{tick}\nscript\n  {main}\nend;\n"
        "select aggr::win::collect_flattened(event) from in[w] into out;\n"
    )


@pytest.mark.parametrize(
    ("tick", "caret", "message"),
    [
        ("  let state = $.x", "      |       ^^^^^^^^^^^", "`$` isn't accessible in this context"),
        ("  let state = [event]", "      |       ^^^^^^^^^^^^^^^", "`event` isn't accessible"),
        ("  let $ = 1", "      |       ^^^^^", "Can not assign to `$` here"),
        ("  let event.x = state", "      |       ^^^^^^^^^^^^^^^", "Can not assign to `event`"),
        ("  match $ of case _ => 1 end", "      |   ^^^^^^^^^^^^^^^^^^^^^^^^^^", "`$` isn't"),
    ],
)
def test_tick_script_may_not_touch_event_or_meta(tick: str, caret: str, message: str) -> None:
    """The span is the offending top-level expression (an assignment from its target)."""
    lines = _error(_window(tick)).splitlines()
    assert lines[1] == "    1 | define window w from tumbling"
    assert lines[5] == f"    5 | {tick}"
    assert lines[6].startswith(caret + " ") and message in lines[6]
    assert lines[-1] == "    8 | end;"


def test_main_window_script_is_checked_before_the_tick_script() -> None:
    assert "Can not assign to `$` here" in _error(_window("  $", main="let $ = 1"))


def test_tick_script_may_read_and_write_state() -> None:
    check_program(Source("t.trickle", _window("  let state = state + 1")), "query")


def test_only_tick_named_scripts_in_windows() -> None:
    assert "Only `tick` scripts are supported by windows" in _error(
        _window("  1").replace("script from tick", "script from tock")
    )


def test_a_window_has_at_most_one_named_script() -> None:
    text = _window("  1\nscript from tick\n  2")
    with pytest.raises(CompileError, match="Found the token `from`"):
        check_program(Source("t.trickle", text), "query")


def _module_program(tmp_path: Any, module: str, program: str, name: str) -> CompileError:
    (tmp_path / "defs.tremor").write_text(module)
    path = tmp_path / name
    path.write_text(program)
    kind = "query" if name.endswith(".trickle") else "deploy"
    with pytest.raises(CompileError) as info:
        check_program(Source.from_path(path), kind)
    return info.value


def test_duplicate_port_of_a_module_script_is_reported_in_the_module(tmp_path: Any) -> None:
    module = "define script s\nscript from p\n  1\nscript from p\n  2\nscript\n  event\nend;\n"
    program = "use defs;\ncreate script s from defs::s;\nselect event from in into s;\n"
    err = _module_program(tmp_path, module, program, "q.trickle")
    assert "script port already defined" in err.render()
    assert err.render().splitlines()[2] == "    2 | script from p"
    assert str(err.source.path).endswith("defs.tremor")


def test_tick_rules_of_a_module_window_apply_in_a_flow_pipeline(tmp_path: Any) -> None:
    module = "define window w from tumbling\nwith\n  interval = 1\n"
    module += "script from tick\n  event\nend;\n"
    program = (
        "define flow main\nflow\n  define pipeline p\n  pipeline\n    use defs;\n"
        "    select aggr::win::collect_flattened(event) from in[defs::w] into out;\n"
        "  end;\n  create pipeline p;\nend;\ndeploy flow main;\n"
    )
    err = _module_program(tmp_path, module, program, "f.troy")
    assert "`event` isn't accessible in this context" in err.render()
    assert str(err.source.path).endswith("defs.tremor")
