"""A syrupy extension that keeps golden snapshots as plain, reviewable files next to their input:
``golden/<lang>/<case>/{ast.txt,ir.txt,job.py}`` (no ``__snapshots__`` directory, no
serialisation: a snapshot is the text itself).

A test parametrized with ``program`` (the path of ``golden/<lang>/<case>/input.*``) asserts
``text == golden(name="job.py")``. ``pytest --snapshot-update`` writes the files; without it a
missing or different file fails. Invariant: the extension reads, writes and deletes only the files
named in :data:`SNAPSHOT_FILES` inside the case directory of the test asserting them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

SNAPSHOT_FILES = ("ast.txt", "ir.txt", "job.py")
NOWHERE = Path(__file__).resolve().parent / "golden-none"  # tests without a golden case


def case_dir(test_location: Any) -> Path:
    """The ``golden/<lang>/<case>`` directory of a test (its ``program`` parameter's folder; a
    ``program`` that is no path, such as another module's source text, names no case: syrupy
    asks about every test of the session)."""
    callspec = getattr(test_location.item, "callspec", None)
    program = callspec.params.get("program") if callspec is not None else None
    return program.resolve().parent if isinstance(program, Path) else NOWHERE


class GoldenFiles(SingleFileSnapshotExtension):
    """One snapshot per file of a golden case directory; ``name`` is the file name."""

    _write_mode = WriteMode.TEXT
    file_extension = ""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(case_dir(test_location))

    @classmethod
    def discovery_dirname(cls, *, test_location: Any) -> str:
        return cls.dirname(test_location=test_location)

    @classmethod
    def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
        return f"{test_location.snapshot_name}[{index}]"

    @classmethod
    def get_location(cls, *, test_location: Any, index: Any) -> str:
        assert index in SNAPSHOT_FILES, f"golden snapshots are named {SNAPSHOT_FILES}"
        return str(case_dir(test_location) / str(index))

    @classmethod
    def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
        return Path(snapshot_location).parent == case_dir(test_location)

    def discover_snapshots(
        self, *, test_location: Any, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        """The case's existing snapshot files (the input and anything else are not ours)."""
        discovered = SnapshotCollections()
        folder = case_dir(test_location)
        for name in SNAPSHOT_FILES:
            path = folder / name
            if folder != NOWHERE and path.is_file():
                collection = SnapshotCollection(location=str(path))
                snapshot_name = self.get_snapshot_name(test_location=test_location, index=name)
                collection.add(Snapshot(name=snapshot_name))
                discovered.add(collection)
        return discovered

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        path = Path(snapshot_location)
        if path.name in SNAPSHOT_FILES:
            path.unlink()
