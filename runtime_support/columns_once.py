"""Spark Columns a job builds the same way every run, built once per JVM.

Building a Column in classic PySpark is a round trip to the JVM per function, literal and name
(``F.col`` alone is three): a job's fixed expressions (its row-format casts, its output
filters, the typed plan's escape rewrite) cost hundreds of round trips, a few tenths of a second
of the driver's time per job, however few its events. A Column names its inputs, it is bound to
no DataFrame, so one built Column serves every plan of the same JVM.

Invariant: a key names exactly one expression (its builder is a pure function of the key); the
cache lives as long as the py4j gateway of the JVM that holds its Columns. Under Spark Connect a
Column is a local description (no round trip), so nothing is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["column_once"]

_BUILT: dict[Hashable, Any] = {}
_GATEWAY: list[Any] = [None]


def column_once(spark: Any, key: Hashable, build: Callable[[], Any]) -> Any:
    """The Column (or tuple of Columns) ``build()`` returns for ``key``, built on the first
    call in this JVM and reused after."""
    from .session import is_connect

    if is_connect(spark):
        return build()
    gateway = spark.sparkContext._gateway  # classic-only
    if _GATEWAY[0] is not gateway:  # a new JVM: Columns of another one are not valid here
        _BUILT.clear()
        _GATEWAY[0] = gateway
    try:
        built = _BUILT.get(key)
    except TypeError:  # a key holding a list or a record: built each time, still exact
        return build()
    if built is None:
        built = _BUILT[key] = build()
    return built
