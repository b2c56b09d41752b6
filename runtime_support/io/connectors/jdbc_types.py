"""Column types of the JDBC sinks (``postgres``, ``clickhouse``) and the :class:`Target` they
connect to; a ``columns`` entry
``{"name": …, "type": …}`` becomes a :class:`Column`, and each event (a record) becomes one row.

Invariants: a column name is a plain SQL identifier (so generated SQL never quotes user text);
a value that does not fit its column (wrong type, out of range, missing from a non-nullable
column) fails the write with a message naming the column, never a silent null or cast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?")

_INT_RANGES = {
    "Int8": (-(2**7), 2**7 - 1),
    "Int16": (-(2**15), 2**15 - 1),
    "Int32": (-(2**31), 2**31 - 1),
    "Int64": (-(2**63), 2**63 - 1),
    "UInt8": (0, 2**8 - 1),
    "UInt16": (0, 2**16 - 1),
    "UInt32": (0, 2**32 - 1),
    "UInt64": (0, 2**63 - 1),  # a JDBC long: ClickHouse's upper half is out of reach
    "smallint": (-(2**15), 2**15 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
#: Type name (per connector kind) → the Spark type of its column.
TYPES = {
    "clickhouse": {
        **{name: "long" for name in _INT_RANGES if name[0] in "IU"},
        "String": "string",
        "Float32": "double",
        "Float64": "double",
    },
    "postgres": {
        "smallint": "long",
        "integer": "long",
        "bigint": "long",
        "text": "string",
        "double precision": "double",
        "boolean": "boolean",
        "jsonb": "json",
        "json": "json",
    },
}


@dataclass(frozen=True)
class Column:
    """One target column: ``kind`` is ``long``/``double``/``string``/``boolean``/``json`` (the
    value's JSON text); ``low``/``high`` bound a ``long``."""

    name: str
    sql: str
    kind: str
    nullable: bool
    low: int = 0
    high: int = 0

    def ddl(self) -> str:
        spark = {"json": "string"}.get(self.kind, self.kind)
        return f"`{self.name}` {spark}"


def _type_name(kind: str, type_: Any) -> tuple[str, bool]:
    """``(type name, nullable)``: ClickHouse writes ``{"Nullable": T}`` or ``Nullable(T)``;
    a PostgreSQL column is always nullable (the table's NOT NULL decides)."""
    if kind == "clickhouse":
        if isinstance(type_, dict) and set(type_) == {"Nullable"}:
            return str(type_["Nullable"]), True
        if isinstance(type_, str) and type_.startswith("Nullable(") and type_.endswith(")"):
            return type_[9:-1], True
        return (type_ if isinstance(type_, str) else repr(type_)), False
    return (type_.lower() if isinstance(type_, str) else repr(type_)), True


def parse_columns(kind: str, columns: Any) -> tuple[Column, ...]:
    """The ``columns`` config as :class:`Column` s (ValueError naming what is supported)."""
    if not isinstance(columns, list | tuple) or not columns:
        raise ValueError("`columns` must be a non-empty array of {name, type} records")
    known = TYPES[kind]
    result: list[Column] = []
    for item in columns:
        if not isinstance(item, dict) or set(item) != {"name", "type"}:
            raise ValueError("each of `columns` must be a record with exactly `name` and `type`")
        name = item["name"]
        if not isinstance(name, str) or not IDENT.fullmatch(name):
            raise ValueError(f"column name {name!r} must be an identifier ([A-Za-z_][A-Za-z0-9_]*)")
        type_name, nullable = _type_name(kind, item["type"])
        if type_name not in known:
            listed = ", ".join(sorted(known))
            raise ValueError(
                f"column `{name}`: type {type_name} is not supported by tremorc's {kind} sink; "
                f"supported types are: {listed}"
                + (" (or Nullable of one)" * (kind == "clickhouse"))
            )
        low, high = _INT_RANGES.get(type_name, (0, 0))
        result.append(Column(name, type_name, known[type_name], nullable, low, high))
    if len({c.name for c in result}) != len(result):
        raise ValueError("`columns` names a column twice")
    return tuple(result)


def cell(column: Column, record: Any) -> Any:
    """The value of ``column`` in the event ``record`` (ValueError when it does not fit)."""
    from runtime_support.tremor.jsonio import encode_json

    if not isinstance(record, dict):
        raise ValueError(f"the event is not a record, so it has no column `{column.name}`")
    value = record.get(column.name)
    if value is None:
        if column.nullable:
            return None
        raise ValueError(
            f"column `{column.name}` ({column.sql}) is not nullable: the event has "
            "no value for it"
        )
    kind = column.kind
    if kind == "json":
        return encode_json(value)
    ok = {
        "long": type(value) is int and column.low <= value <= column.high,
        "double": type(value) in (int, float),
        "string": type(value) is str,
        "boolean": type(value) is bool,
    }[kind]
    if not ok:
        raise ValueError(f"column `{column.name}` ({column.sql}) can not hold {encode_json(value)}")
    return float(value) if kind == "double" else value


def row_encoder(columns: tuple[Column, ...]) -> Any:
    """``mapInArrow``: JSON-text ``value`` s → one typed row per event (columns in order)."""

    def run(batches: Any) -> Any:
        import pyarrow as pa

        from runtime_support.tremor.jsonio import decode_json

        types = {"long": pa.int64(), "double": pa.float64(), "boolean": pa.bool_()}
        schema = pa.schema([(c.name, types.get(c.kind, pa.string())) for c in columns])
        for batch in batches:
            records = [decode_json(text) for text in batch.column(0).to_pylist()]
            arrays = [
                pa.array([cell(c, r) for r in records], schema.field(c.name).type) for c in columns
            ]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)

    return run


#: The table of the micro-batches a JDBC sink has written (see :mod:`.jdbc_sql`).
MARKS = "_tremorc_batch"


@dataclass(frozen=True)
class Target:
    """Where and how to connect: the JDBC ``url``, the ``driver`` class, connection ``props``;
    ``table`` (sink, or source table), ``query`` (source), ``column`` (one JSON column) or
    ``columns`` (record fields)."""

    kind: str
    url: str
    driver: str
    host: str
    port: int
    database: str
    props: dict[str, str] = field(default_factory=dict)
    table: str | None = None
    query: str | None = None
    column: str | None = None
    columns: tuple[Column, ...] = ()

    def options(self) -> dict[str, str]:
        return {"url": self.url, "driver": self.driver, **self.props}

    @property
    def names(self) -> tuple[str, ...]:
        """The sink's column names, in order."""
        return tuple(c.name for c in self.columns) if self.columns else (self.column or "event",)
