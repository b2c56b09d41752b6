"""Jobs run under Spark Connect, which has no ``SparkContext`` and no RDD API: neither appears in
``runtime_support/`` (code, not docstrings or comments), in the job templates or in the generated
jobs (goldens), except on a line marked ``# classic-only`` in a module that checks
``is_connect`` (the guard that keeps such a line off a Connect session)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from tests.support.paths import ROOT

NAMES = frozenset({"sparkContext", "SparkContext", "_jsc", "_jvm", "_sc"})
FORBIDDEN = re.compile(r"\b(sparkContext|SparkContext|_jsc|_jvm|_sc)\b|\.rdd\b")
MARK = "# classic-only"


def _code_hits(path: Path) -> list[tuple[int, str]]:
    """Lines of ``path`` whose code (strings and comments left out) names a classic-only API."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    hits, previous = set(), ""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            continue
        if token.string in NAMES or (token.string == "rdd" and previous == "."):
            hits.add(token.start[0])
        previous = token.string
    return [(number, lines[number - 1]) for number in sorted(hits)]


def _runtime_files() -> list[Path]:
    return sorted((ROOT / "runtime_support").rglob("*.py"))


@pytest.mark.parametrize("path", _runtime_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_runtime_support_has_no_classic_api_outside_a_guard(path: Path) -> None:
    hits = _code_hits(path)
    unmarked = [f"{number}: {line.strip()}" for number, line in hits if MARK not in line]
    assert not unmarked, "SparkContext/RDD API without a classic-only guard:\n" + "\n".join(
        unmarked
    )
    if hits:
        assert "is_connect(" in path.read_text(encoding="utf-8"), path


def test_templates_and_generated_jobs_have_no_classic_api() -> None:
    files = sorted((ROOT / "templates").glob("*.j2")) + sorted((ROOT / "golden").rglob("*.py"))
    assert files
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_forbids(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""spark.sparkContext in a docstring is prose."""\n'
        "rows = frame.rdd.collect()\n"
        "spark.sparkContext.setLogLevel('ERROR')  # classic-only\n"
        "x = 1  # spark.sparkContext in a comment\n"
    )
    assert [number for number, _ in _code_hits(sample)] == [2, 3]
