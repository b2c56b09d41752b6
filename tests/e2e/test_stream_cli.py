"""``python job.py --stream``: what a user sees. Options that do not fit together are one line on
stderr and exit code 2 (before Spark starts); a finite run writes one folder per port of part
files named by micro-batch, in emission order, with no temporary folder left (values worked by
hand)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

KEYED = ROOT / "tests" / "fixtures" / "streaming" / "keyed.trickle"


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("job")
    target = folder / "job.py"
    subprocess.run(
        [sys.executable, "-m", "compiler", "build", str(KEYED), "-o", str(target)],
        check=True,
        cwd=ROOT,
    )
    return target


def _run(job: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(job), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=job.parent,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-i", "in", "-o", "out"], "--stream needs --checkpoint DIR"),
        (["--checkpoint", "ck", "-o", "out"], "--stream reads one folder: -i INPUT_DIR"),
        (["--checkpoint", "ck", "-i", "in"], "--stream writes to a folder: -o OUTPUT_DIR"),
        (["--checkpoint", "ck", "-i", "in", "-o", "out", "--flush"], "--flush ends the stream"),
        (["--checkpoint", "ck", "-i", "in", "-o", "out", "--trigger", "soon"], "duration"),
        (["--checkpoint", "ck", "-i", "nowhere", "-o", "out"], "can not read nowhere"),
        (["--checkpoint", "ck", "-i", "in", "-o", "s3a://b/out"], "local or mounted folders"),
        (["--checkpoint", "ck", "-i", "in", "-o", "out", "--no-flush"], "--no-flush is for batch"),
    ],
)
def test_options_that_do_not_fit_are_one_line(job, args, message):
    (job.parent / "in").mkdir(exist_ok=True)
    result = _run(job, "--stream", *args, timeout=60)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("option", [["--trigger", "1s"], ["--flush"], ["--checkpoint", "ck"]])
def test_streaming_options_without_stream_are_refused(job, option):
    result = _run(job, "-i", "in", *option, timeout=60)
    assert result.returncode == 2
    assert "is an option of --stream runs" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_finite_run_writes_part_files_per_port_and_batch(job, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    batches = [
        [{"g": 1, "v": 1}, {"g": 2, "v": 2}],
        [{"g": 1, "v": 3}, "not json"],
        [{"g": 2, "v": 4}, {"g": 1, "v": 5}],
    ]
    for number, events in enumerate(batches):
        path = inputs / f"{number}.json"
        lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (1_000 + number, 1_000 + number))
    out = tmp_path / "out"
    result = _run(
        job,
        "--stream",
        "--checkpoint",
        str(tmp_path / "ck"),
        "-i",
        str(inputs),
        "-o",
        str(out),
        "--trigger",
        "available-now",
        "--files-per-batch",
        "1",
        "--flush",
        "--ingest-ns",
        "index",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(os.listdir(out)) == ["err", "error_log", "out"]
    names = sorted(os.listdir(out / "out"))
    # batch 0: no window full; 1: g=1's; 2: g=2's; 3 (the end-of-input signal): size windows
    # do not flush
    assert {name[: len("part-0000000001")] for name in names} == {
        "part-0000000001",
        "part-0000000002",
    }
    assert not [n for n in os.listdir(out / "out") if n.startswith("_tmp")]
    values = [
        json.loads(line)
        for name in names
        for line in (out / "out" / name).read_text().splitlines()
        if line.strip()
    ]
    assert values == [{"g": 1, "n": 2, "s": 4.0}, {"g": 2, "n": 2, "s": 6.0}]
    errors = [
        json.loads(line)
        for name in sorted(os.listdir(out / "err"))
        if name.startswith("part-")
        for line in (out / "err" / name).read_text().splitlines()
    ]
    assert [e["event"] for e in errors] == ["not json"]
