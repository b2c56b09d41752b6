"""Find the events a program provably drops, as a native IR predicate (the pre-filter).

Invariant established: for every input event for which the predicate is TRUE, the Python backend
would emit nothing at all for it (no output, no error) and change no state, so the job may remove
the event before ``mapInArrow``. Rows where it is FALSE or NULL go to Python unchanged.

Shape recognised: the script's first expression statement (only ``use``/``const``/``fn``
definitions before it) is ``drop``, or a ``match`` on ``event`` or an event path whose cases all
lower exactly; a case whose body starts with ``drop`` drops. Nothing runs before the match, so a
drop there has no other effect. For a trickle query the script must be fed by the only ``select``
reading stream ``in``, a plain ``select event from in into <script>``.
"""

from __future__ import annotations

from ..ast import query as Q
from ..ast import script as S
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


def query_drop_predicate(query: Q.Query) -> IR:
    """The pre-filter of a trickle query on its input stream ``in`` (NotNative: none)."""
    stmts = query.stmts
    if any(isinstance(s, (Q.DefinePipeline, Q.CreatePipeline)) for s in stmts):
        raise NotNative("the query embeds sub-pipelines")
    readers = [s for s in stmts if isinstance(s, Q.Select) and s.from_.stream.name == "in"]
    if len(readers) != 1:
        raise NotNative("stream `in` does not feed exactly one select")
    select = readers[0]
    if not _is_event(select.target) or select.windows or select.where is not None:
        raise NotNative("the select from `in` is not a plain `select event`")
    if select.group_by is not None or select.having is not None or select.into.port is not None:
        raise NotNative("the select from `in` groups, filters or targets a port")
    script = _created_script(stmts, select.into.stream.name)
    return script_drop_predicate(script)


def _created_script(stmts: tuple[Q.QueryItem, ...], name: str) -> S.Script:
    creates = [s for s in stmts if isinstance(s, Q.Create) and s.name.name == name]
    if len(creates) != 1 or not isinstance(creates[0], Q.CreateScript):
        raise NotNative("the select from `in` does not feed a script")
    target = creates[0].target
    if target.module:
        raise NotNative("the script is defined in a module")
    defines = [s for s in stmts if isinstance(s, Q.DefineScript) and s.name.name == target.name]
    if len(defines) != 1:
        raise NotNative("the script definition is not found in the query")
    return defines[0].script


def native_drop_plan(tree: object, kind: str) -> IR | None:
    """The pre-filter IR for a checked script or query tree, or None when there is none."""
    try:
        if kind == "script" and isinstance(tree, S.Script):
            return script_drop_predicate(tree)
        if kind == "query" and isinstance(tree, Q.Query):
            return query_drop_predicate(tree)
    except NotNative:
        return None
    return None
