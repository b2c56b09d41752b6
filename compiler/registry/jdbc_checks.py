"""Compile checks of the JDBC connectors (``postgres``, ``clickhouse``) beyond their key types.

Establishes: no codec or processors (they write records as rows); ``table`` and ``column`` are
SQL identifiers and each ``columns`` entry names an identifier and a supported type (see
``runtime_support.connectors.jdbc_types``); a ``postgres`` connector has ``table`` or ``query``,
``column`` and ``columns`` not both. Otherwise a CompileError at the offending key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime_support.connectors.jdbc_types import IDENT, TABLE, parse_columns

from ..diagnostics import CompileError
from ..source import Source, Span

JDBC_KINDS = ("clickhouse", "postgres")
STRUCTURED = (
    "the `{kind}` connector writes events as table rows: remove `{key}` (it takes no {what})"
)


def check_jdbc(
    kind: str,
    params: dict[str, Any],
    with_span: Callable[[str], Span],
    key_span: Callable[[str], Span],
    whole: Span,
    source: Source,
) -> None:
    """Raise the first CompileError of the module doc's rules."""
    for key, what in (
        ("codec", "codec"),
        ("preprocessors", "preprocessors"),
        ("postprocessors", "postprocessors"),
    ):
        if key in params:
            message = STRUCTURED.format(kind=kind, key=key, what=what)
            raise CompileError(message, with_span(key), source=source)
    config = params.get("config") or {}

    def fail(key: str, message: str) -> None:
        raise CompileError(message, key_span(key), source=source)

    table = config.get("table")
    if table is not None and not TABLE.fullmatch(table):
        fail(
            "table",
            f"`table` must be a table name (identifier or schema.identifier), got {table!r}",
        )
    column = config.get("column")
    if column is not None and not IDENT.fullmatch(column):
        fail("column", f"`column` must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got {column!r}")
    if "columns" in config:
        try:
            parse_columns(kind, config["columns"])
        except ValueError as err:
            fail("columns", f"Invalid `columns` of the {kind} connector: {err}")
    if kind == "postgres":
        if "column" in config and "columns" in config:
            fail(
                "columns",
                "`column` (the event as JSON) and `columns` (its fields) exclude each other",
            )
        if "table" not in config and "query" not in config:
            raise CompileError(
                "A postgres connector needs `table` (a sink's, or the table a source reads) or "
                "`query` (a source's SELECT)",
                whole,
                source=source,
            )
