"""runtime_support.spark.row_arrays: the fast builders give the arrays pyarrow's own conversion
gives."""

from __future__ import annotations

import pyarrow as pa
import pytest

from runtime_support.spark.row_arrays import column_array, line_bytes, path_array, text_array


@pytest.mark.parametrize(
    "paths",
    [[], [[0]], [[0]] * 5, [[]] * 3, [[0, 1], [2], [], [3, 4, 5]], [[1, 2]] * 4],
)
def test_path_array_is_pyarrows_list_array(paths) -> None:
    assert path_array(paths).equals(pa.array(paths, pa.list_(pa.int64())))


@pytest.mark.parametrize(
    "values",
    [
        [b'{"a":1}', b"[]", b'"\xc3\xa9"'],  # all UTF-8 bytes: one concatenation
        [b"1", "2", None],  # mixed: row by row
        ["é", "x"],
        [b""],
    ],
)
def test_text_array_is_pyarrows_string_array(values) -> None:
    texts = [v.decode() if isinstance(v, bytes) else v for v in values]
    assert text_array(values).equals(pa.array(texts, pa.string()))


@pytest.mark.parametrize("mostly_same", [True, False])
@pytest.mark.parametrize(
    "values, kind",
    [
        ([7, 7, 7], pa.int32()),
        ([None, None], pa.string()),
        (["out", "err"], pa.string()),
        ([], pa.int32()),
    ],
)
def test_column_array_is_pyarrows_array(values, kind, mostly_same) -> None:
    assert column_array(values, kind, mostly_same).equals(pa.array(values, kind))


def test_line_bytes_keeps_every_line_as_bytes() -> None:
    lines = ["{}", "é", None]
    assert line_bytes(pa.array(lines, pa.string())).to_pylist() == [b"{}", "é".encode(), None]
    large = line_bytes(pa.array(lines, pa.large_string()))
    assert large.type == pa.large_binary()
    assert large.to_pylist() == [b"{}", "é".encode(), None]
    raw = pa.array([b"\xff"], pa.binary())  # not UTF-8: passed on as it is
    assert line_bytes(raw) is raw
