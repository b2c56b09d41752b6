"""Hold every connector definition against the connector registry: its kind, ``with`` keys,
``config``, codec and processors (the checks of one connector kind live beside its registry
entries). Only troy builds import this module and the connector code it needs.
"""

from __future__ import annotations

from typing import Any

from ..ast import deploy as D
from ..diagnostics import CompileError
from ..source import Source, Span
from .checks import check_named, entries_by_key
from .codecs import CODECS, check_codec_use
from .common import Entry, check_config, item_span, name_and_config, record_key_span
from .connectors import CONNECTORS, WITH_KEYS, check_file_sink, check_kafka
from .dns import check_dns
from .elastic import check_elastic
from .jdbc_checks import JDBC_KINDS, S3_KINDS, check_jdbc, check_s3
from .kv import check_kv
from .net_connectors import check_socket_options
from .otel_connectors import check_otel
from .processors import POSTPROCESSORS, PREPROCESSORS
from .time_connectors import check_crononome
from .ws_connectors import check_ws_url

_WITH = Entry(name="with", keys=WITH_KEYS, factory="-")
_PROCESSORS = {"preprocessors": PREPROCESSORS, "postprocessors": POSTPROCESSORS}


def check_connector(defn: D.DefineConnector, params: dict[str, Any], source: Source) -> Entry:
    """The supported connector entry of ``defn`` whose ``with`` values ``params`` conform."""
    entry = CONNECTORS.resolve(defn.kind.name, defn.kind.span, source)
    given = entries_by_key(defn.config)

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
        check_named(CODECS, params["codec"], given["codec"].value, value_span("codec"), source)
        why = check_codec_use(entry.name, *name_and_config(params["codec"]))
        if why:
            raise CompileError(why, value_span("codec"), source=source)
    for key, registry in _PROCESSORS.items():
        expr = given[key].value if key in given else None
        for i, item in enumerate(params.get(key) or ()):
            check_named(registry, item, None, item_span(expr, i, value_span(key)), source)
    return entry
