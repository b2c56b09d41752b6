"""Add the native pre-filter to a rendered job (when ``prefilter.default_drop_plan`` has one).

The job keeps its graph; one statement after it wraps the graph with
``runtime_support.spark.prefilter.with_native_prefilter`` (the IR goes in through ``repr()``:
plain tuples, strings, ints, bools and None), and its name joins the job's one ``from
runtime_support import …`` statement.
"""

from __future__ import annotations

from ..codegen.job import with_runtime_names
from .predicate import IR

IMPORT = "with_native_prefilter"
ANCHOR = "\n\ndef run_pipeline("


def attach_prefilter(job: str, stream: str, ir: IR, variant: bool = False) -> str:
    """``job`` whose graph drops, natively, the events of ``stream`` for which ``ir`` is TRUE
    (``variant``: by the variant lowering, which builds never use; the differential tests do);
    the text is not reformatted (``codegen.build.build_job`` formats a job once)."""
    text = with_runtime_names(job, IMPORT)
    block = (
        "\n\n# Native pre-filter: events the program provably drops never reach Python.\n"
        f"GRAPH = with_native_prefilter(GRAPH, {stream!r}, {ir!r}{', variant=True' * variant})\n"
    )
    head, anchor, tail = text.partition(ANCHOR)
    assert anchor, "a rendered job defines run_pipeline"
    return head + block + anchor + tail
