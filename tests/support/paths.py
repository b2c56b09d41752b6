"""Where the tests find the shared corpus: ``../shared`` relative to the repository (the contract
with CI and every developer checkout), never an absolute path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
WORKLOADS = SHARED / "workloads"


def load_tool(name: str) -> ModuleType:
    """Import ``tools/<name>.py`` (the doc generators are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
