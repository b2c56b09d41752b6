"""``Node.children`` skips the fields whose declared type admits no node: check that on real trees.

The programs are the golden inputs, the benchmark workloads and the shared corpus (every file
that parses); for each node of each tree, a field ``child_fields`` leaves out must hold no node
(nor a tuple containing one), and ``walk`` must visit exactly what a walk over every field does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from compiler.ast.common import Node, child_fields
from compiler.ast.script import Use
from compiler.diagnostics import CompileError
from compiler.modules import _uses
from compiler.pipeline import KINDS, parse, script_passes
from compiler.source import Source
from tests.support.paths import ROOT, SHARED

FOLDERS = (
    ROOT / "golden",
    ROOT / "benchmarks" / "workloads",
    ROOT / "examples",
    ROOT / "compiler" / "lib",
    SHARED,
)


def _programs() -> list[Path]:
    found = []
    for folder in FOLDERS:
        for suffix in KINDS:
            found += sorted(folder.rglob(f"*{suffix}"))
    return found


def _holds_node(value: object) -> bool:
    if isinstance(value, Node):
        return True
    return isinstance(value, tuple) and any(_holds_node(item) for item in value)


def _every_field_walk(node: Node) -> Iterator[Node]:
    """Pre-order over every field but ``span`` (the walk before fields were skipped)."""
    yield node
    for f in dataclasses.fields(node):
        if f.name != "span":
            yield from _nodes(getattr(node, f.name))


def _nodes(value: object) -> Iterator[Node]:
    if isinstance(value, Node):
        yield from _every_field_walk(value)
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes(item)


def _check(tree: Node, where: object) -> None:
    reference = list(_every_field_walk(tree))
    assert [id(n) for n in tree.walk()] == [id(n) for n in reference], where
    for node in reference:
        kept = child_fields(type(node))
        for f in dataclasses.fields(node):
            if f.name != "span" and f.name not in kept:
                assert not _holds_node(getattr(node, f.name)), (where, type(node), f.name)


def test_skipped_fields_hold_no_nodes() -> None:
    """Parsed trees of every program, and scripts after the front end (rewritten nodes); the
    module loader's search for ``use`` items (which skips expressions) finds every one."""
    programs = _programs()
    assert len(programs) > 50
    parsed = 0
    for path in programs:
        source = Source.from_path(path)
        try:
            tree = parse(source, KINDS[path.suffix])
        except CompileError:
            continue
        parsed += 1
        _check(tree, path)  # type: ignore[arg-type]
        every_use = [n for n in _every_field_walk(tree) if isinstance(n, Use)]  # type: ignore[arg-type]
        assert list(_uses(tree)) == every_use, path  # type: ignore[arg-type]
        if path.suffix == ".tremor":
            try:
                _check(script_passes(tree, source), (path, "front end"))  # type: ignore[arg-type]
            except CompileError:
                pass
    assert parsed > 50
