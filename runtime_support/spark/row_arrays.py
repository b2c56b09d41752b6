"""Arrow columns of a stage's rows (``seq, path, stage, target, key, event, value``), built from
Python values the fast way: offsets and flat values, repeated scalars, one concatenation of UTF-8
texts (pyarrow's conversion of Python objects, row by row, cost five to twenty times as much).

Invariant: :func:`path_array`, :func:`text_array` and :func:`column_array` return arrays equal to
``pa.array(values, type)`` of the same values (tests/runtime/spark/test_row_arrays.py compares
them).
"""

from __future__ import annotations

from itertools import accumulate, chain
from typing import Any

__all__ = ["MOSTLY_SAME", "column_array", "line_bytes", "path_array", "text_array"]


def path_array(paths: list[list[int]]) -> Any:
    """The ``path`` column built from its flat values and offsets (pyarrow converts a list of
    Python lists element by element, about twenty times slower); one path shared by every row
    (a fused chain's ``[0]``) is repeated, not read row by row."""
    import pyarrow as pa

    rows = len(paths)
    if rows and paths.count(paths[0]) == rows:
        size = len(paths[0])
        ends = pa.arange(0, size * rows + 1, size) if size else pa.array([0] * (rows + 1))
        offsets, flat = ends.cast(pa.int32()), pa.array(paths[0] * rows, pa.int64())
    else:
        offsets = pa.array(list(accumulate(map(len, paths), initial=0)), pa.int32())
        flat = pa.array(list(chain.from_iterable(paths)), pa.int64())
    return pa.ListArray.from_arrays(offsets, flat)


MOSTLY_SAME = frozenset(("stage", "target", "key", "event"))
"""The row columns that usually hold one value in a whole batch (job outputs on one port)."""


def column_array(values: list[Any], kind: Any, mostly_same: bool) -> Any:
    """The Arrow array of one row column; with ``mostly_same``, a column of one repeated value
    is made from that value (``list.count`` compares identical objects at C speed) instead of
    converting each row."""
    import pyarrow as pa

    if mostly_same and values and values.count(values[0]) == len(values):
        if values[0] is None:
            return pa.nulls(len(values), kind)
        return pa.repeat(pa.scalar(values[0], kind), len(values))
    return pa.array(values, kind)


def text_array(values: list[Any]) -> Any:
    """The ``value`` column (Arrow string) of texts given as ``str``, UTF-8 ``bytes`` (a chain's
    outputs, :func:`~.jsonio.encode_json_utf8`) or None. All bytes (the common case): their
    concatenation and offsets, one copy (a ``str`` per row and pyarrow's conversion of each
    cost five times as much)."""
    import numpy as np
    import pyarrow as pa

    if values and all(type(v) is bytes for v in values):
        data = b"".join(values)
        if len(data) < _MAX_INT32:
            offsets = np.zeros(len(values) + 1, np.int32)
            np.cumsum(np.fromiter(map(len, values), np.int32, len(values)), out=offsets[1:])
            buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
            return pa.Array.from_buffers(pa.string(), len(values), buffers)
    texts = [v.decode() if type(v) is bytes else v for v in values]
    return pa.array(texts, pa.string())


_MAX_INT32 = 2**31 - 1


def line_bytes(column: Any) -> Any:
    """An input ``value`` column as bytes: a string column cast to binary (large string to large
    binary; the same buffers, no UTF-8 check), any other as it is. The decoders read bytes, so a
    line that is not UTF-8 reaches them as it is and becomes an ``err`` record (see
    :mod:`~.input_lines`)."""
    import pyarrow as pa

    if pa.types.is_string(column.type):
        return column.cast(pa.binary())
    if pa.types.is_large_string(column.type):
        return column.cast(pa.large_binary())
    return column
