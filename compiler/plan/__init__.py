"""The stage planner: the job graph (as codegen assembles it from the checked IR) split into the
job's Spark stages at state boundaries.

:func:`plan_of` runs :data:`PHASES` over :func:`~compiler.plan.build.initial_plan`;
:func:`~compiler.plan.model.render` gives the stable text ``tremorc dbg plan`` prints, whose
stages are the job's ``STAGES``; code generation only renders the result.
"""

from __future__ import annotations

from .build import initial_plan
from .model import Plan, render, validate
from .phases import PHASES, can_fuse, run_phases


def plan_of(plan: Plan) -> Plan:
    """The staged plan of the job graph ``plan`` (every node in one stage, a forwarder
    absorbed into the stages feeding it in several).

    >>> from compiler.ir.scope import Global
    >>> from compiler.plan.model import PlanNode
    >>> script = PlanNode(name="script", label="script", scope=Global(reason="script state"))
    >>> links = ((("in", "out"), ("script", "in")), (("script", "out"), ("out:out", "in")))
    >>> planned = plan_of(initial_plan(("in",), (script,), links, {"out:out": "out"}))
    >>> print(render(planned).split(" | why")[0])
    plan: 2 nodes in 1 stage
    stage 0 script | single | members in, script | ports err, out
    """
    return run_phases(plan)[-1][1]


__all__ = [
    "PHASES",
    "Plan",
    "can_fuse",
    "initial_plan",
    "plan_of",
    "render",
    "run_phases",
    "validate",
]
