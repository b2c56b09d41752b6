"""``tremorc test``: case folders and std-lib suite files, one line per case, optional report."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from .cases import discover
from .runner import CaseResult, run_case
from .suites import run_suite_file


def run_paths(
    paths: tuple[Path, ...],
    *,
    pattern: str | None = None,
    echo: Callable[[str], None] = print,
    quiet: bool = False,
    report: Path | None = None,
) -> list[CaseResult]:
    """Run every case under ``paths`` (folders or std-lib suite files), one line per case."""
    results: list[CaseResult] = []
    for path in paths:
        if path.is_file():
            batch = run_suite_file(path, pattern=pattern)
        else:
            cases = [c for c in discover(path) if not pattern or pattern in c.name]
            batch = [run_case(case) for case in cases]
        for result in batch:
            if not quiet or not result.passed:
                status = "ok  " if result.passed else "FAIL"
                echo(f"{status} {result.category}/{result.name} ({result.seconds:.2f}s)")
        results.extend(batch)
    if report is not None:
        report.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return results
