"""Streaming = batch: every ratchet-listed ``queries`` case, every ``golden/query`` and
``golden/script`` program and the synthetic differential programs, fed as a file stream (one
file per micro-batch, at least three when there are three events) and ended with the
end-of-input signal (``--flush``), give exactly the batch job's outputs: the same
``(port, seq, sub, value)`` rows, hence the same events in the same order on every port (the
end-of-input tick included); a job with a flush-transparent batch, at other positions, the same
events in the same order on every port. The 50 corpus queries take about 20 minutes on two
cores: they are marked ``long`` (``python3 -m pytest -q -m long``); CI runs the golden, script,
synthetic and window-extension programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of, read_source
from compiler.testing.cases import classify, input_lines
from compiler.testing.loader import load_job
from tests.support.one_thread import synthetic_lines
from tests.support.partition_differential import golden_lines
from tests.support.paths import CONFORMANCE, ROOT
from tests.support.stream_harness import batch_rows, stream_rows

QUERIES = [
    line.strip()
    for line in (ROOT / "tests" / "conformance_passing.txt").read_text().splitlines()
    if line.strip().startswith("queries/")
]
GOLDEN = sorted((ROOT / "golden" / "query").glob("*/input.trickle"))
SCRIPTS = sorted((ROOT / "golden" / "script").glob("*/input.tremor"))
SYNTHETIC = sorted((ROOT / "tests" / "fixtures" / "differential").glob("*.trickle"))
MINUTE_STEP = 5_000_000_000  # golden events 5 s apart: one-minute windows open and close


def _per_port(rows: list[tuple]) -> dict[str, list[str]]:
    """Each port's values in emission order (rows ``(port, seq, sub, value)``, ordered)."""
    ports: dict[str, list[str]] = {}
    for port, _seq, _sub, value in rows:
        ports.setdefault(port, []).append(value)
    return ports


def _job(path: Path, name: str):
    return load_job(compile_source(read_source(path), kind_of(path)).job, name)


def _check(spark, module, lines: list[str], work: Path, step: int = 1) -> None:
    expected = batch_rows(spark, module, lines, step=step)
    ran: set[int] = set()
    streamed = stream_rows(spark, module, lines, work, files=3, step=step, batches=ran)
    rows = [row for _, row in streamed]
    if hasattr(module, "passthroughs"):
        # A flush-transparent batch (README "Performance") numbers each event by its own seq in
        # a flushing batch run and by the seq of the event that closed its batch when
        # streaming: the same events in the same order on every port, at other positions.
        assert _per_port(rows) == _per_port(expected)
    else:
        assert rows == expected
    # one micro-batch per file (up to three), then the end-of-input signal's
    assert len(ran) >= min(3, len(lines)) + 1


@pytest.mark.long
@pytest.mark.parametrize("name", QUERIES)
def test_query_case(name, stream_spark, tmp_path):
    case = classify(CONFORMANCE / name)
    _check(stream_spark, _job(case.program, name), input_lines(case), tmp_path)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.parent.name)
def test_golden_query(path, stream_spark, tmp_path):
    module = _job(path, path.parent.name)
    _check(stream_spark, module, golden_lines(), tmp_path, step=MINUTE_STEP)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.parent.name)
def test_golden_script(path, stream_spark, tmp_path):
    _check(stream_spark, _job(path, path.parent.name), synthetic_lines(30), tmp_path)


@pytest.mark.parametrize("path", SYNTHETIC, ids=lambda p: p.stem)
def test_synthetic_program(path, stream_spark, tmp_path):
    _check(stream_spark, _job(path, path.stem), synthetic_lines(120), tmp_path)
