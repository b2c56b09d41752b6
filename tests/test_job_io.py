"""The job's command line as a user runs it (real subprocesses, real Spark): Spark configuration
from the job (``--master``, ``--conf``, ``--partitions``; spark-submit's options win)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of
from compiler.source import Source

from .conftest import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
PASSTHROUGH = "select event from in into out;\n"


def _job(folder: Path, text: str = PASSTHROUGH) -> Path:
    job = folder / "job.py"
    source = Source("input.trickle", text)
    job.write_text(compile_source(source, kind_of(Path("input.trickle"))).job, encoding="utf-8")
    return job


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env={**ENV, "PYSPARK_PYTHON": sys.executable},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=600,
    )


def test_bad_conf_is_a_usage_error(tmp_path: Path) -> None:
    result = _run([sys.executable, str(_job(tmp_path)), "--conf", "novalue"], tmp_path)
    assert result.returncode == 2
    assert "expected KEY=VALUE, got 'novalue'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.spark
def test_master_conf_and_partitions_configure_the_embedded_session(tmp_path: Path) -> None:
    args = ["--master", "local[1]", "--conf", "spark.app.name=mine", "--conf", "a.b=c=d"]
    args += ["--conf", "spark.sql.shuffle.partitions=7", "--partitions", "3", "--show-conf"]
    result = _run([sys.executable, str(_job(tmp_path)), *args], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "spark.master=local[1]",
        "a.b=c=d",
        "spark.app.name=mine",
        "spark.sql.shuffle.partitions=3",
    ]


@pytest.mark.spark
def test_spark_submit_options_win(tmp_path: Path) -> None:
    submit = ["spark-submit", "--master", "local[1]", "--conf", "spark.app.name=launcher"]
    job = ["--master", "local[2]", "--conf", "spark.app.name=job", "--partitions", "5"]
    job += ["--conf", "spark.driver.memory=1g", "--show-conf"]
    result = _run([*submit, str(_job(tmp_path)), *job], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # spark-submit's PythonRunner merges the driver's stderr into its stdout
    lines = (result.stdout + result.stderr).splitlines()
    assert [line for line in lines if "=" in line and " " not in line] == [
        "spark.master=local[1]",
        "spark.app.name=launcher",
        "spark.driver.memory=None",
        "spark.sql.shuffle.partitions=5",
    ]
    said = [line for line in lines if line.startswith("tremorc:")]
    assert said == [
        "tremorc: --master local[2] ignored: spark-submit's master is used",
        "tremorc: --conf spark.app.name ignored: spark-submit set it",
        "tremorc: --conf spark.driver.memory ignored: give it to spark-submit (it is read at "
        "start-up)",
    ]
