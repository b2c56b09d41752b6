"""Lower a whole script over a typed input event (a declared schema) to the typed plan IR.

The plan is a decision tree (interpreted by ``runtime_support.native_typed``) over the parsed
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
checks only.

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
from .typed_values import CMP, as_bool, compare, equal, is_struct, seg_key

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
    meta_unread: bool = False  # nothing reads the ``$`` the script leaves with

    def fork(self) -> State:
        return State(
            self.event.copy(), self.ports, dict(self.local), [], self.line, self.meta_unread
        )


def typed_plan(
    script: S.Script, schema: tuple, ports: dict[str, str], meta_unread: bool = False
) -> tuple:
    """The typed plan of ``script`` over events of ``schema``; ``ports`` maps the script's
    output ports to job outputs; ``meta_unread``: nothing reads the ``$`` it leaves with
    (``ScriptNode.meta_unread``). Raises NotNative (with the reason) when it does not lower."""
    items = [item for item in script.items if not isinstance(item, DEFINITIONS)]
    if not items:
        raise NotNative("an empty script")
    event = rec_of(Val(("ev",), schema))
    tree = run(items, State(event, ports, line=event.ir()[1], meta_unread=meta_unread))
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
                return ("leaf", None, None, tuple(st.checks))
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
                return _leaf(value, st.ports.get("out"), st)
    except AlwaysPython:
        return ("python",)
    raise NotNative("a script that ends without a value")


def _leaf(value: Val | Rec, port: str | None, st: State) -> tuple:
    if not isinstance(value, Rec):
        raise NotNative("emits a value that is not a record")
    if port is None:
        raise NotNative("emits to a port that is not a job output")
    ir = value.ir()
    if ir[1][: len(st.line)] == st.line:
        # The input's keys, unchanged and in order, then new ones: the output is the input line
        # (it fits, so it is what to_json writes) with the new keys appended.
        ir = ("extend", ir[1][len(st.line) :])
    return ("leaf", port, ir, tuple(st.checks))


def _port(expr: S.Expr | None, st: State) -> str | None:
    if expr is None:
        return st.ports.get("out")
    if not isinstance(expr, S.Literal) or not isinstance(expr.value, str):
        raise NotNative("emit to a computed port")
    return st.ports.get(expr.value)


def branch(match: S.Match, rest: list, st: State) -> tuple:
    """A match: its cases in order, each continuing with ``rest`` (the statements after)."""
    target = ev(match.target, st)
    cases = []
    for case in match.cases:
        cond = pattern(target, case.pattern, st)
        if case.guard is not None:
            guard = ev(case.guard, st)
            cond = ("and", cond, as_bool(guard, "guard"))
        sub = st.fork()
        cases.append((cond, run([*case.body, *rest], sub)))
    return ("branch", tuple(st.checks), tuple(cases))


def pattern(target: Val | Rec, pat: S.Pattern, st: State) -> tuple:
    """Boolean IR: does ``target`` match ``pat``?"""
    if isinstance(pat, S.AnyPattern):
        return ("lit", True)
    if isinstance(pat, S.ExprPattern):
        return equal(target, ev(pat.expr, st), "eq")
    if not isinstance(pat, S.RecordPattern):
        raise NotNative(f"{type(pat).__name__} in a match")
    if not isinstance(target, Rec) and not is_struct(target):
        return ("lit", False)
    rec = target if isinstance(target, Rec) else rec_of(target)
    cond: tuple = ("lit", True)
    for fp in pat.fields:
        cond = ("and", cond, _field_test(rec, fp, st))
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
            return ("lit", False)
        test = compare(value, ev(fp.expr, st), CMP[fp.op])
        return ("and", there, test)
    raise NotNative(f"record-pattern field test `{fp.kind}`")


def assign(let: S.Let, st: State) -> None:
    """``let``: a local, the whole event, or a key path below ``event``."""
    target, value = let.target, ev(let.value, st)
    if st.meta_unread and S.is_meta_key(target):
        return  # a dead store: only the value's checks count
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
