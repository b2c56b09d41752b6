"""The abstract run behind :mod:`compiler.passes.bucket_routing`: what a script's events carry
in ``$class`` and ``$rate`` when they leave on given ports.

The run follows the script's top-level expressions (and the bodies of its ``match`` cases) with
a :class:`State`. An ``emit`` whose port may be one of the bucket's ports records the state it
leaves with (:func:`emissions`); so does the end of the script for ``out``. The caller judges
those states (:func:`routes_only`, :func:`always_classed`). Anything not modelled raises
:class:`Unproven`: the caller then keeps the bucket stateful.

Invariant: every path of the real script reaching an emission on one of ``ports`` leaves with
metadata whose ``$class`` kind is in ``State.classes`` and ``$rate`` kind in ``State.rates``,
and every local named in ``State.strings`` holds one of its listed strings there. A path that
fails (a ``match`` no case of which matches) reaches ``err``, never ``ports``: it adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..ast import script as S

__all__ = [
    "EMPTY",
    "UNKNOWN",
    "Scans",
    "State",
    "Unproven",
    "always_classed",
    "emissions",
    "routes_only",
]

#: Kinds of a metadata key's value: absent, string, int (a Tremor u64), anything else.
ABSENT, STR, INT, OTHER = "absent", "str", "int", "other"
ANY = frozenset({ABSENT, STR, INT, OTHER})
_KEYS = ("class", "rate")


@dataclass(frozen=True, slots=True)
class State:
    """What an abstract run knows at one point of a script.

    ``classes`` / ``rates``: the kinds ``$class`` / ``$rate`` may have. ``strings``: locals that
    were assigned only string literals on every path so far, with the strings they may hold (a
    local missing here is unknown: unassigned, or assigned something else). Never mutated.
    """

    classes: frozenset[str]
    rates: frozenset[str]
    strings: Mapping[str, frozenset[str]] = field(default_factory=dict)


#: The input's metadata is not known.
UNKNOWN = State(ANY, ANY)
#: The input carries no metadata (``$`` is empty): no ``$class``, no ``$rate``.
EMPTY = State(frozenset({ABSENT}), frozenset({ABSENT}))


class Unproven(Exception):
    """The analysis met something it does not model."""


def emissions(
    script: S.Script, ports: frozenset[str], start: State, scans: Scans | None = None
) -> list[State]:
    """The states with which ``script``'s events may leave on ``ports`` (one per emission
    site, the end of the script for ``out``); its input events are described by ``start``.
    Raises :class:`Unproven` when the script does something the run does not model. ``scans``:
    the walks of earlier runs over the same script to reuse."""
    if "err" in ports:
        raise Unproven  # error records carry the failed event's metadata
    scans = Scans() if scans is None else scans
    for item in script.items:
        if isinstance(item, S.FnDef):
            for expr in (*item.body, *(c for case in item.cases for c in case.body)):
                scans.inert(expr)
    body = [i for i in script.items if isinstance(i, S.Expr) and not isinstance(i, S.Const)]
    found: list[State] = []
    end = _Run(ports, found.append, scans).run(body, start)
    if end is not None and "out" in ports:
        found.append(end)
    return found


class Scans:
    """What one walk of a node finds, kept for the runs of one analysis (a script is run once
    per bucket, port set and start): whether the node is inert (neither assigns ``$``, emits
    nor drops anywhere inside) and the locals it may bind (``let``, a pattern's ``x = …`` or
    alias, a ``for`` case's key and value). Keyed by the node's id, the node held meanwhile."""

    def __init__(self) -> None:
        self._found: dict[int, tuple[S.Node, bool, frozenset[str]]] = {}

    def _scan(self, node: S.Node) -> tuple[S.Node, bool, frozenset[str]]:
        found = self._found.get(id(node))
        if found is None:
            found = self._found[id(node)] = (node, *_walk_once(node))
        return found

    def inert(self, node: S.Node) -> None:
        """Raise :class:`Unproven` unless ``node`` is inert."""
        if not self._scan(node)[1]:
            raise Unproven

    def forget(self, state: State, *nodes: S.Node) -> State:
        """``state`` without the locals ``nodes`` may bind anywhere inside."""
        if not state.strings:
            return state
        bound = frozenset().union(*(self._scan(node)[2] for node in nodes))
        if not bound & state.strings.keys():
            return state
        strings = {k: v for k, v in state.strings.items() if k not in bound}
        return State(state.classes, state.rates, strings)


def _walk_once(node: S.Node) -> tuple[bool, frozenset[str]]:
    """Whether ``node`` is inert, and the locals it binds (see :class:`Scans`)."""
    inert, bound = True, set()
    for inner in node.walk():
        if isinstance(inner, S.Emit | S.Drop):
            inert = False
        elif isinstance(inner, S.Let):
            if inner.target.root == "meta":
                inert = False
            elif inner.target.root == "local" and inner.target.name:
                bound.add(inner.target.name)
        elif isinstance(inner, S.AssignPattern):
            bound.add(inner.name)
        elif isinstance(inner, S.FieldPredicate) and inner.alias:
            bound.add(inner.alias)
        elif isinstance(inner, S.ForCase):
            bound.update((inner.key, inner.value))
    return inert, frozenset(bound)


def routes_only(states: Iterable[State]) -> bool:
    """No event leaving with one of ``states`` has a string ``$class`` without an int ``$rate``
    (the bucket's route by ``$class`` then agrees with its rate limit's port class)."""
    return all(STR not in s.classes or s.rates == frozenset({INT}) for s in states)


def always_classed(states: Iterable[State]) -> bool:
    """Every event leaving with one of ``states`` has a string ``$class`` and an int ``$rate``
    (the bucket's route sends it to ``out``)."""
    return all(s.classes == frozenset({STR}) and s.rates == frozenset({INT}) for s in states)


Check = Callable[[State], object]


class _Run:
    """One abstract run: ``check`` gets the state of every emission on ``ports``."""

    __slots__ = ("ports", "check", "scans")

    def __init__(self, ports: frozenset[str], check: Check, scans: Scans) -> None:
        self.ports, self.check, self.scans = ports, check, scans

    def run(self, exprs: Iterable[S.Expr], state: State | None) -> State | None:
        """The state after ``exprs`` (None: every path emitted, dropped or failed)."""
        for expr in exprs:
            if state is None:
                return None
            state = self.step(expr, state)
        return state

    def step(self, expr: S.Expr, state: State) -> State | None:
        scans = self.scans
        match expr:
            case S.Emit(value=value, port=port):
                if value is not None:
                    scans.inert(value)
                    state = scans.forget(state, value)
                if _ports_of(port, state) & self.ports:
                    self.check(state)
                return None
            case S.Drop():
                return None
            case S.Let(target=target, value=value):
                scans.inert(value)
                state = scans.forget(state, value)
                if target.root == "meta":
                    return _assigned(state, target.segments, value)
                if target.root == "local":
                    return _local(state, target, value)
                return state
            case S.Match(target=target, cases=cases):
                scans.inert(target)
                for case in cases:
                    if case.guard is not None:
                        scans.inert(case.guard)
                # locals bound by the target, a pattern (`case x = …`) or a guard: unknown in
                # every case (a failed case's partial bindings are not modelled)
                entry = scans.forget(state, target, *(c.pattern for c in cases), *_guards(cases))
                # no case matched: Tremor's runtime error, the event goes to `err` (no state)
                return _join([self.run(case.body, entry) for case in cases])
            case _:
                scans.inert(expr)
                return scans.forget(state, expr)


def _guards(cases: Iterable[S.MatchCase]) -> list[S.Expr]:
    return [case.guard for case in cases if case.guard is not None]


def _ports_of(port: S.Expr | None, state: State) -> frozenset[str]:
    """The ports an ``emit … => port`` may send to: ``out`` with none, a string literal, or a
    local (alone, or as the only part of an interpolation ``"#{ local }"``) that ``state`` knows
    holds one of some strings."""
    if port is None:
        return frozenset({"out"})
    if isinstance(port, S.Literal) and type(port.value) is str:
        return frozenset({port.value})
    if isinstance(port, S.StringInterp):
        parts = [part for part in port.parts if part != ""]
        if len(parts) == 1 and isinstance(parts[0], S.Path):
            port = parts[0]  # a string interpolated alone is that string
    if isinstance(port, S.Path) and port.root == "local" and not port.segments:
        known = state.strings.get(port.name or "")
        if known is not None:
            return known
    raise Unproven


def _local(state: State, target: S.Path, value: S.Expr) -> State:
    """``let name… = value``: a whole local assigned a string literal holds that string; any
    other assignment (a non-literal, a path into it) makes it unknown."""
    name = target.name or ""
    strings = {k: v for k, v in state.strings.items() if k != name}
    if not target.segments and isinstance(value, S.Literal) and type(value.value) is str:
        strings[name] = frozenset({value.value})
    return State(state.classes, state.rates, strings)


def _assigned(state: State, segments: tuple[S.Segment, ...], value: S.Expr) -> State | None:
    if not segments:  # `let $ = …` is Tremor's runtime error: the event goes to `err`
        return None
    first = segments[0]
    if not isinstance(first, S.FieldSeg):
        return State(ANY, ANY, state.strings)
    if first.name not in _KEYS:
        return state
    # a deeper path (`$class.x = …`) makes the key a record, or fails
    kind = _kind(value) if len(segments) == 1 else OTHER
    updated = frozenset({kind}) if kind is not None else ANY
    if first.name == "class":
        return State(updated, state.rates, state.strings)
    return State(state.classes, updated, state.strings)


def _kind(value: S.Expr) -> str | None:
    """The kind of a literal's value (None: not a literal, unknown)."""
    if isinstance(value, S.StringInterp):
        return STR
    if not isinstance(value, S.Literal):
        return None
    if type(value.value) is str:
        return STR
    if type(value.value) is int and value.value >= 0:
        return INT
    return OTHER


def _join(states: list[State | None]) -> State | None:
    """The state where paths meet: kinds united; a local stays known only when every live path
    knows it (its strings united)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    names = set(live[0].strings).intersection(*(s.strings for s in live[1:]))
    return State(
        frozenset().union(*(s.classes for s in live)),
        frozenset().union(*(s.rates for s in live)),
        {name: frozenset().union(*(s.strings[name] for s in live)) for name in names},
    )
