"""The codebase stays ruff-clean (B, E, F, I, UP, W) and black-formatted at line length 100."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import ROOT

PATHS = ["compiler", "runtime_support", "tests", "tools", "benchmarks"]


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "ruff", "check", "--no-cache", *PATHS],
        [sys.executable, "-m", "black", "--check", "--quiet", "-l", "100", *PATHS],
    ],
    ids=["ruff", "black"],
)
def test_tree_is_clean(command: list[str]) -> None:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
