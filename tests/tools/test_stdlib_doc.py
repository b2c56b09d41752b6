"""docs/stdlib.md is generated from the registry: fail when the committed file is stale."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT, load_tool


def _generator():
    return load_tool("gen_stdlib_doc")


def test_stdlib_doc_is_current() -> None:
    gen = _generator()
    if not gen.CONFORMANCE.is_dir():
        pytest.skip("conformance corpus not available")
    committed = (ROOT / "docs" / "stdlib.md").read_text()
    assert committed == gen.current(), "docs/stdlib.md is stale: run python tools/gen_stdlib_doc.py"


def test_every_row_says_native_or_why_not() -> None:
    text = _generator().render({})
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            assert cells[4] != "python fallback" or cells[5], line
