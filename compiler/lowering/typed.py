"""Lower a whole script over a typed input event (a declared schema) to the typed plan IR.

The plan is a decision tree (interpreted by ``runtime_support.spark.typed_plan``) over the parsed
input struct; it is plain tuples, embedded in the job with ``repr()``::

    ("leaf", port | None, value, checks)   emit ``value`` (a struct, or ``("extend", entries)``:
                                           the input line plus keys) on ``port``; None: drop
    ("branch", checks, ((cond, tree), ...)) the first TRUE ``cond``; none TRUE: Python
    ("python",)                            Tremor errors here for sure: the Python path decides

``checks`` are boolean value IRs: a row for which one is TRUE goes, unchanged, to the Python path
(a missing key, an overflow, a key whose position would differ). Value IR: ``("ev",)`` the
input struct, ``("get", v, key)``, ``("lit", x)``, ``("struct", ((key, v), ...))``,
``(op, a, b)`` for ``eq ne lt le gt ge add sub mul concat and or``, ``("not", a)``,
``("neg", a)``, ``("isnull", v)``, ``("notnull", v)``, ``("array_contains", array, lit)``.
A script whose ``$`` nothing reads (``meta_unread``) evaluates ``let $key = v`` for ``v``'s
checks only. Ports in ``routed`` lead through a routing-only ``grouper::bucket``, which reads
``$class`` alone: an event leaving on one with a ``$class`` that is statically a string goes on
to the bucket's target; with any other (or none assigned) the bucket fails it, so the row goes
to Python. A branch whose cases all lead to one subtree is that subtree (its checks added).

Invariant: on a row where no check on its path is TRUE, every value read on that path is
non-null (absent keys are null in the struct, and each nullable read is checked) and the
Columns compute exactly Tremor's result; everything else raises ``NotNative`` (whole program).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ast import script as S
from .predicate import NotNative
from .records import AlwaysPython, Rec, Val, rec_of
from .typed_exprs import evaluate
from .typed_values import CMP, FALSE, TRUE, as_bool, compare, equal, glob_test, is_struct, seg_key

DEFINITIONS = (S.Use, S.FnDef, S.Intrinsic)
MAX_NODES = 400


@dataclass
class State:
    """The symbolic event, the locals, and the checks gathered since the last branch."""

    event: Rec
    ports: dict[str, str]
    local: dict[str, Val | Rec] = field(default_factory=dict)
    checks: list = field(default_factory=list)
    line: tuple = ()  # the input struct's entries as read: ``("extend", ...)`` reuses the line
    meta_unread: bool = False  # nothing reads the ``$`` the script leaves with (but ``routed``)
    routed: frozenset[str] = frozenset()  # ports whose events a bucket routes by ``$class``
    meta_class: Val | Rec | None = None  # ``$class`` as assigned (None: not assigned here)

    def fork(self) -> State:
        return State(
            self.event.copy(),
            self.ports,
            dict(self.local),
            [],
            self.line,
            self.meta_unread,
            self.routed,
            self.meta_class,
        )


def typed_plan(
    script: S.Script,
    schema: tuple,
    ports: dict[str, str],
    meta_unread: bool = False,
    routed: frozenset[str] = frozenset(),
) -> tuple:
    """The typed plan of ``script`` over events of ``schema``; ``ports`` maps the script's
    output ports to job outputs; ``meta_unread``: nothing reads the ``$`` it leaves with
    (``ScriptNode.meta_unread``) but the routing buckets of the ports in ``routed``. Raises
    NotNative (with the reason) when it does not lower."""
    items = [item for item in script.items if not isinstance(item, DEFINITIONS)]
    if not items:
        raise NotNative("an empty script")
    event = rec_of(Val(("ev",), schema))
    state = State(event, ports, line=event.ir()[1], meta_unread=meta_unread, routed=routed)
    tree = run(items, state)
    if _size(tree) > MAX_NODES:
        raise NotNative(f"the plan has more than {MAX_NODES} nodes")
    return tree


def run(items: list, st: State) -> tuple:
    """The tree of the statements ``items`` from state ``st``."""
    try:
        for i, item in enumerate(items):
            last = i == len(items) - 1
            if isinstance(item, S.Match):
                return branch(item, items[i + 1 :], st)
            if isinstance(item, S.Drop):
                return ("leaf", None, None, _unique(st.checks))
            if isinstance(item, S.Emit):
                value = ev(item.value, st) if item.value is not None else st.event
                return _leaf(value, _port(item.port, st), st)
            if isinstance(item, S.Let):
                if last:
                    raise NotNative("a script that ends with `let`")
                assign(item, st)
                continue
            if isinstance(item, S.Literal) and not last:
                continue  # a value nothing reads (`case _ => null` before more statements)
            value = ev(item, st)
            if last:
                return _leaf(value, "out", st)
    except AlwaysPython:
        return ("python",)
    raise NotNative("a script that ends without a value")


def _leaf(value: Val | Rec, port: str, st: State) -> tuple:
    """``value`` leaving on the script's ``port``."""
    if port in st.routed and not (isinstance(st.meta_class, Val) and st.meta_class.typ == "string"):
        return ("python",)  # the bucket fails an event without a string `$class`
    if not isinstance(value, Rec):
        raise NotNative("emits a value that is not a record")
    if port not in st.ports:
        raise NotNative("emits to a port that is not a job output")
    ir = value.ir()
    if ir[1][: len(st.line)] == st.line:
        # The input's keys, unchanged and in order, then new ones: the output is the input line
        # (it fits, so it is what to_json writes) with the new keys appended.
        ir = ("extend", ir[1][len(st.line) :])
    return ("leaf", st.ports[port], ir, _unique(st.checks))


def _port(expr: S.Expr | None, st: State) -> str:
    """The script port an ``emit`` names: a literal, or a string known at compile time."""
    if expr is None:
        return "out"
    port = ev(expr, st)
    if not isinstance(port, Val) or port.ir[0] != "lit" or not isinstance(port.ir[1], str):
        raise NotNative("emit to a computed port")
    return port.ir[1]


def _unique(checks: list) -> tuple:
    return tuple(dict.fromkeys(checks))


def branch(match: S.Match, rest: list, st: State) -> tuple:
    """A match: its cases in order, each continuing with ``rest`` (the statements after)."""
    target = ev(match.target, st)
    cases = []
    for case in match.cases:
        cond = pattern(target, case.pattern, st)
        if case.guard is not None:
            cond = both(cond, as_bool(ev(case.guard, st), "guard"))
        if cond == FALSE:
            continue  # never taken
        cases.append((cond, run([*case.body, *rest], st.fork())))
        if cond == TRUE:
            break  # the later cases are never reached
    return decided(_unique(st.checks), tuple(cases))


def decided(checks: tuple, cases: tuple) -> tuple:
    """The branch; when every case leads to one subtree and the last always matches, that
    subtree under the branch's checks too (which case matched changes nothing)."""
    if not cases or cases[-1][0] != TRUE or any(sub != cases[0][1] for _, sub in cases):
        return ("branch", checks, cases)
    tree = cases[0][1]
    if tree[0] == "leaf":
        return (*tree[:3], _unique([*checks, *tree[3]]))
    if tree[0] == "branch":
        return ("branch", _unique([*checks, *tree[1]]), tree[2])
    return tree


def both(a: tuple, b: tuple) -> tuple:
    """Boolean IR ``a and b`` (literal operands folded)."""
    if FALSE in (a, b):
        return FALSE
    if a == TRUE:
        return b
    return a if b == TRUE else ("and", a, b)


def pattern(target: Val | Rec, pat: S.Pattern, st: State) -> tuple:
    """Boolean IR: does ``target`` match ``pat``?"""
    if isinstance(pat, S.AnyPattern):
        return TRUE
    if isinstance(pat, S.ExprPattern):
        return equal(target, ev(pat.expr, st), "eq")
    if not isinstance(pat, S.RecordPattern):
        raise NotNative(f"{type(pat).__name__} in a match")
    if not isinstance(target, Rec) and not is_struct(target):
        return FALSE
    rec = target if isinstance(target, Rec) else rec_of(target)
    cond: tuple = TRUE
    for fp in pat.fields:
        cond = both(cond, _field_test(rec, fp, st))
    return cond


def _field_test(rec: Rec, fp: S.FieldPredicate, st: State) -> tuple:
    if fp.alias is not None:
        raise NotNative("a record-pattern field binds an alias")
    there = rec.present_ir(fp.key)
    if fp.kind == "present":
        return there
    if fp.kind == "absent":
        return ("not", there)
    if fp.kind == "cmp" and fp.op in CMP and fp.expr is not None:
        value = rec.entries.get(fp.key)
        if value is None:
            return FALSE
        return both(there, compare(value, ev(fp.expr, st), CMP[fp.op]))
    if fp.kind == "record" and isinstance(fp.pattern, S.RecordPattern):
        value = rec.entries.get(fp.key)
        return FALSE if value is None else both(there, pattern(value, fp.pattern, st))
    if fp.kind == "extract" and fp.extractor is not None and fp.extractor.name == "glob":
        value = rec.entries.get(fp.key)
        if value is None:
            return FALSE
        if not isinstance(value, Val) or value.typ != "string":
            raise NotNative("a glob over a value that is not statically a string")
        return both(there, glob_test(value.ir, fp.extractor.rule))
    raise NotNative(f"record-pattern field test `{fp.kind}`")


def assign(let: S.Let, st: State) -> None:
    """``let``: a local, the whole event, or a key path below ``event``."""
    target, value = let.target, ev(let.value, st)
    if st.meta_unread and S.is_meta_key(target):
        if target.segments[0].name == "class":  # type: ignore[union-attr]
            st.meta_class = value  # what a routing bucket reads
        return  # otherwise a dead store: only the value's checks count
    if target.root == "local" and not target.segments:
        st.local[target.name or ""] = value
        return
    if target.root != "event":
        raise NotNative(f"`let` into `{target.root}`")
    if not target.segments:
        if not isinstance(value, Rec):
            raise NotNative("`let event =` a value that is not a record")
        st.event = value.copy()
        return
    keys = [seg_key(seg) for seg in target.segments]
    rec = st.event
    for key in keys[:-1]:
        rec = rec.child_for_write(key, st.checks)
    rec.upsert(keys[-1], value, st.checks)


def ev(expr: S.Expr, st: State) -> Val | Rec:
    """The value of ``expr`` (checks for nullable reads go to ``st.checks``)."""
    return evaluate(expr, st)


def _size(tree: tuple) -> int:
    if tree[0] == "branch":
        return 1 + sum(_size(sub) for _, sub in tree[2])
    return 1
