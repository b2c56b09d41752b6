"""A benchmark workload as a loaded job module, and its outputs written (shared by
``bench.py`` and the hand-written arrangements of ``candidates.py``)."""

from __future__ import annotations

from pathlib import Path

WORKLOADS = Path(__file__).resolve().parent / "workloads"


def job_module(workload: str, mode: str = "py"):
    """Compile a workload and load it as a module whose graph has, by ``mode``: no pre-filter
    (``py``), its drop plan (``native``: narrow lowering where it applies) or the plan on the
    variant lowering (``variant``)."""
    from dataclasses import fields

    from compiler.lowering.prefilter import native_drop_plan
    from compiler.pipeline import check_program, compile_path, read_source
    from compiler.testing.loader import load_job
    from runtime_support.spark.prefilter import with_native_prefilter
    from runtime_support.tremor.graph import GraphSpec

    path = WORKLOADS / f"{workload}.trickle"
    module = load_job(compile_path(path).job, workload)
    graph = GraphSpec(**{f.name: getattr(module.GRAPH, f.name) for f in fields(GraphSpec)})
    plan = native_drop_plan(check_program(read_source(path), "query").ir)
    if mode in ("native", "variant") and plan is not None:
        graph = with_native_prefilter(graph, "in", plan, variant=mode == "variant")
    module.GRAPH = graph
    return module


def write_all(outputs: dict, out: str) -> None:
    """Write every output port's ``value`` column as text (unordered, like the floor)."""
    frames = list(outputs.values())
    result = frames[0].select("value")
    for frame in frames[1:]:
        result = result.unionByName(frame.select("value"))
    result.write.mode("overwrite").text(out)
