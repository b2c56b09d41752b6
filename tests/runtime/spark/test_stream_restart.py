"""A rebuilt job restarts from a streaming checkpoint where its state keeps its meaning (a new
filter, a changed target) and refuses to, with a reason, where it does not (a changed group key
or window). Expected outputs are worked by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compiler.pipeline import compile_source, kind_of, read_source
from compiler.testing.loader import load_job
from runtime_support.spark import stream_job as streaming
from runtime_support.spark.state_store import state_fingerprint
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "streaming"


def _job(name: str):
    path = FIXTURES / f"{name}.trickle"
    return load_job(compile_source(read_source(path), kind_of(path)).job, name)


def _fingerprint(name: str) -> str:
    module = _job(name)
    return state_fingerprint(module.GRAPH, module.STAGES)


def test_a_new_filter_or_target_keeps_the_state_meaning():
    assert _fingerprint("keyed_new_filter") == _fingerprint("keyed")


@pytest.mark.parametrize("changed", ["keyed_new_key", "keyed_new_window", "interval_global"])
def test_a_changed_key_window_or_stage_does_not(changed):
    assert _fingerprint(changed) != _fingerprint("keyed")


def _write(folder: Path, name: str, events: list[dict], at: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    os.utime(path, (at, at))


def _outputs(folder: Path, port: str = "out") -> list[dict]:
    found = []
    port_folder = folder / port
    for name in sorted(os.listdir(port_folder)) if port_folder.exists() else []:
        if name.startswith("part-"):
            text = (port_folder / name).read_text(encoding="utf-8")
            found += [json.loads(line) for line in text.splitlines() if line.strip()]
    return found


def _run(spark, name: str, work: Path, output: str) -> None:
    module = _job(name)
    args = streaming.argparse.Namespace(
        checkpoint=str(work / "checkpoint"),
        input=[str(work / "in")],
        output=str(work / output),
        trigger="available-now",
        tick="100ms",
        files_per_batch=1,
        flush=False,
        state_ttl=None,
        ingest_ns="index",
        partitions=2,
    )
    settings = streaming.settings_for(args, spark, state_fingerprint(module.GRAPH, module.STAGES))
    streaming.run_until_done(spark, module.run_pipeline, args, settings)


def test_restart_with_a_compatible_rebuild_continues_and_an_incompatible_one_is_refused(
    tmp_path, stream_spark
):
    _write(tmp_path / "in", "a.json", [{"g": 1, "v": 1}, {"g": 2, "v": 2}, {"g": 1, "v": 3}], 1)
    _run(stream_spark, "keyed", tmp_path, "run1")
    assert _outputs(tmp_path / "run1") == [{"g": 1, "n": 2, "s": 4.0}]

    # g=2 holds one event in the checkpoint; the rebuilt job filters v=1000 and renames a field
    later = [{"g": 2, "v": 5}, {"g": 1, "v": 1000}, {"g": 1, "v": 7}]
    _write(tmp_path / "in", "b.json", later, 2)
    _run(stream_spark, "keyed_new_filter", tmp_path, "run2")
    assert _outputs(tmp_path / "run2") == [{"g": 2, "n": 2, "total": 7.0}]

    with pytest.raises(streaming.StreamError, match="different program"):
        _run(stream_spark, "keyed_new_key", tmp_path, "run3")
