"""A parsimonious grammar's expressions and parse nodes, without parsimonious.

:func:`from_parsimonious` copies a parsimonious ``Grammar`` into the slotted classes below, which
carry the attributes :mod:`~compiler.parse.fastpeg`, :mod:`~compiler.parse.start_sets` and
:mod:`~compiler.parse.regular` read (``name``, ``literal``, ``members``, ``negativity``, ``min``,
``max``, a regex's ``pattern`` and ``flags``); :class:`Node` and :class:`RegexNode` carry what
the visitors read of parsimonious' nodes (``expr``, ``full_text``, ``start``, ``end``,
``children``, ``text``, ``expr_name``). The copy is made when the grammar cache is
built and is what it stores (:func:`compiler.grammar.load_peg`), so a build whose program parses
imports neither parsimonious nor ``regex``.

Invariants: the copy is the grammar's graph, node for node: one object per parsimonious
expression (shared subexpressions stay shared, cycles stay cycles), of the same kind, name and
attributes; the default rule comes first. A regex keeps parsimonious' ``regex``-module flags
(``UNICODE | VERSION0`` unless the rule gives its own); :meth:`Regex.stdlib` compiles it with
Python's ``re`` (for plain texts, see ``fastpeg._PLAIN``) and :attr:`Regex.re` with ``regex``,
importing it only then. An expression kind not listed here is copied as :class:`Unsupported`,
which the fast matcher gives up on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import parsimonious

#: The ``regex`` flags parsimonious compiles a grammar regex with when the rule gives none:
#: ``regex.UNICODE | regex.VERSION0``.
PLAIN_FLAGS = 32 | 8192

# ``regex`` flags Python's ``re`` reads the same (same bits): IGNORECASE, MULTILINE, DOTALL,
# VERBOSE; UNICODE is ``re``'s default for str patterns, VERSION0 is ``re``'s own behaviour.
_SHARED_FLAGS = 2 | 8 | 16 | 64


class Expression:
    """A grammar expression: ``name`` is its rule's name, or "" for a subexpression."""

    __slots__ = ("name",)

    def __init__(self, name: str = "") -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name or '(unnamed)'}>"


class Literal(Expression):
    __slots__ = ("literal",)

    def __init__(self, literal: str, name: str = "") -> None:
        super().__init__(name)
        self.literal = literal


class Regex(Expression):
    """A regex terminal: ``pattern`` with parsimonious' ``regex``-module ``flags``."""

    __slots__ = ("pattern", "flags", "_stdlib", "_regex")

    def __init__(self, pattern: str, flags: int = PLAIN_FLAGS, name: str = "") -> None:
        super().__init__(name)
        self.pattern = pattern
        self.flags = flags
        self._stdlib: Any = None
        self._regex: Any = None

    def stdlib(self) -> re.Pattern[str] | None:
        """The pattern compiled by Python's ``re`` with the same flags, or None when ``re``
        does not take the pattern or a flag has no ``re`` equivalent."""
        if self._stdlib is None:
            compiled: Any = False
            if not self.flags & ~(_SHARED_FLAGS | PLAIN_FLAGS):
                try:
                    compiled = re.compile(self.pattern, self.flags & _SHARED_FLAGS)
                except re.error:
                    pass
            self._stdlib = compiled
        return self._stdlib or None

    @property
    def re(self) -> Any:
        """The pattern compiled by ``regex`` as parsimonious compiles it (imports ``regex``)."""
        if self._regex is None:
            import regex

            self._regex = regex.compile(self.pattern, self.flags)
        return self._regex

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        return None, {"name": self.name, "pattern": self.pattern, "flags": self.flags}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for key, value in state[1].items():
            setattr(self, key, value)
        self._stdlib = self._regex = None


class Compound(Expression):
    """An expression over ``members`` (a list, filled in after creation for cycles)."""

    __slots__ = ("members",)

    def __init__(self, members: list[Expression] | None = None, name: str = "") -> None:
        super().__init__(name)
        self.members = members or []


class Sequence(Compound):
    __slots__ = ()


class OneOf(Compound):
    """An ordered choice; ``layouts``: the fast matcher's dispatch layouts, by whether they are
    read after a leading whitespace rule (``fastpeg.precompute_layouts`` fills them before the
    grammar cache is written, so a build reads them instead of computing them)."""

    __slots__ = ("layouts",)

    def __init__(self, members: list[Expression] | None = None, name: str = "") -> None:
        super().__init__(members, name)
        self.layouts: dict[bool, Any] = {}


class Lookahead(Compound):
    """``&member`` (``negativity`` False) or ``!member`` (True)."""

    __slots__ = ("negativity",)

    def __init__(
        self, members: list[Expression] | None = None, negativity: bool = False, name: str = ""
    ) -> None:
        super().__init__(members, name)
        self.negativity = negativity


class Quantifier(Compound):
    """``member{min,max}`` (``max`` may be ``float("inf")``)."""

    __slots__ = ("min", "max")

    def __init__(
        self,
        members: list[Expression] | None = None,
        min: int = 0,  # noqa: A002 - parsimonious' attribute names
        max: float = float("inf"),  # noqa: A002
        name: str = "",
    ) -> None:
        super().__init__(members, name)
        self.min = min
        self.max = max


class Unsupported(Compound):
    """A parsimonious expression kind the fast matcher does not know (``kind``: its class)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str = "", name: str = "") -> None:
        super().__init__(None, name)
        self.kind = kind


class Grammar(dict):  # type: ignore[type-arg]
    """Rules by name, the default rule first (as parsimonious' ``Grammar``)."""

    __slots__ = ("default_rule",)

    def __init__(self, rules: Any = (), default_rule: Expression | None = None) -> None:
        super().__init__(rules)
        self.default_rule = default_rule


class Node:
    """A parse node, as parsimonious' ``Node``: ``expr`` matched ``full_text[start:end]``."""

    __slots__ = ("expr", "full_text", "start", "end", "children")

    def __init__(
        self,
        expr: Any,
        full_text: str,
        start: int,
        end: int,
        children: list[Node] | None = None,
    ) -> None:
        self.expr = expr
        self.full_text = full_text
        self.start = start
        self.end = end
        self.children = children or []

    @property
    def expr_name(self) -> str:
        return self.expr.name  # type: ignore[no-any-return]

    @property
    def text(self) -> str:
        return self.full_text[self.start : self.end]

    def __iter__(self) -> Any:
        return iter(self.children)

    def prettily(self, error: Node | None = None) -> str:
        """parsimonious' rendering of the tree (its ``VisitationError`` shows it)."""

        def indent(text: str) -> str:
            return "\n".join("    " + line for line in text.splitlines())

        named = f' called "{self.expr_name}"' if self.expr_name else ""
        here = "  <-- *** We were here. ***" if error is self else ""
        lines = [f'<{type(self).__name__}{named} matching "{self.text}">{here}']
        lines.extend(indent(child.prettily(error=error)) for child in self)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.prettily()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.expr_name!r} {self.start}:{self.end}>"


class RegexNode(Node):
    """The node of a regex terminal; ``match``: its match object in parsimonious' trees, None in
    the fast matcher's (no visitor reads it: the node's span is the match)."""

    __slots__ = ("match",)


def all_expressions(roots: Iterable[Any]) -> Iterator[Any]:
    """Every expression reachable from ``roots``, each once (parsimonious' expressions or this
    module's copies: both keep a compound's ``members``; cycles are fine)."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        expr = stack.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        yield expr
        stack.extend(getattr(expr, "members", ()))


def from_parsimonious(
    grammar: parsimonious.Grammar, memo: dict[int, Expression] | None = None
) -> Grammar:
    """``grammar`` copied into this module's classes (see the module doc); ``memo`` (filled
    here) maps the id of each parsimonious expression to its copy."""
    memo = {} if memo is None else memo
    rules = Grammar(default_rule=None)
    if grammar.default_rule is not None:
        rules.default_rule = _copy(grammar.default_rule, memo)
    for name, expr in grammar.items():
        rules[name] = _copy(expr, memo)
    return rules


def _copy(root: Any, memo: dict[int, Expression]) -> Expression:
    """The copy of ``root`` and of every expression it reaches not yet in ``memo`` (iteratively:
    a grammar is deep); the members of a compound are linked once every copy exists."""
    from parsimonious import expressions as p

    pending, compounds = [root], []
    while pending:
        expr = pending.pop()
        if id(expr) in memo:
            continue
        kind, name = type(expr), expr.name
        copy: Expression
        if kind is p.Literal:
            copy = Literal(expr.literal, name)
        elif kind is p.Regex:
            copy = Regex(expr.re.pattern, expr.re.flags, name)
        elif kind is p.Sequence:
            copy = Sequence(None, name)
        elif kind is p.OneOf:
            copy = OneOf(None, name)
        elif kind is p.Lookahead:
            copy = Lookahead(None, expr.negativity, name)
        elif kind is p.Quantifier:
            copy = Quantifier(None, expr.min, expr.max, name)
        else:
            copy = Unsupported(kind.__name__, name)
        memo[id(expr)] = copy
        if type(copy) is not Unsupported and isinstance(copy, Compound):
            compounds.append((expr, copy))
            pending.extend(expr.members)
    for expr, copy in compounds:
        copy.members = [memo[id(member)] for member in expr.members]
    return memo[id(root)]
