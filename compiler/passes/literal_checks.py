"""Compile-time validation of binary-literal parts and extractor rules.

A read-only pass run right after parsing: afterwards every ``BinaryPart`` has 1..64 bits (or
none) and a known data type, and every extractor rule compiles (so generated jobs never meet an
invalid rule at run time).
"""

from __future__ import annotations

from ..ast import script as S
from ..diagnostics import CompileError
from ..source import Source, Span
from .warnings import tight

BINARY_TYPES = frozenset(
    {
        "binary",
        "integer",
        "unsigned_integer",
        "big_unsigned_integer",
        "big_integer",
        "unsigned",
        "big",
        "unsigned_big",
        "signed_integer",
        "big_signed_integer",
        "signed",
        "big_signed",
        "little",
        "little_integer",
        "little_unsigned_integer",
        "little_unsigned",
        "little_signed_integer",
        "little_signed",
    }
)


def _enclosing(tree: S.Node, target: S.Node, source: Source) -> Span | None:
    """Span of the innermost ``match`` around ``target`` (Tremor's context for pattern errors)."""
    best: Span | None = None
    for node in tree.walk():
        if isinstance(node, S.Match) and any(n is target for n in node.walk()):
            span = tight(node.span, source.text)
            if best is None or span.start >= best.start:
                best = span
    return best


def check_literals(tree: S.Node, source: Source) -> S.Node:
    """Raise the first invalid binary part or extractor rule as Tremor does; return ``tree``
    (parsed from ``source``: a text without ``<<`` holds no binary literal, one without ``~``
    no extractor, so neither is walked)."""
    if not source.mentions("~") and not source.mentions("<<"):
        return tree
    for node in tree.walk():
        if isinstance(node, S.BinaryPart):
            if node.bits is not None and not 0 < node.bits <= 64:
                raise CompileError(
                    f"negative bits or bits > 64 are are not allowed: {node.bits}",
                    node.span,
                    source=source,
                )
            if node.kind not in BINARY_TYPES:
                raise CompileError(
                    f"Not a valid data type: '{node.kind}'", node.span, source=source
                )
        elif isinstance(node, S.Extractor):
            # Imported here: most programs hold no extractor (grok, dissect, … load at first use).
            from runtime_support.tremor.extractors import ExtractorError, compile_extractor

            try:
                compile_extractor(node.name.lower(), node.rule)
            except ExtractorError as err:
                raise CompileError(
                    f"Invalid tilde predicate pattern: {err}".replace(
                        "Invalid tilde predicate pattern: Invalid tilde predicate pattern: ",
                        "Invalid tilde predicate pattern: ",
                    ),
                    node.span,
                    outer=_enclosing(tree, node, source),
                    source=source,
                ) from None
    return tree
