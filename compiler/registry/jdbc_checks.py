"""Compile checks of the JDBC connectors (``postgres``, ``clickhouse``) and the S3 ones beyond
their key types (see :func:`check_s3` for those).

Establishes: no codec or processors (they write records as rows); ``table`` and ``column`` are
SQL identifiers and each ``columns`` entry names an identifier and a supported type (see
``runtime_support.io.connectors.jdbc_types``); a ``postgres`` connector has ``table`` or ``query``,
``column`` and ``columns`` not both. Otherwise a CompileError at the offending key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime_support.io.connectors.jdbc_types import IDENT, TABLE, parse_columns

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


S3_KINDS = ("s3_reader", "s3_streamer", "gcs_streamer")
AUTH_KEYS = ("access_key_id", "secret_access_key", "session_token")


def check_s3(
    kind: str,
    params: dict[str, Any],
    with_span: Callable[[str], Span],
    key_span: Callable[[str], Span],
    source: Source,
) -> None:
    """``auth`` holds string keys and both keys; an ``s3_streamer`` frames its events with the
    ``separate`` postprocessor and no other (Spark's text writer writes lines)."""
    config = params.get("config") or {}
    auth = config.get("auth")
    if isinstance(auth, dict):
        bad = [k for k, v in auth.items() if k not in AUTH_KEYS or not isinstance(v, str)]
        if bad or not {"access_key_id", "secret_access_key"} <= set(auth):
            message = (
                "`auth` must be a record of strings `access_key_id`, `secret_access_key` and "
                "optionally `session_token`"
            )
            raise CompileError(message, key_span("auth"), source=source)
    if kind == "gcs_streamer" and not _gcs_token(config.get("token")):
        message = (
            '`token` must be `{"file": "<service account key file>"}` or `"env"`: an inline '
            '`{"json": …}` key would be written into the generated job'
        )
        raise CompileError(message, key_span("token"), source=source)
    if kind in ("s3_streamer", "gcs_streamer"):
        posts = params.get("postprocessors") or ()
        names = [p.get("name") if isinstance(p, dict) else p for p in posts]
        if "separate" not in names or set(names) - {"separate", "remove-empty"}:
            article = "An" if kind == "s3_streamer" else "A"
            message = (
                f"{article} `{kind}` writes part files of lines with Spark's text writer: its "
                'postprocessors are `["separate"]` (and `remove-empty`), nothing else'
            )
            where = (
                with_span("postprocessors") if "postprocessors" in params else key_span("bucket")
            )
            raise CompileError(message, where, source=source)


def _gcs_token(token: Any) -> bool:
    """A ``gcs_streamer`` token tremorc honours: none, ``"env"`` or ``{"file": str}``."""
    if token is None or token == "env":
        return True
    return isinstance(token, dict) and set(token) == {"file"} and isinstance(token["file"], str)
