"""Add the native pre-filter to a rendered job (when ``prefilter.default_drop_plan`` has one).

The job keeps its graph; one statement after it wraps the graph with
``runtime_support.spark.prefilter.with_native_prefilter`` (the IR goes in through ``repr()``: plain
tuples, strings, ints, bools and None), and the import joins the sorted ``runtime_support``
import group (every rendered job has one).
"""

from __future__ import annotations

from ..blackfmt import black_format
from .predicate import IR

IMPORT = "from runtime_support.spark.prefilter import with_native_prefilter"
ANCHOR = "\n\ndef run_pipeline("


def attach_prefilter(job: str, stream: str, ir: IR, variant: bool = False) -> str:
    """``job`` whose graph drops, natively, the events of ``stream`` for which ``ir`` is TRUE
    (``variant``: by the variant lowering, which builds never use; the differential tests do)."""
    lines = job.split("\n")
    ours = [i for i, line in enumerate(lines) if line.startswith("from runtime_support.")]
    first, last = ours[0], ours[-1]
    lines[first : last + 1] = sorted([*lines[first : last + 1], IMPORT])
    text = "\n".join(lines)
    block = (
        "\n\n# Native pre-filter: events the program provably drops never reach Python.\n"
        f"GRAPH = with_native_prefilter(GRAPH, {stream!r}, {ir!r}{', variant=True' * variant})\n"
    )
    head, anchor, tail = text.partition(ANCHOR)
    assert anchor, "a rendered job defines run_pipeline"
    return black_format(head + block + anchor + tail)
