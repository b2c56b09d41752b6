"""The generated job stays one black-formatted script although most of it no longer goes through
black (codegen/stablefmt.py lays out the defs it is sure of, fastfmt.py the site tables): black
changes nothing in any golden job nor in the workloads' jobs, and the fast path gives black's
exact bytes for every conformance program's job text and on hand-written edge cases."""

from __future__ import annotations

import sys
from pathlib import Path

import black
import pytest

from compiler.blackfmt import black_mode
from compiler.codegen import job as job_module
from compiler.codegen.fastfmt import format_job
from compiler.codegen.stablefmt import plain_line, stable_def
from compiler.diagnostics import CompileError
from compiler.pipeline import compile_path
from tests.support.paths import CONFORMANCE, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from suite_build import big_program  # noqa: E402
from suite_data import WORKLOADS  # noqa: E402

MODE = black_mode()

GOLDEN_JOBS = sorted((ROOT / "golden").glob("*/*/job.py"))
CORPUS = sorted(
    p
    for category in ("scripts", "queries", "flows")
    for p in (CONFORMANCE / category).glob("*/*")
    if p.suffix in (".tremor", ".trickle", ".troy")
)


def raw_jobs(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[list[str], list[str]]:
    """The job texts handed to the formatter while compiling ``path``, and the results."""
    raws: list[str] = []
    real = job_module.format_job

    def recording(text: str) -> str:
        raws.append(text)
        return real(text)

    monkeypatch.setattr(job_module, "format_job", recording)
    jobs = []
    try:
        jobs.append(compile_path(path).job)
    except CompileError:
        pass
    return raws, jobs


@pytest.mark.parametrize(
    "path", GOLDEN_JOBS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_black_leaves_golden_jobs_alone(path: Path) -> None:
    text = path.read_text()
    assert black.format_str(text, mode=MODE) == text


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.name for w in WORKLOADS])
def test_workload_jobs_are_black_formatted(monkeypatch, workload) -> None:
    raws, jobs = raw_jobs(monkeypatch, workload.trickle)
    assert raws and jobs
    assert jobs[0] == black.format_str(raws[0], mode=MODE)
    assert black.format_str(jobs[0], mode=MODE) == jobs[0]


def test_big_program_job_is_black_formatted(monkeypatch, tmp_path) -> None:
    path, _ = big_program(tmp_path, 400)
    raws, jobs = raw_jobs(monkeypatch, path)
    assert jobs[0] == black.format_str(raws[0], mode=MODE)


def test_fast_path_matches_black_on_the_corpus(monkeypatch) -> None:
    checked = 0
    for path in CORPUS:
        raws, _ = raw_jobs(monkeypatch, path)
        for raw in raws:
            assert format_job(raw) == black.format_str(raw, mode=MODE), path
            checked += 1
    assert checked > 150


PLAIN = [
    "    x = f(a, 'b', -1)",
    "    meta = assign_key(meta, 'class', get_field(event, 'm', 'e', 3), 240)",
    "    x = ''",
    "    x = None",
    "    x = g()",
    "    elif _t2 == 47:",
    "    if x == 'a b':",
    "                x = h(" + ", ".join(["'abcdefgh'"] * 6) + ", 12)",  # 97 characters
]
NOT_PLAIN = [
    "    x = f(a,)",  # a magic trailing comma
    "    x = not(a)",  # black respaces a keyword's parentheses
    "    x = 'it\\'s'",
    "    x = 'a\\n'",
    "    x = '\"'",
    "    x = f( a)",
    "    x = f(a,  b)",
    "    x = 1e5",
    "    x = '中'",
    "                x = h(" + ", ".join(["'abcdefgh'"] * 6) + ", 123456)",  # 101 characters
    "    x = f(g(h(a)))",  # deeper than the pattern reads
]


def _plain_in_def(line: str) -> str:
    """``line`` inside a function black can format: under headers that give it its indentation,
    an ``elif`` after an ``if``, a header with a body."""
    depth = (len(line) - len(line.lstrip(" "))) // 4
    text = "def f(a):\n" + "".join("    " * k + "if a:\n" for k in range(1, depth))
    if line.lstrip().startswith("elif"):
        text += "    " * depth + "if a:\n" + "    " * (depth + 1) + "pass\n"
    text += line + "\n"
    return text + ("    " * (depth + 1) + "pass\n" if line.endswith(":") else "")


@pytest.mark.parametrize("line", PLAIN)
def test_plain_lines_are_what_black_writes(line: str) -> None:
    laid = plain_line(line)
    assert laid is not None and laid.count('"') == line.count("'")
    text = _plain_in_def(laid)
    assert black.format_str(text, mode=MODE) == text


@pytest.mark.parametrize("line", NOT_PLAIN)
def test_other_lines_take_the_token_path(line: str) -> None:
    assert plain_line(line) is None


BODY = "def f(event, meta):\n    # line 1\n    x = g(event, 'a')\n    return x, meta"
GIVES_UP = [
    "def f(a):\n    return (a)",  # black drops the parentheses
    "def f(a):\n    x = (not a)\n    return x",
    "def f(a):\n    x = [(a)]\n    return x",
    "def f(a):\n    if a: return 1\n    return 2",  # one-line compound statement
    "def f(a):\n    return a[1:2]",  # slices
    "def f(a):\n    return a ** 2",
    "def f(a):\n    return g(**a)",
    "def f(a):\n    return [a, *a]",
    "def f(a):\n    return 1e+5",  # black drops the plus sign
    "def f(a):\n    return 0XFF",
    "def f(a):\n    return '中'",  # a character black counts two columns wide
    "def f(a):\n    x = 1\n\n    return x",  # blank lines
    "def f(a):\n    if a:\n        x = 1\n      # odd comment\n    return x",
    "def f(a):\n    #no space\n    return a",
    "def f(a):\n    import os\n    return a",
    "def f(a):\n    def g():\n        pass\n    return g",
    "def f(a):\n    '''doc'''\n    return a",
    "def f(a):\n    return  a",  # spacing black fixes
    "def f(a) -> int:\n    return a",
    "def f(a):\n    x = {'k':1}\n    return x",
    "def f(a):\n    return a;",
    "def f(a):\n    return f'{a}'",
    "def f(a):\n    if a:\n",
    "def " + "g" * 74 + "(event, meta, state, ctx):\n    return 1",  # too long only with "def "
]


ACCEPTED = [
    BODY,
    "def f(a):\n    return g(a,)",  # a magic trailing comma: one argument a line
    "def f(a):\n    x = [1, 2,]\n    return x",
    "def f(a):\n    return 'é'",  # narrow non-ASCII text: its width is its length
    "def f(a, *args):\n    return g(a, *args)",
    'def f(a):\n    """One line."""\n    return a',
    'def f(a):\n    """First line;\n    second line, indented as black keeps it."""\n    return a',
    "def f(a):\n    return g(\n        a,\n        {\n            'k': [1],\n        },\n    )",
    "def f(a):\n    return h(\n        {\n            'k': [1],\n        }\n    )",
]


@pytest.mark.parametrize("chunk", ACCEPTED)
def test_stable_def_matches_black_on_what_it_accepts(chunk: str) -> None:
    laid = stable_def(chunk)
    assert laid is not None
    assert laid + "\n" == black.format_str(chunk + "\n", mode=MODE)


@pytest.mark.parametrize("chunk", GIVES_UP)
def test_stable_def_gives_up_where_black_would_change_layout(chunk: str) -> None:
    assert stable_def(chunk) is None
    text = f"import sys\n\n\n{chunk}\n\n\nX = 1\n"
    try:
        expected = black.format_str(text, mode=MODE)
    except black.InvalidInput:
        return
    assert format_job(text) == expected


@pytest.mark.parametrize("indent", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("width", [90, 100, 101, 130, 250])
def test_long_statements_are_split_as_black_splits_them(indent: int, width: int) -> None:
    args = ", ".join(f"'arg{i}'" for i in range(width // 8))
    statement = f"_t1 = call(get_field(event, 'x', 'event', 0), ({args}), ctx, 33)"
    heads = "".join("    " * (k + 1) + f"if a{k}:\n" for k in range(indent))
    body = "    " * (indent + 1) + statement
    text = f"import sys\n\n\ndef f(a0, a1, a2, a3, a4, a5):\n{heads}{body}\n    return 1\n"
    assert format_job(text) == black.format_str(text, mode=MODE)


def _in_def(indent: int, line: str) -> str:
    """``line`` at ``indent`` levels in a function (a header gets a body, ``elif`` an ``if``)."""
    heads = "".join("    " * (k + 1) + f"if a{k}:\n" for k in range(indent))
    pad = "    " * (indent + 1)
    body = f"{pad}{line}\n" + (f"{pad}    pass\n" if line.endswith(":") else "")
    before = f"{pad}if a:\n{pad}    pass\n" if line.startswith("elif") else ""
    return f"import sys\n\n\ndef f(a, a0, a1, a2, a3, a4, a5):\n{heads}{before}{body}    return 1\n"


OPERANDS = [
    "type(event) is dict",
    "'measurement' in event",
    "(_t14 := script_runtime_ex_glob_10.extract(event['measurement'], ctx)) is not NO_MATCH",
    "eq(event['measurement'], 'text001', 10) is True",
    "not present(meta, ('a', 'b'), 3)",
    "x not in ('a', 'b')",
    "-a < b + 1",
]


@pytest.mark.parametrize("indent", [0, 1, 3, 5])
@pytest.mark.parametrize("count", [2, 3, 5, 7])
@pytest.mark.parametrize("keyword", ["if", "elif", "while"])
def test_long_conditions_are_split_as_black_splits_them(indent, count, keyword) -> None:
    for start in range(len(OPERANDS)):
        chosen = [OPERANDS[(start + k) % len(OPERANDS)] for k in range(count)]
        joiner = " or " if start % 3 == 0 else " and "
        text = _in_def(indent, f"{keyword} {joiner.join(chosen)}:")
        assert format_job(text) == black.format_str(text, mode=MODE), text


@pytest.mark.parametrize("indent", [0, 2, 5])
@pytest.mark.parametrize("args", [1, 2, 4, 9])
@pytest.mark.parametrize("head", ["", "meta = ", "return "])
def test_long_calls_are_split_as_black_splits_them(indent, args, head) -> None:
    for width in (10, 30, 60, 95):
        values = [f"get_field(event, {'x' * (width - 30)!r}, 'event', {k})" for k in range(args)]
        text = _in_def(indent, f"{head}assign(meta, {', '.join(values)}, 7)")
        assert format_job(text) == black.format_str(text, mode=MODE), text


def _tree(rng, depth: int) -> str:
    """A random literal tree of the shapes jobs hold (calls, tuples, lists, dicts, atoms)."""
    atoms = ["'in'", '"out:err"', "Passthrough", "True", "None", "-3", "17", "1.5", "x.y", "()"]
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(atoms) if rng.random() < 0.9 else repr("s" * rng.randrange(1, 60))
    count = rng.choice([0, 1, 1, 2, 3, 5, 12])
    items = [_tree(rng, depth - 1) for _ in range(count)]
    comma = "," if items and rng.random() < 0.15 else ""  # a magic trailing comma
    kind = rng.choice(["call", "call", "tuple", "list", "dict"])
    if kind == "call":
        names = ["name", "factory", "stateful", "members", "args"]
        args = [f"{rng.choice(names)}={v}" if rng.random() < 0.5 else v for v in items]
        args = sorted(args, key=lambda a: "=" in a)  # positional arguments first
        return f"{rng.choice(['NodeSpec', 'partial', 'F'])}({', '.join(args)}{comma})"
    if kind == "tuple":
        one = "," if len(items) == 1 else comma
        return f"({', '.join(items)}{one})"
    if kind == "list":
        return f"[{', '.join(items)}{comma}]"
    return "{" + ", ".join(f"'k{i}': {v}" for i, v in enumerate(items)) + comma + "}"


@pytest.mark.parametrize("seed", range(60))
def test_literal_trees_are_laid_out_as_black_lays_them_out(seed: int) -> None:
    import random

    rng = random.Random(seed)
    lines = [f"GRAPH_{k} = {_tree(rng, rng.choice([2, 3, 4]))}" for k in range(8)]
    text = "import sys\n\n" + "\n".join(lines) + "\n\n\ndef f(a):\n    return a\n"
    assert format_job(text) == black.format_str(text, mode=MODE)


@pytest.mark.parametrize("width", [60, 85, 95, 99])
def test_long_heads_are_left_to_black(width: int) -> None:
    args = ", ".join(["aaaaaaaaaa"] * 12)
    text = f"import sys\n\n\ndef f(a):\n    {'x' * width} = {'y' * 10}({args})\n    return 1\n"
    assert format_job(text) == black.format_str(text, mode=MODE)
    text = f"import sys\n\n{'G' * width} = {'NodeSpec' * 2}({args})\n"
    assert format_job(text) == black.format_str(text, mode=MODE)
