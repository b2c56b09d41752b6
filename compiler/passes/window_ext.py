"""The IR of tremorc's window extensions (docs/extensions.md): ``sliding``, ``session``
and event-time (``lateness``) windows, for :func:`compiler.passes.query_selects.window_ir`.

Needs: a ``define window`` whose ``with`` keys the registry accepted (names and types).
Establishes: a :class:`~compiler.ir.graph.Window` of kind ``sliding_size``,
``sliding_interval``, ``session`` or ``event_interval`` with ``amount`` ≥ 1, ``1 ≤ slide ≤
amount`` and ``amount / slide`` ≤ :data:`MAX_OVERLAP` for sliding windows, and ``lateness``
only with a time ``script`` (event time).
Errors: every bad combination, as a CompileError at the key (or clause) at fault naming what is
supported.
"""

from __future__ import annotations

from typing import Any

from ..ast import query as Q
from ..diagnostics import CompileError
from ..ir import graph as G
from ..source import Source, Span
from .query_scope import Scope, embed

#: The IR window kinds built here (runtime_support.tremor.windows_ext implements the same set).
EXT_KINDS = frozenset({"sliding_size", "sliding_interval", "session", "event_interval"})
#: The most windows one event of a sliding window may belong to (``ceil(amount / slide)``).
MAX_OVERLAP = 10_000
EVENT_TIME = "add a `script` returning the event's time in ns (event time)"


def is_extension(defn: Q.DefineWindow, config: dict[str, Any]) -> bool:
    """Does ``defn`` use a tremorc window extension (otherwise it is one of Tremor's)?"""
    return defn.kind.name != "tumbling" or "lateness" in config


class _Checker:
    """Raises CompileErrors at the spans of one definition's keys and clauses."""

    def __init__(self, defn: Q.DefineWindow, source: Source) -> None:
        self.defn, self.source = defn, source
        self.given = {e.key.name: e for e in defn.config}

    def fail(self, message: str, span: Span | None = None) -> CompileError:
        return CompileError(message, span or self.defn.kind.span, source=self.source)

    def key(self, name: str) -> Span:
        return self.given[name].key.span

    def value(self, name: str) -> Span:
        return self.given[name].value.span


def ext_window_ir(
    target: Q.Target, defn: Q.DefineWindow, config: dict[str, Any], wscope: Scope
) -> G.Window:
    """The IR of an extension window named ``target`` (see the module invariants)."""
    check = _Checker(defn, wscope.source)
    kind, amount, slide = _kind(check, config)
    _check_clauses(check, kind, config)
    script = reply = None
    if defn.script is not None:
        script = G.Embedded(script=embed(defn.script.items, wscope), source=wscope.source)
        reply = (defn.script.span.start, defn.script.span.end)
    return G.Window(
        name=target.name,
        kind=kind,
        amount=amount,
        script=script,
        reply_span=reply,
        max_groups=G.Constant(value=config["max_groups"]) if "max_groups" in config else None,
        slide=slide,
        lateness=config.get("lateness", 0),
        span=target.span,
    )


def _kind(check: _Checker, config: dict[str, Any]) -> tuple[str, int, int]:
    """``(kind, amount, slide)`` from the window kind and its keys."""
    name = check.defn.kind.name
    if name == "session":
        if config["gap"] < 1:
            raise check.fail("A session's `gap` must be at least 1 (ns)", check.value("gap"))
        return "session", config["gap"], 0
    measures = [k for k in ("size", "interval") if k in config]
    if name == "tumbling":
        if measures != ["interval"]:
            raise check.fail(
                "`lateness` is for event-time windows: a tumbling window with it needs "
                "`interval` (ns) and a time `script`",
                check.key("lateness"),
            )
        return "event_interval", _positive(check, "interval", config), config["interval"]
    if len(measures) != 1:
        raise check.fail(
            "Bad window configuration: a sliding window needs exactly one of `size` (events) "
            "or `interval` (ns), and `slide`",
            check.key(measures[1]) if measures else None,
        )
    amount = _positive(check, measures[0], config)
    slide = _positive(check, "slide", config)
    if slide > amount:
        raise check.fail(
            f"`slide` ({slide}) must not exceed `{measures[0]}` ({amount}): every event must "
            "belong to some window",
            check.value("slide"),
        )
    if -(-amount // slide) > MAX_OVERLAP:
        raise check.fail(
            f"`{measures[0]}` / `slide` = {-(-amount // slide)}: an event would belong to that "
            f"many windows; at most {MAX_OVERLAP} are supported",
            check.value("slide"),
        )
    return ("sliding_size" if measures[0] == "size" else "sliding_interval"), amount, slide


def _positive(check: _Checker, key: str, config: dict[str, Any]) -> int:
    if config[key] < 1:
        raise check.fail(f"`{key}` must be at least 1", check.value(key))
    return config[key]


def _check_clauses(check: _Checker, kind: str, config: dict[str, Any]) -> None:
    """``state``, ``script from tick`` and ``lateness`` against the kind."""
    defn = check.defn
    if defn.state is not None:
        raise check.fail(
            f"A {defn.kind.name} window takes no `state`: state windows are tumbling ones",
            defn.state.span,
        )
    if defn.named:
        raise check.fail(
            "`script from tick` is for tumbling state windows only", defn.named[0].port.span
        )
    if kind == "sliding_size":
        if defn.script is not None:
            raise check.fail(
                "A count-sliding window takes no `script` (weights: tumbling `size` windows)",
                defn.script.span,
            )
        if "lateness" in config:
            raise check.fail(
                "`lateness` is for time windows: a count window has no time", check.key("lateness")
            )
    elif "lateness" in config and defn.script is None:
        raise check.fail(f"`lateness` needs event time: {EVENT_TIME}", check.key("lateness"))
