"""The jobs a pre-filter differential test compares.

``off``: the same build with no pre-filter plan (every event goes to Python); ``built``: the job
tremorc builds (the narrow pre-filter where the program has one, else the same text as ``off``);
``variant``: ``off`` with the program's whole drop plan on the variant lowering (None: no plan).
"""

from __future__ import annotations

import pytest

from compiler.codegen import build
from compiler.lowering.attach import attach_prefilter
from compiler.lowering.prefilter import native_drop_plan
from compiler.pipeline import check_program, compile_source
from compiler.source import Source


def prefilter_jobs(
    source: Source, kind: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str, str | None]:
    """``(off, built, variant)`` for one program (see the module doc)."""
    built = compile_source(source, kind).job
    with monkeypatch.context() as patched:
        patched.setattr(build, "_native_plan", lambda checked: None)
        off = compile_source(source, kind).job
    plan = native_drop_plan(check_program(source, kind).ir)
    variant = None if plan is None else attach_prefilter(off, "in", plan, variant=True)
    return off, built, variant
