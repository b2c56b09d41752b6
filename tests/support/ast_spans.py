"""An AST with its spans: AST equality leaves spans out (rewritten trees compare equal), so the
parse tests that must also agree on where each node is compare :func:`spanned` trees."""

from __future__ import annotations

import dataclasses
from typing import Any


def spanned(tree: Any) -> Any:
    """``tree`` as nested tuples of each node's class, span and fields, in field order."""
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        span = getattr(tree, "span", None)
        where = None if span is None else (span.start, span.end)
        values = tuple(spanned(getattr(tree, f.name)) for f in dataclasses.fields(tree))
        return (type(tree).__name__, where, values)
    if isinstance(tree, (tuple, list)):
        return tuple(spanned(item) for item in tree)
    if isinstance(tree, dict):
        return tuple((key, spanned(value)) for key, value in tree.items())
    return tree
