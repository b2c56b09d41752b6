"""Tremor's compile-time warnings for tremor-script (``script_warnings``).

A read-only pass: it never changes the tree, it returns :class:`Warning_` values sorted by
position. Classes and messages are Tremor's: ``performance`` (std functions with a faster
operator form, ``nanotime``), ``general`` (``use <op>`` folds), ``consistency`` (lower-case
consts), ``behaviour`` (unreachable ``case _``, contradictory record-pattern tests).
"""

from __future__ import annotations

from runtime_support.tremor.highlight import expand_lines

from ..ast import script as S
from ..ast.common import with_subclasses
from ..diagnostics import Warning_
from ..source import Source, Span

PERF_CALLS = {
    ("array", "push"): "`array::push(the_array, element)` can be replaced by "
    "`the_array + [element]` for better performance",
    ("array", "concatenate"): "`array::concatenate(one_array, two_array)` can be replaced by "
    "`one_array + two_array` for better performance",
    ("record", "contains"): "`record::contains(the_record, key)` can be replaced by "
    "`present the_record[key]` for better performance",
    ("record", "combine"): "`record::combine(one_record, two_record)` can be replaced by "
    "`one_record + two_record` for better performance",
    ("system", "nanotime"): "`nanotime` requires a call to the operating system's time subsystem "
    "for each invocation, using `ingest_ns` as an alternative where possible is preferable.",
}
FOLD_OP = "The `use <op>` syntax is experimental and may be deprecated or replaced"
LOWER_CONST = "const's are canonically written in UPPER_CASE"
EXTRA_DEFAULT = "Any but the first `case _` statement are unreachable and will be ignored."
ABSENT_AND_EXTRACT = (
    "The field {key} is checked with both absence and another extractor, this test can never be "
    "true."
)
PRESENT_AND_EXTRACT = (
    "The field {key} is checked with both present and another extractor, this is redundant as "
    "extractors imply presence. It may also overwrite the result of the extractor."
)


def tight(span: Span, text: str) -> Span:
    """``span`` without trailing whitespace and ``;`` (parse spans may include both)."""
    end = span.end
    while end > span.start and text[end - 1] in " \t\r\n;":
        end -= 1
    return Span(span.start, end)


class _Collector:
    def __init__(self, source: Source):
        self.source = source
        self.found: list[Warning_] = []

    def add(self, kind: str, message: str, span: Span, outer: Span | None = None) -> None:
        inner = tight(span, self.source.text)
        if outer is None:
            outer = Span(*expand_lines(self.source.text, inner.as_tuple(), 2, 2))
        self.found.append(Warning_(kind, message, inner, self.source, outer=outer))

    def call(self, node: S.Call) -> None:
        message = PERF_CALLS.get((node.module[-1] if node.module else "", node.name))
        if message:
            self.add("performance", message, node.span)

    def for_(self, node: S.For) -> None:
        if node.fold_op is not None:
            self.add("general", FOLD_OP, node.span, outer=tight(node.span, self.source.text))

    def const(self, node: S.Const) -> None:
        if not node.name.isupper():
            self.add("consistency", LOWER_CONST, node.span)

    def defaults(self, match: S.Match) -> None:
        defaults = [c for c in match.cases if isinstance(c.pattern, S.AnyPattern) and not c.guard]
        outer = tight(match.span, self.source.text)
        for case in defaults[1:]:
            self.add("behaviour", EXTRA_DEFAULT, case.span, outer=outer)

    def record_pattern(self, pattern: S.RecordPattern) -> None:
        kinds: dict[str, set[str]] = {}
        for field in pattern.fields:
            kinds.setdefault(field.key, set()).add(field.kind)
        for key, seen in kinds.items():
            if "extract" in seen and "absent" in seen:
                self.add("behaviour", ABSENT_AND_EXTRACT.format(key=key), pattern.span)
            elif "extract" in seen and "present" in seen:
                self.add("behaviour", PRESENT_AND_EXTRACT.format(key=key), pattern.span)


#: The :class:`_Collector` method of each node class that can warn (one dict lookup per node).
_VISITS = with_subclasses(
    {
        S.Call: "call",
        S.For: "for_",
        S.Const: "const",
        S.Match: "defaults",
        S.RecordPattern: "record_pattern",
    }
)


def collect_warnings(tree: S.Node, source: Source) -> tuple[Warning_, ...]:
    """All warnings of ``tree`` (a parsed script), in source order."""
    collector = _Collector(source)
    for node in tree.walk():
        visit = _VISITS.get(node.__class__)
        if visit is not None:
            getattr(collector, visit)(node)
    return tuple(sorted(collector.found, key=lambda w: (w.span.start, w.span.end)))
