"""Where the tests find the shared corpus: ``../shared`` relative to the repository (the contract
with CI and every developer checkout), never an absolute path."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
WORKLOADS = SHARED / "workloads"
