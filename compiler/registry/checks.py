"""Hold every use of an operator, window or processor kind against its registry (connectors and
their codecs: :mod:`compiler.registry.connector_checks`).

Needs: the definition (for spans) and its evaluated values. Establishes: the kind is known and
supported, every config key is declared with a value of its type and allowed value, every
required key is given; otherwise a Tremor-style CompileError at the kind name, the offending key
or value, whose message names what is supported.
"""

from __future__ import annotations

from typing import Any

from ..ast import query as Q
from ..diagnostics import CompileError
from ..source import Source, Span
from .common import Entry, Registry, check_config, name_and_config, record_key_span
from .operators import OPERATORS
from .processors import POSTPROCESSORS, PREPROCESSORS
from .windows import WINDOWS


def entries_by_key(entries: tuple[Q.WithEntry, ...]) -> dict[str, Q.WithEntry]:
    return {e.key.name: e for e in entries}


def check_named(registry: Registry, value: Any, expr: Any, span: Span, source: Source) -> Entry:
    """A codec or processor value: ``"name"`` or ``{"name": n, "config": {…}}``."""
    name, config = name_and_config(value)
    what = registry.what
    if isinstance(value, dict) and set(value) - {"name", "config"}:
        extra = sorted(set(value) - {"name", "config"})[0]
        message = f"Unknown key `{extra}` in a {what}: only `name` and `config` are allowed"
        raise CompileError(message, record_key_span(expr, extra, span), source=source)
    if not isinstance(name, str):
        message = f'A {what} must be a name or a record `{{"name": …, "config": …}}`'
        raise CompileError(message, span, source=source)
    name_span = record_key_span(expr, "name", span)
    entry = registry.resolve(name, name_span, source)
    if config is not None and not isinstance(config, dict):
        raise CompileError(f"The config of {what} `{name}` must be a record", span, source=source)
    check_config(what, entry, config or {}, lambda key: span, span, source)
    if registry in (PREPROCESSORS, POSTPROCESSORS):
        check_processor_config(registry, name, config, span, source)
    return entry


def check_processor_config(
    registry: Registry, name: str, config: Any, span: Span, source: Source
) -> None:
    """What the runtime's processor makes of ``config`` (a one-byte separator, a level in the
    algorithm's range, …): its error, Tremor's message, as a CompileError at the processor."""
    from runtime_support.io.processors import ProcessorError, make_postprocessor, make_preprocessor

    make = make_preprocessor if registry is PREPROCESSORS else make_postprocessor
    try:
        make(name, config)
    except ProcessorError as err:
        raise CompileError(
            f"Invalid config of {registry.what} `{name}`: {err}", span, source=source
        ) from None


def check_operator(defn: Q.DefineOperator, config: dict[str, Any], source: Source) -> Entry:
    """The supported operator entry of ``defn`` whose ``with`` values ``config`` conform."""
    entry = OPERATORS.resolve(defn.kind.qualified, defn.kind.span, source)
    given = entries_by_key(defn.config)
    check_config(
        "operator",
        entry,
        config,
        lambda key: given[key].key.span,
        defn.kind.span,
        source,
    )
    return entry


def check_window(defn: Q.DefineWindow, config: dict[str, Any], source: Source) -> Entry:
    """The supported window kind of ``defn`` whose ``with`` values ``config`` conform."""
    entry = WINDOWS.resolve(defn.kind.name, defn.kind.span, source)
    given = entries_by_key(defn.config)
    check_config("window", entry, config, lambda key: given[key].key.span, defn.kind.span, source)
    return entry
