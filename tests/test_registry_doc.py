"""docs/registries.md is generated from the registries: fail when the committed file is stale."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_registry_doc", ROOT / "tools" / "gen_registry_doc.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
