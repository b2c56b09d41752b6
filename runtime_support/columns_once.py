"""Spark Columns a job builds the same way every run, built once per JVM.

Building a Column in classic PySpark is a round trip to the JVM per function, literal and name
(``F.col`` alone is three): a job's fixed expressions (its row-format casts, its output
filters, the typed plan's escape rewrite) cost hundreds of round trips, a few tenths of a second
of the driver's time per job, however few its events. A Column names its inputs, it is bound to
no DataFrame, so one built Column serves every plan of the same JVM. The same holds for a
select's list of Columns (:func:`select_once`), a stage's Python UDF (:func:`map_in_arrow`) and
an empty frame.

Invariant: a key names exactly one object (its builder is a pure function of the key; an
unhashable part of a key is named by identity, :class:`Same`); the cache lives as long as the
py4j gateway of the JVM that holds its objects. Under Spark Connect a Column is a local
description (no round trip), so nothing is kept.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = [
    "Same",
    "by_name",
    "column_once",
    "is_empty_frame",
    "map_in_arrow",
    "mark_empty_frame",
    "select_once",
]

_BUILT: dict[Hashable, Any] = {}
_GATEWAY: list[Any] = [None]
#: The UDFs of :func:`map_in_arrow`, newest last. Bounded: a process that loads many jobs (a
#: test run) would otherwise keep every job's graph and pickled function.
_UDFS: OrderedDict[Hashable, Any] = OrderedDict()
UDFS_KEPT = 32
#: Frames that hold no row by construction (``port_frames.empty_frame``), held weakly.
_EMPTY_FRAMES: weakref.WeakSet = weakref.WeakSet()


def _same_jvm(spark: Any) -> None:
    """Forget what was built in another JVM (its objects are not valid in this one)."""
    gateway = spark.sparkContext._gateway  # classic-only
    if _GATEWAY[0] is not gateway:
        _BUILT.clear()
        _UDFS.clear()
        _GATEWAY[0] = gateway


def column_once(spark: Any, key: Hashable, build: Callable[[], Any]) -> Any:
    """The Column (or tuple of Columns) ``build()`` returns for ``key``, built on the first
    call in this JVM and reused after."""
    from runtime_support.spark.session import is_connect

    if is_connect(spark):
        return build()
    _same_jvm(spark)
    try:
        built = _BUILT.get(key)
    except TypeError:  # a key holding a list or a record: built each time, still exact
        return build()
    if built is None:
        built = _BUILT[key] = build()
    return built


def select_once(frame: Any, key: Hashable, build: Callable[[], tuple[Any, ...]]) -> Any:
    """``frame.select(*build())``, the columns ``build`` returns for ``key`` (Columns or names)
    handed to the JVM as one list built once: a select otherwise sends each of its columns
    again (a round trip per column, plus the list's own)."""
    from runtime_support.spark.session import is_connect

    spark = frame.sparkSession
    if is_connect(spark):
        return frame.select(*build())
    listed = column_once(spark, ("select_once", key), lambda: _jvm_columns(spark, build()))
    if listed is None:
        return frame.select(*build())
    from pyspark.sql.classic.dataframe import DataFrame

    return DataFrame(frame._jdf.select(listed), spark)


def _jvm_columns(spark: Any, columns: tuple[Any, ...]) -> Any:
    """The JVM's list (a Scala ``Seq``) of ``columns``; None where PySpark has no such helper."""
    try:
        from pyspark.sql.classic.column import _to_java_column, _to_seq
    except ImportError:
        return None
    return _to_seq(spark.sparkContext, columns, _to_java_column)  # classic-only


class Same:
    """A part of a key that stands for one object (equal only to itself, hashed by identity):
    for the values a key cannot hash, such as a job's ``GRAPH``. The cache keeps the object
    alive with its key, so its identity names it while cached."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def map_in_arrow(frame: Any, fn: Any, schema: Any) -> Any:
    """``frame.mapInArrow(fn, schema)``. When ``fn`` has a ``cache_key`` (the same key, the same
    function: ``stages.stage_mapper``), its Python UDF, pickled function and all, is handed to
    the JVM once per JVM (the :data:`UDFS_KEPT` latest): building it is some forty round trips
    and the pickle's transfer."""
    from runtime_support.spark.session import is_connect

    spark = frame.sparkSession
    key = getattr(fn, "cache_key", None)
    if key is None or is_connect(spark):
        return frame.mapInArrow(fn, schema)
    columns = tuple(frame.columns)
    _same_jvm(spark)
    key = (key, columns, schema)
    try:
        udf = _UDFS.get(key)
    except TypeError:  # an unhashable schema
        return frame.mapInArrow(fn, schema)
    if udf is None:
        udf = _UDFS[key] = _udf(fn, schema, columns)
        while len(_UDFS) > UDFS_KEPT:
            _UDFS.popitem(last=False)
    else:
        _UDFS.move_to_end(key)
    from pyspark.sql.classic.dataframe import DataFrame

    def build() -> Any:
        return DataFrame(frame._jdf.mapInArrow(udf._jc, False, None), spark)

    if is_empty_frame(frame):  # a stage over no event (a typed plan's): one per session
        return column_once(spark, ("over_empty", key, Same(frame)), build)
    return build()


def mark_empty_frame(frame: Any) -> Any:
    """``frame``, noted as holding no row whatever runs it (see :func:`is_empty_frame`)."""
    _EMPTY_FRAMES.add(frame)
    return frame


def is_empty_frame(frame: Any) -> bool:
    """``frame`` was built empty (:func:`mark_empty_frame`): a DataFrame is immutable, so what is
    built on it alone can be built once."""
    try:
        return frame in _EMPTY_FRAMES
    except TypeError:  # unhashable
        return False


def _udf(fn: Any, schema: Any, columns: tuple[str, ...]) -> Any:
    """What ``mapInArrow`` applies: ``fn`` as a map-over-Arrow UDF of ``columns``, by name."""
    from pyspark.sql.pandas.functions import pandas_udf
    from pyspark.util import PythonEvalType

    udf = pandas_udf(fn, returnType=schema, functionType=PythonEvalType.SQL_MAP_ARROW_ITER_UDF)
    return udf(*[by_name(name) for name in columns])


def by_name(name: str) -> Any:
    """The Column of the input column ``name``, whatever its characters (back-quoted)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")
