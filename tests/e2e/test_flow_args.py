"""A flow's args set when the job starts (``--arg``, ``TREMORC_ARG_<NAME>``), through
``tremorc run`` and a built job: real runs of golden/deploy/flow_args (file → pipeline → file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

FLOW = ROOT / "golden" / "deploy" / "flow_args" / "input.troy"
SECRET = "sk-live-7f3a9c1e5b2d4a6f"


def _env(**args: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TREMORC_ARG_")}
    env["PYTHONPATH"] = str(ROOT)
    return env | {f"TREMORC_ARG_{k.upper()}": v for k, v in args.items()}


def _tremorc(cwd: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "compiler", *argv]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_arg_over_environment_over_source_and_no_value_written(tmp_path: Path) -> None:
    hidden = tmp_path / SECRET  # the secret-looking value: a path given only in the environment
    hidden.mkdir()
    (hidden / "in.json").write_text('{"x": 1}\n{"x": 7}\n')
    env = _env(input=str(hidden / "in.json"), output="from_env.json")
    run = _tremorc(
        tmp_path, env, "run", str(FLOW), "--arg", "output=from_arg.json", "--partitions", "2"
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "from_env.json").exists()  # --arg wins over the environment
    assert not (tmp_path / "tagged.json").exists()  # … which wins over `deploy flow … with`
    events = [json.loads(line) for line in (tmp_path / "from_arg.json").read_text().splitlines()]
    assert events == [{"x": 1, "big": False}, {"x": 7, "big": True}]  # input from the environment
    build = _tremorc(tmp_path, env, "build", str(FLOW), "-o", "job.py")
    assert build.returncode == 0, build.stderr
    missing = _env(input=str(hidden / "absent.json"))
    failed = subprocess.run(
        [sys.executable, "job.py"], cwd=tmp_path, env=missing, capture_output=True, text=True
    )
    assert failed.returncode == 2
    assert failed.stderr.strip() == "Error: can not read <arg input>: No such file or directory"
    printed = run.stdout + run.stderr + build.stdout + build.stderr + failed.stdout + failed.stderr
    assert SECRET not in printed
    for path in tmp_path.rglob("*"):
        if path.is_file() and hidden not in path.parents:
            assert SECRET not in path.read_text(errors="replace"), path


def test_unknown_fixed_and_mistyped_args_are_one_line_errors(tmp_path: Path) -> None:
    build = _tremorc(tmp_path, _env(), "build", str(FLOW), "-o", "job.py")
    assert build.returncode == 0, build.stderr

    def job(*argv: str, **env: str) -> tuple[int, str]:
        run = subprocess.run(
            [sys.executable, "job.py", *argv],
            cwd=tmp_path,
            env=_env(**env),
            capture_output=True,
            text=True,
        )
        return run.returncode, run.stderr

    known = "the flow's args are: input, output, limit"
    assert job("--arg", "nope=1") == (2, f"error: Unknown flow arg `nope`: {known}\n")
    assert job(nope="1") == (2, f"error: Unknown flow arg in $TREMORC_ARG_NOPE: {known}\n")
    assert job("--arg", "limit=5") == (
        2,
        "error: The flow arg `limit` is set when the job is built: it is given to pipeline `tag` "
        "(compiled into its code)\n",
    )
    assert job("--arg", "input=12345") == (
        2,
        "error: The flow arg `input` takes a string (like its build-time value), not an integer\n",
    )
    assert job("--arg", "input") == (2, "error: --arg `input` takes the form NAME=VALUE\n")
