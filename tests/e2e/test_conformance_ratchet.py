"""The conformance ratchet: every case listed in ``conformance_passing.txt`` must still pass.

Each line names a case folder relative to ``../shared/conformance`` (``scripts/patch``) or a
std-lib suite test (``stdlib/std.tremor::<suite>: <test>``). The list only grows: add the cases a
change makes pass (``tremorc test … --report`` lists them) in the same commit.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from compiler.testing.cases import classify
from compiler.testing.runner import run_case
from compiler.testing.suites import run_suite_file
from tests.support.paths import CONFORMANCE, ROOT

LISTED = [
    line.strip()
    for line in (ROOT / "tests" / "conformance_passing.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


@cache
def _suite_results(path: Path) -> dict[str, tuple[bool, str]]:
    return {r.name: (r.passed, r.reason) for r in run_suite_file(path)}


@pytest.mark.spark
@pytest.mark.parametrize("name", LISTED)
def test_listed_case_still_passes(name: str, spark: object) -> None:
    if "::" in name:
        file, test = name.split("::", 1)
        passed, reason = _suite_results(CONFORMANCE / file).get(test, (False, "test not found"))
        assert passed, reason
        return
    case = classify(CONFORMANCE / name)
    assert case is not None, f"{name} is not a case folder"
    result = run_case(case)
    assert result.passed, result.reason
