"""Which args of a deployed flow the job may take at run time, and where they land.

Needs: a deployed flow's build-time args and its instantiated creates (:mod:`.deploy_checks`).
Establishes: one :class:`~compiler.ir.flow.FlowArg` per flow arg. An arg is settable at run time
when every use is a placement: in the flow, a create's ``with`` value that is ``args.<name>``
itself, given to a connector; in that connector's definition, a ``with`` value, record field
value or array element that is ``args.<key>`` itself. Then the value lands unchanged at fixed
key paths of the connector's ``with`` values, found by evaluating the creates once more with the
arg bound to a marker, and substituting there at job start is exactly Tremor's evaluation. Any
other use (an operand, a string interpolation, a pipeline's arg, a key that shapes the job's
graph) keeps the arg at build time, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ast import deploy as D
from ..ast import script as S
from ..ast.common import Node
from ..ir.flow import FlowArg

#: The value bound to the arg being traced (a string no program writes).
MARKER = "\x00tremorc-run-time-arg\x00"

#: ``with`` key paths decided with the build: they shape the compiled job (ports, ordering, the
#: metrics plan) or how its sources frame and decode (checked against each other at build).
SHAPING = (
    ("codec",),
    ("config", "mode"),
    ("config", "single_file"),
    ("metrics_interval_s",),
    ("postprocessors",),
    ("preprocessors",),
)

Path = tuple[str | int, ...]


def _refs(node: Node, names: set[str]) -> bool:
    """Whether ``node`` reads any of the args ``names`` (or the whole ``args`` record)."""
    for sub in node.walk():
        if isinstance(sub, S.Path) and sub.root == "args":
            first = sub.segments[0] if sub.segments else None
            if not isinstance(first, S.FieldSeg) or first.name in names:
                return True
    return False


def _placed(expr: S.Expr, names: set[str]) -> bool:
    """Whether the args ``names`` appear in ``expr`` only as placed values (module doc)."""
    if isinstance(expr, S.Path) and expr.root == "args" and len(expr.segments) == 1:
        return isinstance(expr.segments[0], S.FieldSeg)
    if isinstance(expr, S.RecordLit):
        return all(not _refs(f.key, names) and _placed(f.value, names) for f in expr.fields)
    if isinstance(expr, S.ArrayLit):
        return all(_placed(item, names) for item in expr.items)
    return not _refs(expr, names)


def _sites(real: Any, seen: Any, value: Any, path: Path) -> list[Path] | None:
    """Key paths where the marker evaluation ``seen`` holds the marker (and the build-time
    evaluation ``real`` the arg's ``value``); None when they differ anywhere else."""
    if isinstance(seen, str) and seen == MARKER:
        return [path] if real == value and type(real) is type(value) else None
    if isinstance(seen, dict) and isinstance(real, dict) and seen.keys() == real.keys():
        found: list[Path] = []
        for key in seen:
            sub = _sites(real[key], seen[key], value, (*path, key))
            if sub is None:
                return None
            found += sub
        return found
    if isinstance(seen, list) and isinstance(real, list) and len(seen) == len(real):
        found = []
        for index, (r, s) in enumerate(zip(real, seen, strict=True)):
            sub = _sites(r, s, value, (*path, index))
            if sub is None:
                return None
            found += sub
        return found
    return [] if seen == real else None


def _why_fixed(name: str, flow: D.DefineFlow, defs: dict[str, Any]) -> str:
    """Why ``name`` must stay a build-time value ("" when every use is a placement)."""
    for create in flow.creates():
        given = {e.key.name for e in create.params if _refs(e.value, {name})}
        if not given:
            continue
        defn = defs.get(create.name.name)
        if not isinstance(defn, D.DefineConnector):
            return f"it is given to pipeline `{create.name.name}` (compiled into its code)"
        if not all(_placed(e.value, {name}) for e in create.params if e.key.name in given):
            return f"`create connector {create.name.name}` computes with it"
        if any(not _placed(e.value, given) for e in defn.config):
            return f"connector `{defn.name.name}` computes with it"
    return ""


def flow_args(
    flow: D.DefineFlow,
    args: dict[str, Any],
    defs: dict[str, Any],
    params: dict[str, dict[str, Any]],
    probe: Callable[[dict[str, Any]], dict[str, dict[str, Any]]],
) -> tuple[FlowArg, ...]:
    """The args of ``flow`` (build-time values ``args``; ``defs``: each create's definition by
    alias; ``params``: each created connector's ``with`` values; ``probe``: the connectors'
    ``with`` values for other flow args, unchecked)."""
    out = []
    for name, value in args.items():
        fixed = _why_fixed(name, flow, defs)
        sites: list[tuple[str, Path]] = []
        if not fixed:
            seen = probe({**args, name: MARKER})
            for alias, real in params.items():
                found = _sites(real, seen[alias], value, ())
                if found is None:  # unreachable when every use is a placement
                    fixed = f"connector `{alias}` computes with it"
                    break
                shaping = next((p for p in found if p[:2] in SHAPING or p[:1] in SHAPING), None)
                if shaping is not None:
                    key = ".".join(map(str, shaping))
                    fixed = f"it sets `{key}` of connector `{alias}`, decided with the build"
                    break
                sites += [(alias, p) for p in found]
        kept = () if fixed else tuple(sites)
        out.append(FlowArg(name=name, value=value, sites=kept, fixed=fixed))
    return tuple(out)
