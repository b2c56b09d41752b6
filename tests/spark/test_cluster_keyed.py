"""A keyed windowed trickle job on a real standalone cluster with two workers.

One master and two workers (one core each) on loopback; the job is built by tremorc and submitted
with ``spark-submit --py-files runtime_support.zip``, its event log kept. Checked:

- the output is exactly what a per-key count window gives, computed here in plain Python over
  the generated input (never by tremorc's runtime);
- the keyed stage ran on both workers: every Python stage fed by a shuffle (the stage after the
  repartition by key; also any Python stage before it) has tasks that read shuffled events on
  executors of both workers. Executors are mapped to workers by the folder each worker keeps for
  an executor it launched (``<work dir>/<app id>/<executor id>/``).

Slow (cluster start and a submit, ~1 min), so it is one test.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import cli
from tests.support.paths import ROOT
from tests.support.spark_cluster import Cluster, spark_env, spark_home, standalone_cluster

WINDOW = 7
KEYS = 120
EVENTS = 3000
PARTITIONS = 4

PROGRAM = f"""\
define window by_n from tumbling
with
  size = {WINDOW}
end;

select {{
  "key": group[0],
  "count": aggr::stats::count(),
  "sum": aggr::stats::sum(event.v)
}}
from in[by_n]
group by event.key
into out;
"""

# Spark scopes of the physical operators that run Python (mapInArrow, applyInArrow, UDFs...).
PYTHON_SCOPE = re.compile(r"InArrow|InPandas|Python")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with standalone_cluster(tmp_path / "cluster", workers=2, cores=1, memory="1g") as running:
        yield running


def generate(folder: Path) -> list[dict]:
    """Events with one of ``KEYS`` keys and a small integer ``v``, in two files; the list is
    in the job's input order (files sorted by path, then lines)."""
    rng = random.Random(9)
    events = [{"key": f"k{rng.randrange(KEYS)}", "v": rng.randrange(1000)} for _ in range(EVENTS)]
    folder.mkdir()
    half = len(events) // 2
    for name, chunk in (("a.json", events[:half]), ("b.json", events[half:])):
        (folder / name).write_text("".join(json.dumps(e) + "\n" for e in chunk))
    return events


def expected_per_key(events: list[dict]) -> dict[str, list[str]]:
    """Tremor's tumbling ``size`` window per group: emit on the event that makes ``WINDOW``,
    including it; an unfilled window is never emitted (a count window ignores ticks). The sum
    aggregate is a float; a JSON record keeps the target's key order."""
    open_windows: dict[str, list[int]] = {}
    emitted: dict[str, list[str]] = defaultdict(list)
    for event in events:
        window = open_windows.setdefault(event["key"], [])
        window.append(event["v"])
        if len(window) == WINDOW:
            record = f'{{"key":"{event["key"]}","count":{WINDOW},"sum":{float(sum(window))!r}}}'
            emitted[event["key"]].append(record)
            window.clear()
    return dict(emitted)


def submit(cluster: Cluster, folder: Path, inputs: Path) -> Path:
    """Build the job and its runtime bundle, spark-submit it with an event log; the event log
    folder. Both executors register before the first task (cores.max = every core, ratio 1)."""
    runner = CliRunner()
    (folder / "keyed.trickle").write_text(PROGRAM)
    job, bundle = folder / "job.py", folder / "runtime_support.zip"
    built = runner.invoke(cli, ["build", str(folder / "keyed.trickle"), "-o", str(job)])
    assert built.exit_code == 0, built.output
    assert runner.invoke(cli, ["bundle", "-o", str(bundle)]).exit_code == 0
    events = folder / "eventlog"
    events.mkdir()
    conf = {
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": events.as_uri(),
        "spark.eventLog.compress": "false",
        "spark.executor.memory": "512m",
        "spark.cores.max": "2",
        "spark.scheduler.minRegisteredResourcesRatio": "1.0",
        "spark.scheduler.maxRegisteredResourcesWaitingTime": "120s",
        # Both executors are on 127.0.0.1: no reason to wait for the one holding a block.
        "spark.locality.wait": "0s",
        # Adaptive execution would merge this small keyed stage's partitions into one task.
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
    }
    command = [str(spark_home() / "bin" / "spark-submit"), "--master", cluster.url]
    command += [arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}")]
    command += ["--py-files", str(bundle), str(job), "-i", str(inputs)]
    command += ["-o", str(folder / "out"), "--partitions", str(PARTITIONS)]
    result = subprocess.run(
        command, env=spark_env(), cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return events


def read_event_log(folder: Path) -> list[dict]:
    """The one application's listener events: a plain file, or Spark 4's rolling
    ``eventlog_v2_<app>/events_<n>_<app>`` files in index order."""
    (app,) = [path for path in folder.iterdir() if not path.name.startswith(".")]
    files = [app]
    if app.is_dir():
        files = sorted(app.glob("events_*"), key=lambda path: int(path.name.split("_")[1]))
    return [json.loads(line) for path in files for line in path.read_text().splitlines()]


def shuffle_fed_python_stages(log: list[dict]) -> dict[int, list[tuple[str, int]]]:
    """Each stage that runs Python over shuffled input: its tasks as (executor ID, shuffle
    records read), from ``SparkListenerTaskEnd``. A stage that only scans a cached result of a
    Python stage reads no shuffle and is left out."""
    python_stages = {
        event["Stage Info"]["Stage ID"]
        for event in log
        if event["Event"] == "SparkListenerStageSubmitted"
        and any(
            PYTHON_SCOPE.search(json.loads(rdd.get("Scope", "{}")).get("name", ""))
            for rdd in event["Stage Info"]["RDD Info"]
        )
    }
    tasks: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for event in log:
        if event["Event"] == "SparkListenerTaskEnd" and event["Stage ID"] in python_stages:
            read = event["Task Metrics"]["Shuffle Read Metrics"]["Total Records Read"]
            tasks[event["Stage ID"]].append((event["Task Info"]["Executor ID"], read))
    return {stage: ran for stage, ran in tasks.items() if sum(n for _, n in ran) > 0}


def output_per_key(folder: Path) -> dict[str, list[str]]:
    """The ``out`` port's lines per key, in part-file order; each key's lines must all be in
    one part file (one keyed partition), whose order is the emission order."""
    lines: dict[str, list[str]] = defaultdict(list)
    files: dict[str, set[str]] = defaultdict(set)
    for part in sorted((folder / "out").glob("part-*")):
        for line in part.read_text().splitlines():
            key = json.loads(line)["key"]
            lines[key].append(line)
            files[key].add(part.name)
    spread = {key: sorted(names) for key, names in files.items() if len(names) > 1}
    assert not spread, f"keys written from several partitions: {spread}"
    return dict(lines)


@pytest.mark.spark
def test_keyed_stage_runs_on_both_workers(cluster: Cluster, tmp_path: Path) -> None:
    events = generate(tmp_path / "in")
    log = read_event_log(submit(cluster, tmp_path, tmp_path / "in"))
    assert output_per_key(tmp_path / "out") == expected_per_key(events)
    for port in ("err", "error_log"):
        assert all(not part.read_text() for part in (tmp_path / "out" / port).glob("part-*"))
    (app,) = [e["App ID"] for e in log if e["Event"] == "SparkListenerApplicationStart"]
    stages = shuffle_fed_python_stages(log)
    assert stages, "no Python stage read shuffled events"
    for stage, tasks in sorted(stages.items()):
        workers = {cluster.worker_of(app, executor) for executor, read in tasks if read > 0}
        assert workers == {0, 1}, (
            f"stage {stage}: tasks (executor, shuffle records read) {tasks} ran on workers "
            f"{sorted(workers)}, not on both"
        )
