"""The Python path of a typed job as an Arrow UDF inside the typed plan's own projection.

:func:`python_rows` returns a Column: for a row whose ``_py`` is TRUE, the stage rows the Python
graph makes of the event (the rows ``stage_mapper`` would make, without ``seq``); for any other
row NULL. Its argument is ``when(_py, struct(event columns))``, so a native row costs the UDF a
NULL in and a NULL out, and a batch of native rows only one null count.

Invariant: one source stage holding every node (a stateless single-script graph: no tick and no
state, so a row's outputs depend on that row alone) and no event counts (``counted``); the rows
of each event are exactly those of the plain job, in its ``path`` order.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

from runtime_support.spark.stages import StageSpec, _Runner, arrow_row_schema
from runtime_support.tremor.graph import GraphSpec

__all__ = ["ROWS_TYPE", "python_rows"]

ROWS_TYPE = (
    "array<struct<path: array<bigint>, stage: int, target: string, key: string, "
    "event: binary, value: string>>"
)
_FIELDS = ("path", "stage", "target", "key", "event", "value")


def python_rows(spec: GraphSpec, event: Any) -> Any:
    """The Column of each row's Python stage rows (see the module); ``event``: the struct of the
    event columns, NULL where the row runs natively."""
    from pyspark.sql import functions as F

    assert not spec.counted, "a counted graph keeps the plain job"
    members = tuple(sorted({*spec.inputs, *(node.name for node in spec.nodes)}))
    stage = StageSpec(members=members, partitioning="source")

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        runner = None
        for batch in batches:
            if batch.null_count == len(batch):
                yield _nulls(len(batch))
                continue
            runner = runner or _Runner(spec, (stage,), 0)
            yield _rows_of(runner, batch)

    with warnings.catch_warnings():  # it prefers type hints; pyarrow stays a lazy import
        warnings.simplefilter("ignore", UserWarning)
        udf = F.arrow_udf(run, ROWS_TYPE, F.ArrowUDFType.SCALAR_ITER)
    return udf(event)


def _nulls(count: int) -> Any:
    import pyarrow as pa

    return pa.nulls(count, _arrow_type())


def _rows_of(runner: _Runner, batch: Any) -> Any:
    """Per input row: None (native) or the list of its stage rows, as one Arrow array."""
    import pyarrow as pa

    names = [field.name for field in batch.type]
    columns = {}
    for name, column in zip(names, batch.flatten(), strict=True):
        if name == "value" and pa.types.is_string(column.type):
            column = column.cast(pa.binary())
        columns[name] = column.to_pylist()
    result: list[Any] = []
    for i, valid in enumerate(batch.is_valid().to_pylist()):
        if not valid:
            result.append(None)
            continue
        runner.feed_source({name: [columns[name][i]] for name in names})
        rows = runner.columns()
        result.append([{name: rows[name][j] for name in _FIELDS} for j in range(len(rows["seq"]))])
    return pa.array(result, _arrow_type())


def _arrow_type() -> Any:
    """An event's stage rows without ``seq`` (the event's own), as one Arrow list."""
    import pyarrow as pa

    return pa.list_(pa.struct([field for field in arrow_row_schema() if field.name != "seq"]))
