"""The instantiated program: what the passes hand to code generation for trickle and troy.

:mod:`compiler.ir.graph` describes one instantiated pipeline graph (a ``.trickle`` file, or a
pipeline created in a flow) and the one-node graph of a ``.tremor`` script;
:mod:`compiler.ir.flow` a deployed troy file. The IR is pure data:
every name is resolved, every ``args``/``with`` value evaluated, every embedded script checked,
so code generation only renders it and never reports a user error.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import Warning_
from .flow import Deployment
from .graph import PipelineGraph, ScriptGraph


@dataclass(frozen=True, slots=True)
class Checked:
    """The result of the front end: the checked tree, its instantiation and Tremor's warnings
    (computed once, while checking; in source order)."""

    kind: str
    tree: object
    ir: ScriptGraph | PipelineGraph | Deployment
    warnings: tuple[Warning_, ...] = ()


__all__ = ["Checked", "Deployment", "PipelineGraph", "ScriptGraph"]
