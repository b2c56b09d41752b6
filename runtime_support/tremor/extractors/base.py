"""The extractor protocol shared by every ``~ name|rule|`` kind."""

from __future__ import annotations

from typing import Any

__all__ = [
    "Extractor",
    "ExtractorError",
    "NO_MATCH",
]


class _NoMatch:
    """Sentinel: the input did not match (distinct from every Tremor value, ``null`` included)."""

    _instance: _NoMatch | None = None

    def __new__(cls) -> _NoMatch:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_MATCH"

    def __bool__(self) -> bool:
        return False


NO_MATCH: Any = _NoMatch()


class ExtractorError(ValueError):
    """An invalid rule; ``str()`` is Tremor's full ``Invalid tilde predicate pattern: …`` text."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"Invalid tilde predicate pattern: {detail}")
        self.detail = detail


class Extractor:
    """A compiled ``~ name|rule|``; subclasses implement :meth:`run` on string input."""

    name = ""

    def __init__(self, rule: str) -> None:
        self.rule = rule

    def run(self, text: str, ctx: Any) -> Any:
        """Extract from a string: the result value or :data:`NO_MATCH`."""
        raise NotImplementedError

    def extract(self, value: Any, ctx: Any = None) -> Any:
        """The extracted value, or :data:`NO_MATCH` (always for non-string input)."""
        if type(value) is not str:
            return NO_MATCH
        return self.run(value, ctx)

    def is_match(self, value: Any, ctx: Any = None) -> bool:
        """True if :meth:`extract` would not give :data:`NO_MATCH`."""
        return self.extract(value, ctx) is not NO_MATCH
