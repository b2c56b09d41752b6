"""A generated keyed windowed job run against a real Spark Connect server on this machine.

One server for the module (``sbin/spark-daemon.sh submit`` of the server class, on 127.0.0.1, a
free port, its pid and log files in a temporary folder; stopped by the PID in its pid file). The
server's Python workers can import ``runtime_support`` only from a zip on their path (a
``sitecustomize`` on the server's ``PYTHONPATH`` sees to it, whatever way this checkout is
installed), so the job's run proves the runtime is shipped by ``addArtifacts``. Each job runs in a
subprocess: a Connect client in this process would turn the tests' own local session into Connect
mode.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from tests.support.paths import ROOT
from tests.support.spark_cluster import free_port, port_open_within, spark_home

CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
CLIENT_PACKAGES = ("grpc", "grpc_status", "google.rpc", "zstandard")
MISSING = [name for name in CLIENT_PACKAGES if importlib.util.find_spec(name.split(".")[0]) is None]
needs_client = pytest.mark.skipif(
    bool(MISSING),
    reason=f"Spark Connect client packages missing ({', '.join(MISSING)}): "
    "pip install -e '.[connect]'",
)

KEYED = """\
define window pair from tumbling
with
  size = 2
end;

select {"key": group[0], "n": aggr::stats::count(), "sum": aggr::stats::sum(event.v)}
from in[pair]
group by set(event.k)
into out;
"""
EVENTS = [("a", 1), ("b", 10), ("a", 2), ("a", 3), ("b", 20), ("a", 4), ("b", 30)]
# Worked out by hand: each key's window closes on its 2nd event (a: 1+2 at the 3rd event, b: 10+20
# at the 5th, a: 3+4 at the 6th); b's 30 stays alone in an open window, which a count window
# never flushes on the end-of-input tick.
EXPECTED = [
    {"key": "a", "n": 2, "sum": 3.0},
    {"key": "b", "n": 2, "sum": 30.0},
    {"key": "a", "n": 2, "sum": 7.0},
]

# Only a zip on sys.path (what addArtifacts ships) may provide runtime_support to the server's
# Python workers; the error names this guard, so a test can tell it is in force.
SITECUSTOMIZE = """\
import sys
from importlib.machinery import PathFinder


class _OnlyShipped:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "runtime_support":
            return None
        spec = PathFinder.find_spec(name, [p for p in sys.path if p.endswith(".zip")])
        if spec is None:
            raise ModuleNotFoundError("runtime_support not shipped (test guard)", name=name)
        return spec


sys.meta_path.insert(0, _OnlyShipped)
"""

PROBE = """\
import sys
from pyspark.sql import SparkSession, functions as F
from runtime_support.spark.artifacts import ship_runtime

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


@F.udf("string")
def where(_):
    try:
        import runtime_support
    except ImportError as err:
        return "ImportError: " + str(err)
    return runtime_support.__file__


print(spark.range(1).select(where("id")).first()[0])
ship_runtime(spark)
print(spark.range(1).select(where("id")).first()[0])
"""


def _wait_for(port: int, log_dir: Path, timeout: float) -> None:
    if port_open_within(port, timeout):
        return
    logs = "".join(path.read_text()[-3000:] for path in log_dir.glob("*"))
    raise AssertionError(f"no Spark Connect server on port {port}:\n{logs}")


def _stop(pid_dir: Path) -> None:
    """Stop the server by the PID its start script wrote: TERM, then KILL after 30 s."""
    for pid_file in pid_dir.glob("*.pid"):
        pid = int(pid_file.read_text().split()[0])
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.5)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``sc://127.0.0.1:PORT`` of a local Connect server whose Python can not see this repo."""
    if MISSING:
        pytest.skip(f"Spark Connect client packages missing: {', '.join(MISSING)}")
    base = tmp_path_factory.mktemp("connect")
    site, pid_dir, log_dir, work = (base / name for name in ("site", "pid", "log", "work"))
    for folder in (site, pid_dir, log_dir, work):
        folder.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPARK_")}
    env.update(
        PYTHONPATH=str(site),
        PYSPARK_PYTHON=sys.executable,
        SPARK_HOME=str(spark_home()),
        SPARK_PID_DIR=str(pid_dir),
        SPARK_LOG_DIR=str(log_dir),
        SPARK_LOCAL_IP="127.0.0.1",
    )
    port = free_port()
    # what sbin/start-connect-server.sh runs (pip's pyspark 4.2 ships spark-daemon.sh, not it)
    start = [str(spark_home() / "sbin" / "spark-daemon.sh"), "submit", CONNECT_SERVER, "1"]
    start += ["--name", "Spark Connect server", "--master", "local[2]"]
    start += ["--conf", "spark.connect.grpc.binding.address=127.0.0.1"]
    start += ["--conf", f"spark.connect.grpc.binding.port={port}"]
    started = subprocess.run(start, env=env, cwd=work, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        _wait_for(port, log_dir, 180)
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop(pid_dir)


def _client_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPARK_")}
    return {**env, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}


def _job(tmp_path: Path, program: str, name: str = "keyed") -> Path:
    (tmp_path / f"{name}.trickle").write_text(program)
    job = tmp_path / f"{name}.py"
    built = CliRunner().invoke(cli, ["build", str(tmp_path / f"{name}.trickle"), "-o", str(job)])
    assert built.exit_code == 0, built.output
    return job


def _run(job: Path, *args: str, cwd: Path, env: dict[str, str] | None = None):
    result = subprocess.run(
        [sys.executable, str(job), *args],
        env=env or _client_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _port_lines(folder: Path) -> list[str]:
    """A port folder's events: part files in name order, lines in file order."""
    return [
        line for part in sorted(folder.glob("part-*")) for line in part.read_text().splitlines()
    ]


def _by_key(lines: list[str]) -> dict[str, list[dict]]:
    events: dict[str, list[dict]] = {}
    for line in lines:
        event = json.loads(line)
        events.setdefault(json.dumps(event.get("key")), []).append(event)
    return events


@needs_client
@pytest.mark.spark
def test_server_workers_import_runtime_support_only_once_shipped(server: str, tmp_path: Path):
    (tmp_path / "probe.py").write_text(PROBE)
    before, after = _run(tmp_path / "probe.py", server, cwd=tmp_path).stdout.splitlines()[-2:]
    assert before == "ImportError: runtime_support not shipped (test guard)"
    assert after.endswith("runtime_support.zip/runtime_support/__init__.py"), after


@needs_client
@pytest.mark.spark
def test_keyed_windowed_job_on_connect_matches_local_and_hand(server: str, tmp_path: Path):
    job = _job(tmp_path, KEYED)
    lines = [json.dumps({"k": key, "v": value}) for key, value in EVENTS]
    (tmp_path / "in.json").write_text("\n".join(lines) + "\n")
    common = ["-i", "in.json", "--ingest-ns", "index", "--partitions", "2"]
    remote = _run(job, *common, "--remote", server, "-o", "remote", cwd=tmp_path)
    assert remote.stderr == ""
    _run(job, *common, "-o", "local", cwd=tmp_path)
    for port in ("err", "error_log"):
        assert _port_lines(tmp_path / "remote" / port) == []
        assert _port_lines(tmp_path / "local" / port) == []
    # part files keep each key's order (a keyed stage is hash-partitioned by its key)
    hand = _by_key([json.dumps(event) for event in EXPECTED])
    assert _by_key(_port_lines(tmp_path / "remote" / "out")) == hand
    assert _by_key(_port_lines(tmp_path / "local" / "out")) == hand
    # stdout is the whole output in emission order; SPARK_REMOTE stands in for --remote
    shown = _run(job, *common, cwd=tmp_path, env={**_client_env(), "SPARK_REMOTE": server})
    assert [json.loads(line) for line in shown.stdout.splitlines()] == EXPECTED


@needs_client
@pytest.mark.spark
@pytest.mark.long
def test_groups10_benchmark_job_on_connect_matches_local(server: str, tmp_path: Path):
    """The scaling benchmark's job on Connect (``-m long``: 40 s; the keyed windowed job above
    covers keyed windows on Connect in CI)."""
    program = (ROOT / "benchmarks" / "scale" / "groups10.trickle").read_text()
    job = _job(tmp_path, program, "groups10")
    events = [{"keys10": [f"k{i * 7 % 10}"], "aint": i * 3 % 101} for i in range(2000)]
    (tmp_path / "in.json").write_text("".join(json.dumps(e) + "\n" for e in events))
    common = ["-i", str(tmp_path / "in.json"), "--ingest-ns", "index", "--partitions", "3"]
    _run(job, *common, "--remote", server, "-o", str(tmp_path / "remote"), cwd=tmp_path)
    _run(job, *common, "-o", str(tmp_path / "local"), cwd=tmp_path)
    remote, local = (_port_lines(tmp_path / run / "out") for run in ("remote", "local"))
    assert len(remote) == 200  # w1 closes every 10 events of a key: 20 for each of 10 keys
    assert _by_key(remote) == _by_key(local)


@needs_client
@pytest.mark.spark
def test_remote_options_and_errors(server: str, tmp_path: Path):
    job = _job(tmp_path, KEYED)
    conf = ["--conf", "spark.sql.shuffle.partitions=5", "--conf", "spark.driver.memory=1g"]
    shown = _run(job, "--remote", server, *conf, "--show-conf", cwd=tmp_path)
    assert shown.stdout.splitlines() == [
        "spark.master=local[2]",
        f"spark.remote={server}",
        "spark.driver.memory=None",
        "spark.sql.shuffle.partitions=5",
    ]
    assert shown.stderr.splitlines() == [
        "tremorc: --conf spark.driver.memory ignored: the Spark Connect server reads it at start-up"
    ]
    missing = subprocess.run(
        [sys.executable, str(job), "-i", "nowhere.json", "--remote", server],
        env=_client_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode == 2
    message = f"Error: can not read {tmp_path / 'nowhere.json'}: Spark found no such path"
    assert missing.stderr.splitlines() == [message]


def test_remote_and_master_are_exclusive(tmp_path: Path) -> None:
    job = _job(tmp_path, KEYED)
    result = subprocess.run(
        [sys.executable, str(job), "--master", "local[1]", "--remote", "sc://127.0.0.1:1"],
        env=_client_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "argument --remote: not allowed with argument --master" in result.stderr


def test_runtime_zip_is_the_package_and_deterministic(tmp_path: Path) -> None:
    import zipfile

    from runtime_support.spark.artifacts import runtime_zip

    first, second = runtime_zip(tmp_path / "a.zip"), runtime_zip(tmp_path / "b.zip")
    assert Path(first).read_bytes() == Path(second).read_bytes()
    names = zipfile.ZipFile(first).namelist()
    package = ROOT / "runtime_support"
    expected = sorted(
        "runtime_support/" + path.relative_to(package).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )
    assert names == expected


@needs_client
@pytest.mark.spark
def test_file_flow_on_connect_matches_local(server: str, tmp_path: Path):
    """A .troy flow's file source is read by the server (its relative path made absolute against
    the client's folder); its file sink is written by Spark's writer (part files) on the server,
    with the same events as the local run's."""
    job = tmp_path / "flow.py"
    built = CliRunner().invoke(
        cli, ["build", str(ROOT / "examples/file_flow/flow.troy"), "-o", str(job)]
    )
    assert built.exit_code == 0, built.output
    outputs = []
    for run, extra in (("remote", ["--remote", server]), ("local", [])):
        folder = tmp_path / run / "examples" / "file_flow"
        folder.mkdir(parents=True)
        (folder / "in.json").write_bytes((ROOT / "examples/file_flow/in.json").read_bytes())
        _run(job, "--ingest-ns", "index", *extra, cwd=tmp_path / run)
        parts = sorted((tmp_path / run / "out.json").glob("part-*"))
        outputs.append(sorted(line for part in parts for line in part.read_text().splitlines()))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) >= 2


@needs_client
@pytest.mark.spark
def test_progress_on_a_terminal_from_connect_reports(server: str, tmp_path: Path):
    """No status tracker under Connect: the status line follows the server's progress reports."""
    import pty
    import threading

    job = _job(tmp_path, KEYED)
    lines = [json.dumps({"k": key, "v": value}) for key, value in EVENTS]
    (tmp_path / "in.json").write_text("\n".join(lines) + "\n")
    controller, terminal = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        result = subprocess.run(
            [sys.executable, str(job), "-i", "in.json", "-o", "out", "--remote", server],
            env=_client_env(),
            cwd=tmp_path,
            stderr=terminal,
            timeout=300,
        )
    finally:
        os.close(terminal)
    reader.join(timeout=30)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert result.returncode == 0, shown
    status = shown.replace("\x1b[K", "").replace("\r", "\n").splitlines()
    status = [line for line in status if line.startswith("tremorc: ")]
    assert status, shown
    done = status[-1].split(" stages done, ")
    assert int(done[0].removeprefix("tremorc: ")) >= 1, shown
    assert done[1].startswith("3 events written in "), shown
    assert "Traceback" not in shown
