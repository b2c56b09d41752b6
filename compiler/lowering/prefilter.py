"""Find the events a program provably drops, as a native IR predicate (the pre-filter).

Invariant established: for every input event for which the predicate is TRUE, the Python backend
would emit nothing at all for it (no output, no error) and change no state, so the job may remove
the event before ``mapInArrow``. Rows where it is FALSE or NULL go to Python unchanged.

Shape recognised: the script's first expression statement (only ``use``/``const``/``fn``
definitions before it) is ``drop``, or a ``match`` on ``event`` or an event path whose cases all
lower exactly; a case whose body starts with ``drop`` drops. Nothing runs before the match, so a
drop there has no other effect. For a pipeline graph (read from the IR, never the AST) the input
port ``in`` must feed exactly one node, a script, through a plain link (``select event from in
into <script>`` is instantiated as one); a flow gets no pre-filter.

No switch: a build adds the pre-filter where its lowering measured faster than sending the
events to Python (``default_drop_plan``). Neither has shown it (docs/representation.md: the
variant one cost 5.3-5.6x the Python path, the narrow one 0.89-2.6x in runs that disagree), so
builds add none; tests and ``benchmarks/bench.py`` attach the plan to measure and prove it.
"""

from __future__ import annotations

from ..ast import script as S
from ..ir import Deployment
from ..ir import graph as G
from .predicate import IR, NotNative, event_segments, lower_expr, lower_pattern

DEFINITIONS = (S.Use, S.Const, S.FnDef, S.Intrinsic)


def script_drop_predicate(script: S.Script) -> IR:
    """The IR predicate "this script drops the event"; NotNative says why there is none."""
    first = next((item for item in script.items if not isinstance(item, DEFINITIONS)), None)
    if isinstance(first, S.Drop):
        return ("const", True)
    if not isinstance(first, S.Match):
        raise NotNative("the script does not start with a match")
    if not any(case.body and isinstance(case.body[0], S.Drop) for case in first.cases):
        raise NotNative("no case of the first match drops")
    segs = () if _is_event(first.target) else event_segments(first.target)
    steps = []
    for case in first.cases:
        matched = lower_pattern(segs, case.pattern)
        if case.guard is not None:
            matched = ("and", matched, lower_expr(case.guard))
        drops = bool(case.body) and isinstance(case.body[0], S.Drop)
        steps.append((matched, ("const", drops)))
    if segs:
        # A literal pattern on a missing path is an error in Tremor: keep it unknown.
        steps = [(("and", ("defined", segs), m), d) for m, d in steps]
    return ("first", tuple(steps))


def _is_event(expr: S.Expr) -> bool:
    return isinstance(expr, S.Path) and expr.root == "event" and not expr.segments


def graph_drop_predicate(graph: G.PipelineGraph) -> IR:
    """The pre-filter of a pipeline graph on its input port ``in`` (NotNative: none)."""
    port = dict(graph.inputs).get("in")
    readers = [link for link in graph.links if link.source == (port, "out")]
    if port is None or len(readers) != 1:
        raise NotNative("port `in` does not feed exactly one node")
    name, in_port = readers[0].target
    node = next(n for n in graph.nodes if n.name == name)
    if not isinstance(node, G.ScriptNode) or in_port != "in":
        raise NotNative("port `in` does not feed a script through a plain `select event`")
    return script_drop_predicate(node.body.script)


def native_drop_plan(ir: G.ScriptGraph | G.PipelineGraph | Deployment) -> IR | None:
    """The pre-filter IR of a checked program's job graph, or None when there is none."""
    try:
        if isinstance(ir, G.ScriptGraph) and ir.body is not None:
            return script_drop_predicate(ir.body.script)
        if isinstance(ir, G.PipelineGraph):
            return graph_drop_predicate(ir)
    except NotNative:
        return None
    return None


def default_drop_plan(ir: G.ScriptGraph | G.PipelineGraph | Deployment) -> IR | None:
    """The pre-filter a build adds: none. No lowering of :func:`native_drop_plan` has shown a win
    over the Python path on JSON text (the eligibility guards and the JVM parse cost about what
    orjson does; docs/representation.md). A class of plans decidable from the IR that measures
    faster (candidate: ``narrow_keys`` and a last case ``_ => drop``) is enabled here."""
    del ir
    return None
