"""The jobs a pre-filter differential test compares.

``off``: the same build with no pre-filter plan (every event goes to Python); ``built``: the job
tremorc builds (the pre-filter where ``prefilter.default_drop_plan`` gives one: today nowhere);
``narrow``: ``off`` with the program's drop plan attached where the narrow lowering applies;
``variant``: ``off`` with the plan on the variant lowering (None: no such plan).
"""

from __future__ import annotations

import pytest

from compiler.codegen import build
from compiler.lowering.attach import attach_prefilter
from compiler.lowering.prefilter import native_drop_plan
from compiler.pipeline import check_program, compile_source
from compiler.source import Source
from runtime_support.spark.prefilter import narrow_keys


def prefilter_jobs(
    source: Source, kind: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str, str | None, str | None]:
    """``(off, built, narrow, variant)`` for one program (see the module doc)."""
    built = compile_source(source, kind).job
    with monkeypatch.context() as patched:
        patched.setattr(build, "_native_plan", lambda checked: None)
        off = compile_source(source, kind).job
    plan = native_drop_plan(check_program(source, kind).ir)
    if plan is None:
        return off, built, None, None
    narrow = attach_prefilter(off, "in", plan) if narrow_keys(plan) is not None else None
    return off, built, narrow, attach_prefilter(off, "in", plan, variant=True)
