"""What every registry shares: entries, config-key schemas and the checks against them.

Invariants: a registry lists every kind Tremor has, supported or not; an :class:`Entry` that is
not ``supported`` carries the ``reason``; a supported entry names its ``factory`` (the dotted
``runtime_support`` name that implements it) and the config keys it honours. The checks raise
Tremor-style :class:`~compiler.diagnostics.CompileError` s whose message names what *is*
supported, so nothing builds that the job would ignore or run wrongly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..ast import script as S
from ..diagnostics import CompileError
from ..source import Source, Span

#: The value types a config key may declare (``array<T>``: every element of type ``T``).
TYPE_NAMES = {
    "any": "any value",
    "string": "a string",
    "bool": "a boolean",
    "integer": "an integer",
    "unsigned": "a non-negative integer",
    "number": "a number",
    "array": "an array",
    "record": "a record",
}


def type_matches(value: Any, type_: str) -> bool:
    """Does the constant ``value`` have the declared ``type_`` (``"a|b"``: either)?"""
    if "|" in type_:
        return any(type_matches(value, t) for t in type_.split("|"))
    if type_.startswith("array<"):
        inner = type_[6:-1]
        return isinstance(value, list | tuple) and all(type_matches(v, inner) for v in value)
    checks: dict[str, Callable[[Any], bool]] = {
        "any": lambda v: True,
        "string": lambda v: isinstance(v, str),
        "bool": lambda v: type(v) is bool,
        "integer": lambda v: type(v) is int,
        "unsigned": lambda v: type(v) is int and v >= 0,
        "number": lambda v: type(v) in (int, float),
        "array": lambda v: isinstance(v, list | tuple),
        "record": lambda v: isinstance(v, dict),
    }
    return checks[type_](value)


def describe_type(type_: str) -> str:
    """``"unsigned"`` → ``"a non-negative integer"``; ``array<string>`` → ``an array of …``."""
    if "|" in type_:
        return " or ".join(describe_type(t) for t in type_.split("|"))
    if type_.startswith("array<"):
        return f"an array of {describe_type(type_[6:-1]).split(' ', 1)[1]}s"
    return TYPE_NAMES[type_]


@dataclass(frozen=True, slots=True, kw_only=True)
class Key:
    """One config key: its type, default, required-ness, allowed values, and what it does."""

    name: str
    type: str
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    doc: str = ""
    rejected: str = ""  # non-empty: Tremor has the key, tremorc rejects it (this says why)


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One kind: ``define … from <name>``, or a codec/processor/aggregate name.

    ``scope`` is the state scope of a node of this kind (``stateless``, ``keyed`` by
    ``keyed_by``, or ``global``); ``ports`` the output ports it may emit on.
    """

    name: str
    keys: tuple[Key, ...] = ()
    scope: str = "stateless"
    keyed_by: str = ""
    supported: bool = True
    reason: str = ""
    factory: str = ""
    ports: tuple[str, ...] = ()
    doc: str = ""

    def key(self, name: str) -> Key | None:
        """The declared key ``name``."""
        return next((k for k in self.keys if k.name == name), None)


class Registry:
    """The entries of one kind of thing (``what``: "connector", "codec", …), by name."""

    def __init__(self, what: str, entries: tuple[Entry, ...]) -> None:
        assert len({e.name for e in entries}) == len(entries), f"duplicate {what} entry"
        assert all(e.supported or e.reason for e in entries), f"unsupported {what} needs a reason"
        assert all(e.factory for e in entries if e.supported), f"supported {what} needs a factory"
        self.what = what
        self.entries = tuple(sorted(entries, key=lambda e: e.name))
        self._by_name = {e.name: e for e in self.entries}

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def get(self, name: str) -> Entry | None:
        """The entry called ``name`` (None when Tremor has no such kind)."""
        return self._by_name.get(name)

    def supported(self) -> tuple[str, ...]:
        """The names this compiler builds, sorted."""
        return tuple(e.name for e in self.entries if e.supported)

    def resolve(self, name: str, span: Span, source: Source | None) -> Entry:
        """The supported entry ``name``; an unknown or unsupported name is a CompileError."""
        entry = self.get(name)
        listed = ", ".join(self.supported())
        if entry is None:
            message = f"Unknown {self.what} `{name}`; supported {self.what}s are: {listed}"
            raise CompileError(message, span, source=source)
        if not entry.supported:
            message = (
                f"The {self.what} `{name}` is not supported: {entry.reason}; "
                f"supported {self.what}s are: {listed}"
            )
            raise CompileError(message, span, source=source)
        return entry


def check_config(
    what: str,
    entry: Entry,
    config: dict[str, Any],
    span_of: Callable[[str], Span],
    whole: Span,
    source: Source | None,
) -> None:
    """Every key of ``config`` is declared with the right type, every required key is there.

    ``span_of(key)`` is where the key is written; ``whole`` where the config as a whole is.
    """
    names = ", ".join(f"`{k.name}`" for k in entry.keys) or "none"
    for name, value in config.items():
        key = entry.key(name)
        if key is None:
            message = f"Unknown config key `{name}` for {what} `{entry.name}`; valid keys: {names}"
            raise CompileError(message, span_of(name), source=source)
        if key.rejected:
            message = f"Config key `{name}` of {what} `{entry.name}` is not supported by tremorc"
            raise CompileError(message, span_of(name), hint=key.rejected, source=source)
        if not type_matches(value, key.type):
            message = (
                f"Config key `{name}` of {what} `{entry.name}` must be "
                f"{describe_type(key.type)}, got {_show(value)}"
            )
            raise CompileError(message, span_of(name), source=source)
        if key.choices and value not in key.choices:
            allowed = ", ".join(_show(c) for c in key.choices)
            message = f"Config key `{name}` of {what} `{entry.name}` must be one of {allowed}"
            message += f", got {_show(value)}"
            raise CompileError(message, span_of(name), hint=key.doc or None, source=source)
    for key in entry.keys:
        if key.required and key.name not in config:
            message = f"Missing required config key `{key.name}` for {what} `{entry.name}`"
            raise CompileError(message, whole, source=source)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value).replace("'", '"') if "'" not in value else repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def record_key_span(expr: S.Expr | None, key: str, default: Span) -> Span:
    """Where ``key`` is written in the record literal ``expr`` (``default`` if not literal)."""
    if isinstance(expr, S.RecordLit):
        for field in expr.fields:
            if isinstance(field.key, S.Literal) and field.key.value == key:
                return field.key.span
    return default


def item_span(expr: S.Expr | None, index: int, default: Span) -> Span:
    """The span of item ``index`` of the array literal ``expr`` (``default`` if not literal)."""
    if isinstance(expr, S.ArrayLit) and index < len(expr.items):
        return expr.items[index].span
    return default


def name_and_config(value: Any) -> tuple[Any, Any]:
    """A codec/processor value: ``"name"`` or ``{"name": …, "config": …}`` → (name, config)."""
    if isinstance(value, dict):
        return value.get("name"), value.get("config")
    return value, None


def check_structured(
    kind: str, params: dict[str, Any], value_span: Callable[[str], Span], source: Source
) -> None:
    """A structured connector (Tremor's ``CodecReq::Structured``: ``kv``, ``dns_client``) takes
    no codec (Tremor rejects one) and no processors (they would never run)."""
    if "codec" in params:
        message = f"{kind} is a structured connector and can't be configured with a codec"
        raise CompileError(message, value_span("codec"), source=source)
    for key in ("preprocessors", "postprocessors"):
        if params.get(key):
            message = (
                f"{kind} is a structured connector: its events are never encoded, so {key} "
                "would not run"
            )
            raise CompileError(message, value_span(key), source=source)
