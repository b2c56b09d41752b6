"""Run discovered cases through generated PySpark jobs in one reused local SparkSession.

Outputs are compared the way Tremor's harnesses compare them: in order, each value as canonical
(sorted-key) JSON in which an integer never equals a float.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime_support.tremor.jsonio import canonical_json, decode_json

from ..diagnostics import CompileError
from ..pipeline import check_source, compile_source, kind_of, read_source, warnings_of
from ..source import Source
from .cases import Case, input_lines
from .loader import load_job


@dataclass
class CaseResult:
    """Outcome of one case (``reason`` says why it failed; ``caret_line`` is for error cases:
    whether our caret sits on the same source line as Tremor's)."""

    name: str
    category: str
    kind: str
    passed: bool
    reason: str = ""
    seconds: float = 0.0
    caret_line: bool | None = None


def _spark():
    from runtime_support.spark.session import get_session

    return get_session("tremorc-test")


ORIGINS = {"script": "snot://test:23/snot", "query": "tremor://localhost/test"}


def run_job_on_lines(
    job_text: str, name: str, lines: list[str], origin: str | None = None
) -> list[tuple[str, Any]]:
    """Run a generated job over JSON lines (ingest_ns = line index, the harness's origin URI);
    return ``(port, value)`` pairs in emission order."""
    from runtime_support.spark.plan import ordered_union

    spark = _spark()
    module = load_job(job_text, name)
    rows = [(i, line, i, origin) for i, line in enumerate(lines)]
    df = spark.createDataFrame(rows, "seq long, value string, ingest_ns long, origin string")
    # Tremor's harness never ticks: no end-of-input flush either.
    # Every port in one pass (a `port` column), each stage run once.
    ordered = ordered_union(module.run_pipeline(spark, {"in": df}, flush_at_end=False))
    emitted = [(row.port, decode_json(row.value)) for row in ordered.collect()]
    spark.catalog.clearCache()  # stages read by several stages are kept; cases must not pile up
    return emitted


def _compare_values(got: list[Any], expected: list[Any]) -> str:
    """Empty string when equal, else a short description of the first difference."""
    for index, (g, e) in enumerate(zip(got, expected, strict=False)):  # lengths checked below
        if canonical_json(g) != canonical_json(e):
            got_text, expected_text = canonical_json(g)[:300], canonical_json(e)[:300]
            return f"output {index}: got {got_text} expected {expected_text}"
    if len(got) != len(expected):
        return f"got {len(got)} outputs, expected {len(expected)}"
    return ""


def run_data_case(case: Case) -> str:
    """in → out: every emitted value (all ports) in order."""
    kind = kind_of(case.program)
    job = compile_source(read_source(case.program), kind).job
    emitted = run_job_on_lines(job, case.name, input_lines(case), ORIGINS.get(kind))
    expected = [decode_json(line) for line in (case.read("out") or "").split("\n") if line.strip()]
    return _compare_values([value for _, value in emitted], expected)


def run_runtime_error_case(case: Case) -> str:
    """A runtime error rendered exactly as error.txt.

    Scripts: the error arrives on ``err``. Queries (Tremor's ``query_runtime_errors`` harness):
    the outputs must equal ``out``, and an event whose processing failed (our ``error_log``
    port) must carry error.txt's text.
    """
    kind = kind_of(case.program)
    job = compile_source(read_source(case.program), kind).job
    emitted = run_job_on_lines(job, case.name, input_lines(case), ORIGINS.get(kind))
    expected = (case.read("error.txt") or "").strip()
    if kind == "query":
        outputs = [value for port, value in emitted if port != "error_log"]
        failures = [value for port, value in emitted if port == "error_log"]
        wanted = [decode_json(ln) for ln in (case.read("out") or "").split("\n") if ln.strip()]
        difference = _compare_values(outputs, wanted)
        if difference:
            return difference
        if failures and str(failures[0].get("error", "")).strip() != expected:
            return f"error differs:\n{failures[0].get('error')}\n--- expected:\n{expected}"
        return ""
    errors = [v for port, v in emitted if port == "err" and isinstance(v, dict) and "error" in v]
    if not any(str(e["error"]).strip() == expected for e in errors):
        got = errors[0]["error"].strip() if errors else "no error on err"
        return f"error differs:\n{got}\n--- expected:\n{expected}"
    return ""


def _caret_line(text: str) -> int | None:
    """Source line number shown just above the first caret line of a rendering."""
    lines = text.strip().splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^\s+\| *\^", line) and index > 0:
            match = re.match(r"^\s*(\d+) \|", lines[index - 1])
            return int(match.group(1)) if match else None
    return None


@contextmanager
def tremor_harness_layout(case: Case) -> Iterator[Path]:
    """Reproduce where Tremor's error harness runs: from a directory in which the corpus is
    ``tests/`` and the module path is the case folder plus ``tremor-script/lib`` (paths in module
    errors are rendered relative to it). Yields the program path as the harness names it."""
    saved_cwd, saved_path = os.getcwd(), os.environ.get("TREMOR_PATH")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "tests").symlink_to(case.folder.parent.parent.resolve())
        os.chdir(tmp)
        os.environ["TREMOR_PATH"] = "tremor-script/lib"
        try:
            yield Path("tests") / case.folder.parent.name / case.folder.name / case.program.name
        finally:
            os.chdir(saved_cwd)
            if saved_path is None:
                os.environ.pop("TREMOR_PATH", None)
            else:
                os.environ["TREMOR_PATH"] = saved_path


def run_compile_error_case(case: Case, result: CaseResult) -> str:
    """The program must be rejected with error.txt's rendering (error.re: a regex search)."""
    try:
        with tremor_harness_layout(case) as program:
            check_source(read_source(program), kind_of(program))
    except CompileError as err:
        rendered = err.render().strip()
        message = err.message
    else:
        return "compiled without error"
    regex = case.read("error.re")
    if regex is not None:
        # Tremor's harness matches error.re against the error's message.
        result.caret_line = bool(re.search(regex.strip(), message))
        return "" if result.caret_line else f"error does not match error.re:\n{rendered}"
    expected = (case.read("error.txt") or "").strip()
    result.caret_line = _caret_line(rendered) == _caret_line(expected)
    if rendered != expected:
        return f"error differs:\n{rendered}\n--- expected:\n{expected}"
    return ""


def _blocks(text: str) -> list[str]:
    """Rendered diagnostics without blank lines (Tremor separates warnings inconsistently)."""
    return [line.rstrip() for line in text.strip().splitlines() if line.strip()]


def run_warning_case(case: Case) -> str:
    """The program compiles and its rendered warnings equal warning.txt."""
    source = read_source(case.program)
    kind = kind_of(case.program)
    check_source(source, kind)
    rendered = "\n".join(w.render() for w in warnings_of(source, kind))
    expected = case.read("warning.txt") or ""
    if _blocks(rendered) != _blocks(expected):
        return f"warnings differ:\n{rendered}\n--- expected:\n{expected.strip()}"
    return ""


FLOW_TIME_LIMIT = 60.0  # seconds; Tremor's harness allows 10 s, a cold local Spark needs more


def flow_source(case: Case) -> Source:
    """``flow.troy``, plus ``deploy flow main with <config.json args> end`` when the file deploys
    nothing itself (Tremor's flow harness deploys the archive entry point ``main``)."""
    source = read_source(case.program)
    if re.search(r"(?m)^\s*deploy\s+flow\b", source.text):
        return source
    config = json.loads(case.read("config.json") or "{}")
    args = ", ".join(f"{key} = {json.dumps(value)}" for key, value in config.items())
    stmt = f"\ndeploy flow main with {args} end;\n" if args else "\ndeploy flow main;\n"
    return Source(source.name, source.text + stmt, source.path)


def run_flow_case(case: Case) -> str:
    """The flow's job must build and run to completion, stopped by its exit connector."""
    from runtime_support.flows.batch import run_flow
    from runtime_support.io.connectors.base import RunContext

    job = compile_source(flow_source(case), "deploy").job
    module = load_job(job, case.name)
    ctx = RunContext(ingest_ns="index", stdout_path=os.devnull)
    started = time.perf_counter()
    code = run_flow(_spark(), module.FLOW, module.run_pipeline, ctx)
    elapsed = time.perf_counter() - started
    if code != 0:
        return f"flow exited with code {code}"
    if not ctx.exited:
        return "the flow ended without an event reaching an exit connector"
    if elapsed > FLOW_TIME_LIMIT:
        return f"the flow took {elapsed:.1f}s (limit {FLOW_TIME_LIMIT:.0f}s)"
    return ""


RUNNERS: dict[str, Callable[[Case], str]] = {
    "data": run_data_case,
    "runtime_error": run_runtime_error_case,
    "warning": run_warning_case,
    "flow": run_flow_case,
}


def run_case(case: Case) -> CaseResult:
    """Run one case; never raises (failures become the result's ``reason``)."""
    result = CaseResult(case.name, case.folder.parent.name, case.kind, False)
    started = time.perf_counter()
    try:
        if case.kind == "compile_error":
            reason = run_compile_error_case(case, result)
        elif case.kind in RUNNERS:
            reason = RUNNERS[case.kind](case)
        else:
            reason = f"{case.kind} cases are not supported by the runner yet"
    except CompileError as err:
        reason = "compile error:\n" + err.render()
    except Exception as err:  # noqa: BLE001 - a crashing case is a failed case, not a crash
        reason = f"{type(err).__name__}: {str(err)[:2000]}"
    result.seconds = round(time.perf_counter() - started, 3)
    result.passed = reason == ""
    result.reason = reason
    return result
