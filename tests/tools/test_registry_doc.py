"""docs/registries.md is generated from the registries: fail when the committed file is stale."""

from __future__ import annotations

from tests.support.paths import ROOT, load_tool


def _generator():
    return load_tool("gen_registry_doc")


def test_registry_doc_is_current() -> None:
    committed = (ROOT / "docs" / "registries.md").read_text()
    assert (
        committed == _generator().render()
    ), "docs/registries.md is stale: run python tools/gen_registry_doc.py"


def test_every_unsupported_row_says_why() -> None:
    for line in _generator().render().splitlines():
        if line.startswith("| `") and " | no | " in line:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            assert cells[4] and not cells[4].startswith("`runtime_support"), line
