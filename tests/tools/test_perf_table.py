"""docs/performance.md is generated from docs/performance.json (a ``benchmarks/suite.py --json``
report) by tools/perf_table.py: the committed page must be the rendering of the committed
report, and the rendering must state what the report holds."""

from __future__ import annotations

import json

from tests.support.paths import ROOT, load_tool


def _tool():
    return load_tool("perf_table")


def _report() -> dict:
    return {
        "events": 1000,
        "runs": 2,
        "typed": False,
        "typed_source": False,
        "cores": 2,
        "load_start": [1.5, 1.0, 1.0],
        "load_end": [2.25, 1.0, 1.0],
        "loop_seconds": [0.2, 0.25],
        "host": "h",
        "workloads": {
            "let": {
                "mismatch": "",
                "generated": 2.0,
                "handwritten": 4.0,
                "round_ratios": [0.4, 0.6],
                "cpu": {"generated": 3.0, "handwritten": 4.0},
            },
            "patch": {
                "mismatch": "3 vs 4 lines",
                "generated": 1.0,
                "handwritten": 1.0,
                "round_ratios": [1.0],
                "cpu": {},
            },
        },
        "build": {
            "let": {"in_process": 0.1234, "cli": 0.5},
            "big": {"lines": 10020, "in_process": 1.5, "cli": 2.25},
        },
        "adapted": {"patch": "older grammar", "match": "not run"},
    }


def test_committed_page_is_the_rendering_of_the_committed_report() -> None:
    report = json.loads((ROOT / "docs" / "performance.json").read_text())
    committed = (ROOT / "docs" / "performance.md").read_text()
    assert committed == _tool().render(
        report
    ), "docs/performance.md is stale: run tools/perf_table.py"


def test_rows_state_the_reports_figures() -> None:
    page = _tool().render(_report())
    assert "| let | 2.00 | 4.00 | **0.50** | 0.40–0.60 | 0.75 | 250 | 125 | equal |" in page
    assert (
        "| patch | 1.00 | 1.00 | **1.00** | 1.00–1.00 |  | 500 | 500 | differ: 3 vs 4 lines |"
        in page
    )
    assert "| let | 0.123 | 0.50 |" in page
    assert "| generated program of 10,020 lines | 1.500 | 2.25 |" in page
    assert "- patch: older grammar" in page and "not run" not in page
    assert "load average 1.50 at the start, 2.25 at the end" in page


def test_command_reproduces_the_report() -> None:
    report = _report()
    page = _tool().render(report)
    assert (
        "python3 benchmarks/suite.py --events 1000 --runs 2 --only let patch "
        "--json docs/performance.json" in page
    )
    report["build"] = {}
    report["typed_source"] = True
    assert "--only let patch --typed-source --no-build --json" in _tool().render(report)
