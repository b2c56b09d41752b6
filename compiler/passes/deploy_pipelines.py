"""Checks of pipelines embedded in flows, delegated to the trickle checks (helper F's
:mod:`compiler.passes.query_checks`) when they are available."""

from __future__ import annotations

from ..ast import query as Q
from ..source import Source


def check_pipeline_definition(defn: Q.DefinePipeline, source: Source) -> None:
    """Run the trickle statement checks over the body of ``defn`` (no-op until they exist)."""
    try:
        from . import query_checks
    except ImportError:
        return
    checker = getattr(query_checks, "check_pipeline_definition", None)
    if checker is not None:
        checker(defn, source)
