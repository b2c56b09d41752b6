"""Hold every use of a connector, codec, processor, operator or window kind against its registry.

Needs: the definition (for spans) and its evaluated values. Establishes: the kind is known and
supported, every config key is declared with a value of its type and allowed value, every
required key is given; otherwise a Tremor-style CompileError at the kind name, the offending key
or value, whose message names what is supported.
"""

from __future__ import annotations

from typing import Any

from ..ast import deploy as D
from ..ast import query as Q
from ..diagnostics import CompileError
from ..source import Source, Span
from .codecs import CODECS, check_codec_use
from .common import Entry, Registry, check_config, item_span, name_and_config, record_key_span
from .connectors import CONNECTORS, WITH_KEYS, check_file_sink, check_kafka
from .dns import check_dns
from .elastic import check_elastic
from .jdbc_checks import JDBC_KINDS, S3_KINDS, check_jdbc, check_s3
from .kv import check_kv
from .net_connectors import check_socket_options
from .operators import OPERATORS
from .otel_connectors import check_otel
from .processors import POSTPROCESSORS, PREPROCESSORS
from .time_connectors import check_crononome
from .windows import WINDOWS
from .ws_connectors import check_ws_url

_WITH = Entry(name="with", keys=WITH_KEYS, factory="-")
_PROCESSORS = {"preprocessors": PREPROCESSORS, "postprocessors": POSTPROCESSORS}


def _entries(entries: tuple[Q.WithEntry, ...]) -> dict[str, Q.WithEntry]:
    return {e.key.name: e for e in entries}


def check_connector(defn: D.DefineConnector, params: dict[str, Any], source: Source) -> Entry:
    """The supported connector entry of ``defn`` whose ``with`` values ``params`` conform."""
    entry = CONNECTORS.resolve(defn.kind.name, defn.kind.span, source)
    given = _entries(defn.config)

    def value_span(key: str) -> Span:
        return given[key].value.span if key in given else defn.kind.span

    check_config("connector", _WITH, params, value_span, defn.kind.span, source)
    config = params.get("config", {})
    where = value_span("config")
    config_expr = given["config"].value if "config" in given else None
    check_config(
        "connector",
        entry,
        config,
        lambda key: record_key_span(config_expr, key, where),
        where,
        source,
    )
    if entry.name == "file":
        post = value_span("postprocessors") if "postprocessors" in given else where
        check_file_sink(params, lambda key: record_key_span(config_expr, key, where), post, source)
    if entry.name in JDBC_KINDS:
        key_span = lambda key: record_key_span(config_expr, key, where)  # noqa: E731
        check_jdbc(entry.name, params, value_span, key_span, where, source)
    if entry.name in S3_KINDS:
        key_span = lambda key: record_key_span(config_expr, key, where)  # noqa: E731
        check_s3(entry.name, params, value_span, key_span, source)
    span = record_key_span(config_expr, "socket_options", where)
    check_socket_options(entry.name, config.get("socket_options"), span, source)
    check_ws_url(entry.name, config, record_key_span(config_expr, "url", where), source)
    check_otel(entry.name, params, value_span, record_key_span(config_expr, "url", where), source)
    if entry.name == "crononome":
        check_crononome(config, record_key_span(config_expr, "entries", where), source)
    if entry.name in ("kafka_consumer", "kafka_producer"):
        check_kafka(entry.name, config, lambda k: record_key_span(config_expr, k, where), source)
    if entry.name == "elastic":
        check_elastic(config, lambda k: record_key_span(config_expr, k, where), source)
    if entry.name == "kv":
        check_kv(params, value_span, source)
    if entry.name == "dns_client":
        check_dns(params, value_span, lambda k: record_key_span(config_expr, k, where), source)
    if "codec" in params:
        _named(CODECS, params["codec"], given["codec"].value, value_span("codec"), source)
        why = check_codec_use(entry.name, *name_and_config(params["codec"]))
        if why:
            raise CompileError(why, value_span("codec"), source=source)
    for key, registry in _PROCESSORS.items():
        expr = given[key].value if key in given else None
        for i, item in enumerate(params.get(key) or ()):
            _named(registry, item, None, item_span(expr, i, value_span(key)), source)
    return entry


def _named(registry: Registry, value: Any, expr: Any, span: Span, source: Source) -> Entry:
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
    from runtime_support.processors import ProcessorError, make_postprocessor, make_preprocessor

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
    given = _entries(defn.config)
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
    given = _entries(defn.config)
    check_config("window", entry, config, lambda key: given[key].key.span, defn.kind.span, source)
    return entry
