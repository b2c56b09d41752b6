"""The registries list every kind Tremor has (read from ../shared/reference/TREMOR.md, not from
the registries), each use of a kind builds or is rejected naming it, and the runtime's
implementation tables agree with the registries' factory names."""

from __future__ import annotations

import re

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program
from compiler.registry import (
    AGGREGATES,
    CODECS,
    CONNECTORS,
    OPERATORS,
    POSTPROCESSORS,
    PREPROCESSORS,
    WINDOWS,
    Registry,
)
from compiler.registry.connectors import SINK_FACTORIES, SOURCE_FACTORIES
from compiler.registry.windows import EXTENSION
from compiler.source import Source
from runtime_support.io import codecs
from runtime_support.io.connectors.base import factory
from runtime_support.tremor import aggregates
from runtime_support.tremor import builtin_operators as operators
from tests.support.paths import SHARED

REFERENCE = SHARED / "reference" / "TREMOR.md"


def _section(title: str) -> str:
    text = REFERENCE.read_text() if REFERENCE.is_file() else ""
    start = text.find(title)
    return "" if start < 0 else text[start : text.find("\n#", start + 1)]


def _first_cells(section: str, header: str = "") -> list[str]:
    """Backticked names in the first cell of each table row (after ``header`` when given)."""
    if header:
        section = section[section.find(header) :]
        section = section[: section.find("\n\n", section.find("|---"))]
    names: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([a-z0-9_:\-]+)`", line.split("|")[1])
    return names


def _reference() -> dict[str, list[str]]:
    ops = [n for n in _first_cells(_section("## 4. Builtin operators")) if "trickle::" not in n]
    return {
        "connector": _first_cells(_section("### 6.3 Connectors")),
        "codec": _first_cells(_section("### 6.1 Codecs")),
        "preprocessor": _first_cells(_section("### 6.2"), "| Preprocessor"),
        "postprocessor": _first_cells(_section("### 6.2"), "| Postprocessor"),
        "operator": ops,
        "window kind": ["tumbling", "sliding"],
    }


REGISTRIES: dict[str, Registry] = {
    r.what: r for r in (CONNECTORS, CODECS, PREPROCESSORS, POSTPROCESSORS, OPERATORS, WINDOWS)
}
KINDS = [(what, name) for what, names in _reference().items() for name in names]

FLOW = """define flow main
flow
  define connector k from {kind} with {with_} end;
  define pipeline p
  pipeline
    select event from in into out;
  end;
  create connector k;
  create pipeline p;
  connect /connector/k to /pipeline/p;
end;
deploy flow main;
"""
CONNECTOR_CONFIG = {
    "file": '{"path": "x.json", "mode": "read"}',
    "kafka_consumer": '{"brokers": ["h:9092"], "topics": ["t"], "group_id": "g"}',
    "kafka_producer": '{"brokers": ["h:9092"], "topic": "t"}',
    "metronome": '{"interval": 1}',
    "clickhouse": '{"url": "h", "table": "t", "columns": [{"name": "a", "type": "String"}]}',
    "postgres": '{"url": "h", "query": "SELECT 1"}',
    "s3_reader": '{"bucket": "b"}',
    "s3_streamer": '{"bucket": "b"}, postprocessors = ["separate"]',
    "gcs_streamer": '{"bucket": "b"}, postprocessors = ["separate"]',
    "elastic": '{"nodes": ["http://127.0.0.1:9200"]}',
    "kv": '{"path": "d"}',
}
CONNECTOR_CONFIG.update(
    {
        k: '{"url": "127.0.0.1:1"}'
        for k in ("tcp_client", "tcp_server", "udp_client", "udp_server", "ws_client", "ws_server")
    }
)
CONNECTOR_CONFIG.update(
    {k: '{"path": "x.sock"}' for k in ("unix_socket_client", "unix_socket_server")}
)
CONNECTOR_CONFIG["http_server"] = '{"url": "http://127.0.0.1:1"}'
OPERATOR_CONFIG = {
    "generic::batch": "count = 2",
    "generic::backpressure": "timeout = 1",
    "qos::backpressure": "timeout = 1",
    "qos::percentile": "timeout = 1",
    "debug::history": 'op = "a", name = "b"',
}
#: Codecs with a required config key.
CODEC_SPEC = {
    "avro": '{"name": "avro", "config": {"schema": "long"}}',
    "confluent-schema-registry": '{"name": "confluent-schema-registry", "config": {"url": '
    '"http://h:8081"}}, config = ' + CONNECTOR_CONFIG["kafka_consumer"],
}
CODEC_CONNECTOR = {"confluent-schema-registry": "kafka_consumer"}  # it runs at Kafka only

PROCESSOR_CONFIG = {
    "chunk": '{"max_bytes": 10}',
    "compress": '{"algorithm": "gzip"}',
    "streaming-compress": '{"algorithm": "zstd"}',
}


def _program(what: str, name: str) -> tuple[str, str]:
    """A program using kind ``name`` of registry ``what`` and its language."""
    if what == "connector":
        text = FLOW.format(kind=f"`{name}`", with_=f"config = {CONNECTOR_CONFIG.get(name, '{}')}")
        entry = CONNECTORS.get(name)
        if entry is not None and entry.ports and "out" not in entry.ports:  # a sink only
            text = text.replace("/connector/k to /pipeline/p", "/pipeline/p to /connector/k")
        return text, "deploy"
    if what == "codec":
        codec = CODEC_SPEC.get(name, f'"{name}"')
        kind = CODEC_CONNECTOR.get(name, "stdio")
        return FLOW.format(kind=kind, with_=f"codec = {codec}"), "deploy"
    if what in ("preprocessor", "postprocessor"):
        config = PROCESSOR_CONFIG.get(name)
        item = f'{{"name": "{name}", "config": {config}}}' if config else f'"{name}"'
        return FLOW.format(kind="stdio", with_=f"{what}s = [{item}]"), "deploy"
    if what == "operator":
        config = f" with {OPERATOR_CONFIG[name]} end" if name in OPERATOR_CONFIG else ""
        text = f"define operator o from {name}{config};\ncreate operator o;\n"
        return text + "select event from in into o;\nselect event from o into out;\n", "query"
    with_ = {"sliding": "size = 2, slide = 1", "session": "gap = 2"}.get(name, "size = 2")
    text = f"define window w from {name} with {with_} end;\n"
    return text + "select aggr::stats::count() from in[w] into out;\n", "query"


def test_the_reference_lists_kinds() -> None:
    if not REFERENCE.is_file():
        pytest.skip("../shared/reference/TREMOR.md not available")
    counts = {what: len(names) for what, names in _reference().items()}
    assert counts == {
        "connector": 37,
        "codec": 16,
        "preprocessor": 8,
        "postprocessor": 10,
        "operator": 11,
        "window kind": 2,
    }


@pytest.mark.parametrize(("what", "name"), KINDS, ids=lambda v: str(v))
def test_every_tremor_kind_is_supported_or_rejected_by_name(what: str, name: str) -> None:
    entry = REGISTRIES[what].get(name)
    assert entry is not None, f"{what} {name} missing from the registry"
    text, lang = _program(what, name)
    if what == "operator" and "::" not in name:
        # Internal (``passthrough``): Tremor's grammar, like ours, wants ``ns::name`` here.
        with pytest.raises(CompileError, match="expected `::`"):
            check_program(Source("t", text), lang)
        return
    if entry.supported:
        check_program(Source("t", text), lang)
        return
    with pytest.raises(CompileError) as info:
        check_program(Source("t", text), lang)
    assert f"The {what} `{name}` is not supported: {entry.reason}" in info.value.message
    assert ", ".join(REGISTRIES[what].supported()) in info.value.message


def test_registries_hold_nothing_tremor_lacks() -> None:
    if not REFERENCE.is_file():
        pytest.skip("../shared/reference/TREMOR.md not available")
    listed = {(what, name) for what, name in KINDS}
    extra = [
        (w, e.name)
        for w, r in REGISTRIES.items()
        for e in r
        if (w, e.name) not in listed and not e.doc.startswith(EXTENSION)  # README "Window ext…"
    ]
    assert extra == []


def _dotted(obj: object) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"  # type: ignore[attr-defined]


def test_connector_factories_name_runtime_callables() -> None:
    """The registry's factory names are the one table of connector implementations: each names
    a callable of the runtime's connectors, and every supported kind has one or two."""
    assert sorted(SOURCE_FACTORIES.keys() | SINK_FACTORIES.keys()) == list(CONNECTORS.supported())
    for name in (*SOURCE_FACTORIES.values(), *SINK_FACTORIES.values()):
        assert name.startswith("runtime_support.io.connectors.")
        assert callable(factory(name)), name
    for name in CONNECTORS.supported():
        entry = CONNECTORS.get(name).factory  # type: ignore[union-attr]
        assert entry in (SOURCE_FACTORIES.get(name), SINK_FACTORIES.get(name))


def test_runtime_codec_table_matches_the_registry() -> None:
    assert {k: _dotted(v) for k, v in codecs.CODECS.items()} == {
        e.name: e.factory for e in CODECS if e.supported
    }


def test_runtime_processor_tables_match_the_registry() -> None:
    from runtime_support.io.processors import post, pre

    for registry, module in ((PREPROCESSORS, pre), (POSTPROCESSORS, post)):
        table = module.PREPROCESSORS if module is pre else module.POSTPROCESSORS
        # every supported one runs; the runtime may hold one the registry rejects (ingest-ns)
        assert set(registry.supported()) <= set(table) <= {e.name for e in registry}
        for entry in registry:
            if entry.supported:
                cls = getattr(module, entry.factory.rsplit(".", 1)[1])
                assert entry.factory == _dotted(cls) and cls.name == entry.name


def test_runtime_operator_table_matches_the_registry() -> None:
    assert {k: _dotted(v) for k, v in operators.OPERATORS.items()} == {
        e.name: e.factory for e in OPERATORS if e.supported
    }


def test_runtime_aggregates_match_the_registry() -> None:
    assert {k: _dotted(v) for k, v in aggregates.AGGREGATES.items()} == {
        e.name: e.factory for e in AGGREGATES
    }


def test_every_entry_is_described() -> None:
    for registry in (CONNECTORS, CODECS, PREPROCESSORS, POSTPROCESSORS, OPERATORS, WINDOWS):
        for entry in registry:
            assert entry.supported or entry.reason, entry.name
            assert entry.scope in ("stateless", "keyed", "global"), entry.name
            assert (entry.scope == "keyed") == bool(entry.keyed_by), entry.name
