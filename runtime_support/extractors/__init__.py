"""Tremor's tilde extractors (``~ name|rule|``).

>>> ex = compile_extractor("re", "bad(?P<snot>.*)")
>>> ex.extract("badger"), ex.extract(7), ex.is_match("cat")
({'snot': 'ger'}, NO_MATCH, False)
>>> try:
...     compile_extractor("snot", "")
... except ValueError as e:
...     print(e)
Invalid tilde predicate pattern: Unsupported extractor snot
"""

from __future__ import annotations

from runtime_support.extractors.base import NO_MATCH, Extractor, ExtractorError
from runtime_support.extractors.dissect import Dissect
from runtime_support.extractors.grok import Grok
from runtime_support.extractors.simple import Base64, DatetimeEx, Glob, JsonEx, Re, Rerg
from runtime_support.extractors.structured import Cidr, Influx, Kv

__all__ = [
    "Extractor",
    "ExtractorError",
    "KINDS",
    "NO_MATCH",
    "compile_extractor",
]

KINDS: dict[str, type[Extractor]] = {
    cls.name: cls for cls in (Re, Rerg, Glob, Base64, JsonEx, Kv, Dissect, Grok, Cidr, Influx)
}
KINDS["datetime"] = DatetimeEx


def compile_extractor(name: str, rule: str) -> Extractor:
    """Compile ``~ name|rule|``; raises :class:`ExtractorError` (a ``ValueError``) if invalid."""
    cls = KINDS.get(name)
    if cls is None:
        raise ExtractorError(f"Unsupported extractor {name}")
    return cls(rule)
