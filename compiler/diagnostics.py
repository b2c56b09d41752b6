"""The one diagnostic type of the compiler, rendered in Tremor's exact format.

Every user-facing compile problem is a :class:`CompileError` (or a :class:`Warning_` collected on
the side). Nothing else may escape the CLI: it catches ``CompileError`` and prints ``render()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime_support.tremor.highlight import render

from .source import Source, Span


class CompileError(Exception):
    """A compile-time error with the span to underline and, optionally, a wider context span."""

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        *,
        outer: Span | None = None,
        hint: str | None = None,
        source: Source | None = None,
        text_end: int | None = None,
    ) -> None:
        super().__init__(message)
        self.text_end = text_end
        self.message = message
        self.span = span
        self.outer = outer
        self.hint = hint
        self.source = source

    def with_source(self, source: Source) -> CompileError:
        """Attach the source the spans point into, unless one is attached already."""
        if self.source is None:
            self.source = source
        return self

    def render(self) -> str:
        """Tremor's rendering: ``Error: `` then numbered lines with a caret callout."""
        if self.source is None or self.span is None:
            return f"Error: {self.message}"
        return render(
            self.source.text,
            inner=self.span.as_tuple(),
            outer=self.outer.as_tuple() if self.outer else None,
            message=self.message,
            hint=self.hint,
            text_end=self.text_end,
        )


@dataclass(frozen=True, slots=True)
class Warning_:
    """A compile-time warning: ``Warning(<class>): `` header, otherwise like an error."""

    kind: str
    message: str
    span: Span
    source: Source
    outer: Span | None = None

    def render(self) -> str:
        return render(
            self.source.text,
            inner=self.span.as_tuple(),
            outer=self.outer.as_tuple() if self.outer else None,
            message=self.message,
            header=f"Warning({self.kind}): ",
        )
