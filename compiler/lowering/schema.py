"""A declared input schema (Spark DDL) as the types the typed lowering reasons with.

Types: ``"string"``, ``"bigint"``, ``"boolean"``, ``("array", T)`` and
``("struct", ((name, T), ...))``. The root is always a struct (the event is a record).
Other Spark types are rejected with a reason: Spark's 32-bit ``INT`` would change Tremor's
i64 arithmetic, and ``DOUBLE`` is printed by Java 17 differently from Tremor's ryu
(``1.0E7`` against ``10000000.0``), so output text would change.
"""

from __future__ import annotations

import re

Type = str | tuple

SCALARS = {"STRING": "string", "BIGINT": "bigint", "LONG": "bigint", "BOOLEAN": "boolean"}
_TOKEN = re.compile(r"\s*(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*|[<>,:])")


class SchemaError(ValueError):
    """The DDL is malformed or uses a type the typed lowering does not support."""


def parse_schema(ddl: str) -> tuple:
    """``"a STRING, b STRUCT<c: BIGINT>"`` → ``("struct", (("a", "string"), ("b", ...)))``."""
    tokens = _tokens(ddl)
    fields = _fields(tokens, end=None)
    if tokens:
        raise SchemaError(f"unexpected `{tokens[0]}` in the schema")
    return ("struct", fields)


def _tokens(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text.rstrip()):
        found = _TOKEN.match(text, pos)
        if found is None:
            raise SchemaError(f"cannot read the schema at `{text[pos:pos + 10].strip()}`")
        tokens.append(found.group(1))
        pos = found.end()
    return tokens


def _fields(tokens: list[str], end: str | None) -> tuple:
    fields: list[tuple[str, Type]] = []
    while tokens and tokens[0] != end:
        name = _name(tokens.pop(0))
        if tokens and tokens[0] == ":":
            tokens.pop(0)
        if any(name == seen for seen, _ in fields):
            raise SchemaError(f"field `{name}` is declared twice")
        fields.append((name, _type(tokens)))
        if tokens and tokens[0] == ",":
            tokens.pop(0)
    if not fields:
        raise SchemaError("a struct needs at least one field")
    return tuple(fields)


def _name(token: str) -> str:
    if token in "<>,:":
        raise SchemaError(f"expected a field name, found `{token}`")
    name = token[1:-1].replace("``", "`") if token.startswith("`") else token
    if any(ch in name for ch in '"\\') or any(ord(ch) < 0x20 for ch in name):
        raise SchemaError(f"field name {name!r} holds a quote, backslash or control character")
    return name


def _type(tokens: list[str]) -> Type:
    if not tokens:
        raise SchemaError("a field without a type")
    word = tokens.pop(0).upper()
    if word in SCALARS:
        return SCALARS[word]
    if word in ("ARRAY", "STRUCT"):
        _expect(tokens, "<")
        inner: Type = _type(tokens) if word == "ARRAY" else ("struct", _fields(tokens, ">"))
        _expect(tokens, ">")
        return ("array", inner) if word == "ARRAY" else inner
    raise SchemaError(
        f"type {word} is not supported by the typed lowering (supported: STRING, BIGINT, "
        "BOOLEAN, ARRAY<...>, STRUCT<...>; INT is 32-bit, DOUBLE prints differently in Java)"
    )


def _expect(tokens: list[str], token: str) -> None:
    if not tokens or tokens.pop(0) != token:
        raise SchemaError(f"expected `{token}` in the schema")


def to_ddl(typ: Type) -> str:
    """The Spark DDL of a parsed type (the job embeds this text)."""
    if isinstance(typ, str):
        return typ.upper()
    if typ[0] == "array":
        return f"ARRAY<{to_ddl(typ[1])}>"
    inner = ", ".join(f"`{name.replace('`', '``')}`: {to_ddl(t)}" for name, t in typ[1])
    return f"STRUCT<{inner}>"


def root_ddl(schema: tuple) -> str:
    """The DDL ``from_json`` takes for the event (the root ``STRUCT<...>``)."""
    return to_ddl(schema)
