"""User text is data in a generated job, never code.

Identifiers, strings, field names, port and stream names, connector config values, comments and
file names holding quotes, triple quotes, backslashes, newlines, ``#{}`` text and the Unicode line
separators (U+2028, U+2029, U+0085; also CR and form feed, which Python's tokenizer treats as line
breaks) are compiled, and the generated ``job.py`` is parsed with :mod:`ast`:

* it has the same shape (node types, names and constants blanked) as the job of a *benign twin*
  of the program (every hostile piece replaced by ``x``): nothing was added or removed;
* every import, free name and call target is on a whitelist (what a job legitimately uses);
* every hostile string reaches the job as a string constant, byte for byte.

A few of the jobs then run on Spark and must output the hostile text as data.
"""

from __future__ import annotations

import ast
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_source
from compiler.source import Source
from compiler.testing.loader import load_job
from runtime_support.tremor.graph import run_events

# The decoded text every hostile string literal stands for, and its Tremor spelling.
HOSTILE = "q' d\" t''' T\"\"\" b\\ i#{x} n\n\u2028 \u2029 \u0085 r\r f\x0c end"
HOSTILE_LIT = "q' d\\\" t''' T\\\"\\\"\\\" b\\\\ i\\#{x} n\\n\u2028 \u2029 \u0085 r\\r f\x0c end"
# Back-tick identifiers take any text but a back-tick or a newline.
HOSTILE_ID = "we'ird \"\"\" ''' \\ #{x} \u2028 \u2029 \u0085 \r \x0c id"
HOSTILE_COMMENT = (
    "\"\"\" ''' \\ \u2028 __import__('os').system('echo pwned') \u2029 import os "
    "\u0085 x = 1 \r import sys \x0c del x"
)
# HOSTILE_ID spelt as a string literal (a script emits on a port of that name).
HOSTILE_ID_LIT = (
    HOSTILE_ID.replace("\\", "\\\\").replace('"', '\\"').replace("#{", "\\#{")
    .replace("\r", "\\r")
)  # fmt: skip
BENIGN = {"S": "x", "I": "x", "C": "x", "P": "x"}
HOSTILE_FILL = {"S": HOSTILE_LIT, "I": HOSTILE_ID, "C": HOSTILE_COMMENT, "P": HOSTILE_ID_LIT}

SCRIPT = """\
## doc <C>
# <C>
use std::string;
const `<I>k` = "<S>";
fn `<I>f`(`<I>a`) with
  string::len(`<I>a`) # <C>
end;
let `<I>` = "<S>";
let event = {"v": event, "<S>": `<I>`, "c": `<I>k`, "n": `<I>f`("<S>")};
let event.`<I>` = "<S>";
let event = patch event of insert "<S>k" => "<S>" end;
let event.h = \"\"\"
  <S> ''' \\\"\\\"\\\"
  \"\"\";
let event.m = match event of
  case %{`<I>` == "<S>"} => "<S>"
  case _ => null
end;
emit event => "<S>"
"""

QUERY = """\
# <C>
define script `<I>`
script
  let event.s = "<S>";
  emit event => "<P>"
end;
create script `<I>`;
create stream `<I>s`;
select {"<S>": event, "w": "<S>"} from in where event != "<S>" into `<I>s`;
select event from `<I>s` into `<I>`;
select event from `<I>`/`<I>` into out;
select event from `<I>`/err into err;
"""

FLOW = """\
## <C>
# <C>
define flow `<I>`
flow
  define connector `<I>` from metronome
  with config = {"interval": 1000}
  end;
  define connector `<I>o` from file
  args
    `<I>` = "<S>",
    dir = "."
  with
    codec = "json",
    postprocessors = ["separate"],
    config = {"path": args.dir + "/out-" + args.`<I>` + ".json", "mode": "truncate"}
  end;
  define pipeline `<I>p`
  args
    `<I>a` = "<S>"
  pipeline
    # <C>
    select {"<S>": args.`<I>a`, "id": event.id} from in into out;
  end;
  create connector `<I>`;
  create connector `<I>o` with dir = "DIR" end;
  create pipeline `<I>p`;
  connect /connector/`<I>` to /pipeline/`<I>p`;
  connect /pipeline/`<I>p` to /connector/`<I>o`;
end;
deploy flow `<I>`;
"""

PROGRAMS = {
    "script": ("p.tremor", SCRIPT),
    "query": ("p.trickle", QUERY),
    "deploy": ("p.troy", FLOW),
}

ALLOWED_MODULES = ("__future__", "sys", "functools", "pyspark", "pyspark.sql")  # the plan: Spark
ALLOWED_BUILTINS = {
    "__name__", "dict", "list", "tuple", "type", "len", "isinstance", "str", "int", "float",
    "bool", "range", "enumerate", "zip", "min", "max", "sorted", "any", "all",
}  # fmt: skip
FORBIDDEN = {"eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "globals",
             "locals", "vars", "os", "subprocess", "system", "breakpoint", "input"}  # fmt: skip


def fill(template: str, parts: dict[str, str]) -> str:
    text = template
    for key, value in parts.items():
        text = text.replace(f"<{key}>", value)
    return text


def build(kind: str, parts: dict[str, str], name: str | None = None, **extra: str) -> str:
    filename, template = PROGRAMS[kind]
    text = fill(template, parts)
    for key, value in extra.items():
        text = text.replace(key, value)
    return compile_source(Source(name or filename, text), kind).job


class _Blank(ast.NodeTransformer):
    """Blank what user text may legitimately change: constants and identifiers."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="N", ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = "A"
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = "F"
        self.generic_visit(node)
        return node


def shape(job: str) -> str:
    return ast.dump(_Blank().visit(ast.parse(job)))


def _defined(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
    return names


def check_whitelist(job: str) -> None:
    tree = ast.parse(job)
    defined = _defined(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else []
            modules += [] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for module in modules:
                assert module in ALLOWED_MODULES or str(module).split(".")[0] == "runtime_support"
        elif isinstance(node, ast.Name):
            assert node.id not in FORBIDDEN, node.id
            assert node.id in defined or node.id in ALLOWED_BUILTINS, node.id
        elif isinstance(node, ast.Attribute):
            assert node.attr not in FORBIDDEN and not node.attr.startswith("__"), node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id in defined or node.func.id in ALLOWED_BUILTINS, node.func.id
        assert not isinstance(node, ast.Global | ast.Nonlocal | ast.Lambda | ast.Await)


def strings(job: str) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(job)) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_hostile_text_does_not_change_the_jobs_shape(kind: str) -> None:
    hostile, benign = build(kind, HOSTILE_FILL), build(kind, BENIGN)
    assert shape(hostile) == shape(benign)
    check_whitelist(hostile)
    check_whitelist(benign)


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_hostile_text_arrives_as_string_constants(kind: str) -> None:
    found = strings(build(kind, HOSTILE_FILL))
    assert any(HOSTILE in s for s in found), "a string literal's value"
    assert any(HOSTILE_ID in s for s in found), "an identifier (node, stream or field name)"
    source = fill(PROGRAMS[kind][1], HOSTILE_FILL)
    assert source in found, "the program text kept for error rendering"


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_hostile_file_names(kind: str) -> None:
    name = f'we\'ird\n"""\\{HOSTILE_COMMENT}.{PROGRAMS[kind][0].split(".")[1]}'
    job = build(kind, BENIGN, name=name)
    assert shape(job) == shape(build(kind, BENIGN))
    check_whitelist(job)
    ast.parse(job)  # the header comment and the CLI description stay comment and data


def _events(kind: str, events: list[Any]) -> list[tuple[str, Any]]:
    graph = load_job(build(kind, HOSTILE_FILL), "p").GRAPH
    stream = [("in", i, e, i, None) for i, e in enumerate(events)]
    return [(port, value) for _, _, port, value in run_events(graph, stream)]


def test_script_treats_hostile_text_as_data() -> None:
    [(port, value)] = _events("script", [1])
    assert port == HOSTILE  # emit => "<hostile>": a port of that name
    assert value["v"] == 1 and value[HOSTILE] == HOSTILE and value["c"] == HOSTILE
    assert value["n"] == len(HOSTILE) and value[HOSTILE_ID] == HOSTILE
    assert value[HOSTILE + "k"] == HOSTILE
    assert value["h"] == f"  {HOSTILE} ''' \"\"\"\n  "
    assert value["m"] == HOSTILE


def test_query_treats_hostile_text_as_data() -> None:
    out = _events("query", [{"a": 1}, HOSTILE])
    assert out == [("out", {HOSTILE: {"a": 1}, "w": HOSTILE, "s": HOSTILE})]


@pytest.mark.spark
def test_hostile_jobs_run_on_spark(spark, tmp_path: Path) -> None:
    from compiler.testing.runner import run_job_on_lines

    job = build("query", HOSTILE_FILL)
    out = run_job_on_lines(job, "p", [json.dumps({"a": 1}), json.dumps(HOSTILE)])
    assert out == [("out", {HOSTILE: {"a": 1}, "w": HOSTILE, "s": HOSTILE})]
    [(port, value)] = run_job_on_lines(build("script", HOSTILE_FILL), "s", ["1"])
    assert port == HOSTILE and value[HOSTILE] == HOSTILE


@pytest.mark.spark
def test_hostile_flow_writes_to_a_hostile_path(spark, tmp_path: Path) -> None:
    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    job = build("deploy", HOSTILE_FILL, DIR=str(tmp_path))
    module = load_job(job, "f")
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ticks=2)) == 0
    out = tmp_path / f"out-{HOSTILE}.json"  # a folder of part files written by Spark
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("part-*")))
    lines = text.split("\n")  # not splitlines(): U+2028 is data
    assert sorted((json.loads(line) for line in lines if line), key=lambda v: v["id"]) == [
        {HOSTILE: HOSTILE, "id": 0},
        {HOSTILE: HOSTILE, "id": 1},
    ]
    assert socket.gethostname()  # the run used the driver's host (origin), nothing else


def test_case_inputs_split_at_newlines_only(tmp_path: Path) -> None:
    from compiler.testing.cases import classify, input_lines

    (tmp_path / "script.tremor").write_text("event\n")
    lines = [json.dumps({"a": HOSTILE}, ensure_ascii=False), "2"]
    (tmp_path / "in").write_text("\n".join(lines) + "\n", encoding="utf-8")
    case = classify(tmp_path)
    assert case is not None and input_lines(case) == lines
