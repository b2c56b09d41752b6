"""Discover test cases laid out like ``shared/conformance``.

A case is a folder; its kind follows from the files in it (``script.tremor`` + ``in`` + ``out``,
``query.trickle`` + ``error.txt``, …). A ``.tremor`` file given directly is a std-lib style unit
suite (``test::suite`` / ``test::test``), one case per test.
"""

from __future__ import annotations

import lzma
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = ("script.tremor", "query.trickle", "flow.troy")


@dataclass(frozen=True)
class Case:
    """One runnable case.

    ``kind``: ``data`` (in → out), ``runtime_error`` (in → error.txt on err), ``compile_error``
    (program → error.txt / error.re), ``warning`` (program → warning.txt), ``flow`` (deploy and
    run to completion).
    """

    name: str
    kind: str
    folder: Path
    program: Path

    def read(self, stem: str) -> str | None:
        """Text of ``stem`` in the case folder (``stem.xz`` is decompressed), or None."""
        plain = self.folder / stem
        if plain.exists():
            return plain.read_text(encoding="utf-8")
        packed = self.folder / f"{stem}.xz"
        if packed.exists():
            return lzma.decompress(packed.read_bytes()).decode("utf-8")
        return None

    def has(self, stem: str) -> bool:
        return (self.folder / stem).exists() or (self.folder / f"{stem}.xz").exists()


def classify(folder: Path) -> Case | None:
    """The case in ``folder``, or None when it holds no program."""
    program = next((folder / p for p in PROGRAMS if (folder / p).exists()), None)
    if program is None:
        return None
    case = Case(name=folder.name, kind="", folder=folder, program=program)
    if case.has("warning.txt"):
        kind = "warning"
    elif case.has("error.txt") or case.has("error.re"):
        kind = "runtime_error" if case.has("in") else "compile_error"
    elif program.name == "flow.troy":
        kind = "flow"
    else:
        kind = "data"
    return Case(name=folder.name, kind=kind, folder=folder, program=program)


def discover(path: Path) -> list[Case]:
    """Cases under ``path``: the folder itself if it is a case, else its case sub-folders
    (sorted, ``_template`` skipped)."""
    if path.is_file():
        return []
    case = classify(path)
    if case is not None:
        return [case]
    found = []
    for child in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("_")):
        sub = classify(child)
        if sub is not None:
            found.append(sub)
    return found


def input_lines(case: Case) -> list[str]:
    """The non-blank lines of the case's ``in`` file, split at ``\\n`` only as Rust's ``lines()``
    does (``splitlines()`` would also split a JSON string holding U+2028 or U+0085)."""
    text = case.read("in") or ""
    return [line.removesuffix("\r") for line in text.split("\n") if line.strip()]
