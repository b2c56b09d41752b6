"""Same source → same bytes: every golden input and the programs in tests/data/determinism
(records, sets, groups, many connectors and pipelines, whose dict/set iteration order a hash seed
could change) build to byte-identical jobs in processes with different ``PYTHONHASHSEED``s."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.paths import ROOT

PROGRAMS = sorted(
    [
        *(ROOT / "golden").glob("*/*/input.*"),
        *(ROOT / "tests" / "data" / "determinism").glob("*.t*"),
    ]
)

BUILD_ALL = """
import json, sys
from pathlib import Path
from compiler.pipeline import compile_path
jobs = {p: compile_path(Path(p)).job for p in sys.argv[1:]}
jobs["<hash of 'tremor'>"] = str(hash("tremor"))
print(json.dumps(jobs))
"""


def build_all(seed: str) -> dict[str, str]:
    """The job text of every program, built in a fresh interpreter with ``seed``."""
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", BUILD_ALL, *map(str, PROGRAMS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(result.stdout)


def test_the_programs_cover_every_language() -> None:
    suffixes = {p.suffix for p in PROGRAMS}
    assert suffixes == {".tremor", ".trickle", ".troy"}
    assert len(PROGRAMS) >= 10


def test_builds_are_byte_identical_across_hash_seeds() -> None:
    first, second = build_all("1"), build_all("4242")
    probe = "<hash of 'tremor'>"
    assert first.pop(probe) != second.pop(probe)  # the seeds really differ
    assert sorted(first) == sorted(map(str, PROGRAMS))
    for path, job in first.items():
        assert job == second[path], f"{path} builds differently under another hash seed"
        assert job.encode("utf-8") == second[path].encode("utf-8")
