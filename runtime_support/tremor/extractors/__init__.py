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

import importlib

from runtime_support.tremor.extractors.base import NO_MATCH, Extractor, ExtractorError

__all__ = [
    "Extractor",
    "ExtractorError",
    "KINDS",
    "NO_MATCH",
    "compile_extractor",
]

#: Each extractor's module and class: a module is imported when a program first uses one of its
#: kinds (a build that checks one ``glob`` does not load grok's pattern tables or chrono).
KINDS: dict[str, tuple[str, str]] = {
    "re": ("simple", "Re"),
    "rerg": ("simple", "Rerg"),
    "glob": ("simple", "Glob"),
    "base64": ("simple", "Base64"),
    "json": ("simple", "JsonEx"),
    "datetime": ("simple", "DatetimeEx"),
    "kv": ("structured", "Kv"),
    "cidr": ("structured", "Cidr"),
    "influx": ("structured", "Influx"),
    "dissect": ("dissect", "Dissect"),
    "grok": ("grok", "Grok"),
}


def extractor_class(name: str) -> type[Extractor] | None:
    """The class of extractor kind ``name``, or None if there is none."""
    where = KINDS.get(name)
    if where is None:
        return None
    module = importlib.import_module(f"runtime_support.tremor.extractors.{where[0]}")
    return getattr(module, where[1])  # type: ignore[no-any-return]


def compile_extractor(name: str, rule: str) -> Extractor:
    """Compile ``~ name|rule|``; raises :class:`ExtractorError` (a ``ValueError``) if invalid."""
    cls = extractor_class(name)
    if cls is None:
        raise ExtractorError(f"Unsupported extractor {name}")
    return cls(rule)
