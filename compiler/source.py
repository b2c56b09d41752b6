"""Source files and spans.

A :class:`Span` is a half-open range of character offsets into one :class:`Source`. Every AST node
carries one; diagnostics render it with Tremor's highlighter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from runtime_support.tremor.highlight import line_col, line_starts


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open ``[start, end)`` character offsets into a source text."""

    start: int
    end: int

    def to(self, other: Span) -> Span:
        """The smallest span covering ``self`` and ``other``."""
        return Span(min(self.start, other.start), max(self.end, other.end))

    def as_tuple(self) -> tuple[int, int]:
        return (self.start, self.end)


NO_SPAN = Span(0, 0)


@dataclass(frozen=True)
class Source:
    """A program text and the name it was read from (used in messages, never in generated code
    beyond the header comment)."""

    name: str
    text: str
    path: Path | None = None
    root: Source | None = field(default=None, compare=False, repr=False)  # module: its program
    _starts: list[int] = field(default_factory=list, compare=False, repr=False)
    _mentions: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._starts.extend(line_starts(self.text))

    @classmethod
    def from_path(cls, path: Path) -> Source:
        """Read a file as UTF-8; undecodable bytes are reported by the lexer, not here."""
        data = path.read_bytes()
        return cls(name=str(path), text=data.decode("utf-8", errors="surrogateescape"), path=path)

    def mentions(self, word: str) -> bool:
        """Whether ``word`` occurs anywhere in the text (searched once per word: passes ask
        once per item of a program that may have thousands)."""
        found = self._mentions.get(word)
        if found is None:
            found = self._mentions[word] = word in self.text
        return found

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset``."""
        return line_col(self._starts, offset)
