"""The stage planner: the checked job graph IR split into Spark stages at state boundaries.

:func:`plan_of` runs :data:`PHASES` over :func:`~compiler.plan.build.initial_plan`;
:func:`~compiler.plan.model.render` gives the stable text ``tremorc dbg plan`` prints.
"""

from __future__ import annotations

from ..ir import Deployment, PipelineGraph, ScriptGraph
from .build import initial_plan
from .model import Plan, render, validate
from .phases import PHASES, can_fuse, run_phases


def plan_of(ir: ScriptGraph | PipelineGraph | Deployment) -> Plan:
    """The staged plan of ``ir`` (every node in exactly one stage).

    >>> print(render(plan_of(ScriptGraph(ports=("out", "err"), stateful=True))))
    plan: 4 nodes in 1 stage
    stage in+script+out+err | single | why: script: script state, in one ordered partition
    """
    return run_phases(initial_plan(ir))[-1][1]


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
