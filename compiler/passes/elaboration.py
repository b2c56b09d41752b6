"""The context of one program's elaboration: the script front end, its once-only cache and the
warnings it collects.

The driver (:mod:`compiler.pipeline`) builds one :class:`Elaboration` per program and hands it to
the trickle and troy elaborators, so no pass imports the driver. Invariant: every embedded script
(one tuple of items under one ``use`` scope in one source) passes the front end exactly once per
program, however often its definition is created or checked; later requests get the same result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..ast import script as S
from ..diagnostics import Warning_
from ..source import Source

Front = Callable[[S.Script, Source], S.Script]
T = TypeVar("T")


@dataclass
class Elaboration:
    """One program's front end plus the scripts it already checked (keyed by node identity)."""

    front: Front
    _done: dict[tuple[int, ...], tuple[object, S.Script]] = field(default_factory=dict)
    _made: dict[tuple[str, int], tuple[object, Any]] = field(default_factory=dict)
    warnings: list[Warning_] = field(default_factory=list)  # the warnings pass appends here
    runs: int = 0  # how many scripts went through the front end (tests read it)

    def sorted_warnings(self, source: Source) -> tuple[Warning_, ...]:
        """The warnings of ``source``'s own text, each once, in source order."""
        seen: dict[tuple[int, int, str, str], Warning_] = {}
        for w in self.warnings:
            if w.source is source or w.source.name == source.name:
                seen.setdefault((w.span.start, w.span.end, w.kind, w.message), w)
        return tuple(sorted(seen.values(), key=lambda w: (w.span.start, w.span.end)))

    def once(self, tag: str, anchor: object, make: Callable[[], T]) -> T:
        """``make()`` the first time (``tag``, ``anchor``) is asked for, the same object after
        (rewritten AST must be one object for :meth:`script` to recognise it)."""
        key = (tag, id(anchor))
        if key not in self._made:
            self._made[key] = (anchor, make())
        return self._made[key][1]  # type: ignore[no-any-return]

    def script(
        self, prelude: tuple[S.TopLevel, ...], items: tuple[S.TopLevel, ...], source: Source
    ) -> S.Script:
        """``prelude + items`` through the front end, once per identical (by identity) input.

        Identity, not equality: AST equality ignores spans, and a checked script's spans must
        be those of the text it came from.
        """
        key = (id(source), *map(id, prelude), -1, *map(id, items))
        done = self._done.get(key)
        if done is None:
            self.runs += 1
            done = (
                (source, prelude, items),
                self.front(S.Script(items=(*prelude, *items)), source),
            )
            self._done[key] = done  # the pinned inputs keep their ids unique while cached
        return done[1]
