"""The ``runtime_support`` package as a zip, for ``spark-submit --py-files`` (``tremorc bundle``)
and for a Spark Connect session's ``addArtifacts(..., pyfile=True)``.

Invariant: the zip holds every file of the package this process imports (a folder, or a zip
itself when the job runs from one), under ``runtime_support/``, ``__pycache__`` left out, in
sorted order with a fixed timestamp: the same package gives the same bytes.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Iterator
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["runtime_zip", "ship_runtime"]

PACKAGE = "runtime_support"
_STAMP = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: no build time in the bytes


def runtime_zip(output: str | os.PathLike[str]) -> str:
    """Write the package zip to ``output``; its path."""
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, entry in sorted(_entries(files(PACKAGE), PACKAGE)):
            info = zipfile.ZipInfo(name, date_time=_STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, entry.read_bytes())
    return os.fspath(output)


def _entries(root: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    for entry in root.iterdir():
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _entries(entry, name)
        elif entry.is_file() and not entry.name.endswith((".pyc", ".pyo")):
            yield name, entry


def ship_runtime(spark: Any) -> None:
    """Add the package zip to a Spark Connect session, so the server's Python workers import
    this ``runtime_support`` (the zip is built in a temporary folder, removed once sent)."""
    with tempfile.TemporaryDirectory(prefix="tremorc-runtime-") as folder:
        spark.addArtifacts(runtime_zip(os.path.join(folder, "runtime_support.zip")), pyfile=True)
