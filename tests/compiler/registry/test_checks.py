"""Programs the compiler used to accept and then ignore or mis-run: each is now a compile error
at the line of the offending kind, key or value, naming what is supported."""

from __future__ import annotations

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import check_program
from compiler.source import Source

FLOW = """define flow main
flow
  define connector k from {kind}
  with
{with_}
  end;
  define connector stop from exit;
  define pipeline p
  pipeline
    select event from in into out;
  end;
  create connector k;
  create connector stop;
  create pipeline p;
  connect /connector/k to /pipeline/p;
  connect /pipeline/p to /connector/stop;
end;
deploy flow main;
"""


def _error(text: str, kind: str) -> tuple[int, str, str]:
    """(line, underlined text, message) of the compile error of ``text``."""
    source = Source("t", text)
    with pytest.raises(CompileError) as info:
        check_program(source, kind)
    err = info.value
    assert err.span is not None and err.source is source
    line, _ = source.line_col(err.span.start)
    return line, text[err.span.start : err.span.end], err.message


def _flow(kind: str, with_: str) -> str:
    return FLOW.format(kind=kind, with_=with_)


def test_discord_is_rejected_at_its_kind() -> None:
    text = _flow("discord", '    config = {"token": "t"}')
    line, under, message = _error(text, "deploy")
    assert (line, under) == (3, "discord")
    assert "`discord` is not supported" in message
    assert "null, otel_client, otel_server, postgres" in message


def test_unknown_connector_kind() -> None:
    line, under, message = _error(_flow("kafka_consumerz", '    config = {"a": 1}'), "deploy")
    assert (line, under) == (3, "kafka_consumerz")
    assert message.startswith("Unknown connector `kafka_consumerz`; supported connectors are:")


def test_unknown_codec_is_rejected_at_its_value() -> None:
    line, under, message = _error(_flow("stdio", '    codec = "jsonn"'), "deploy")
    assert (line, under) == (5, '"jsonn"')
    assert "Unknown codec `jsonn`" in message and "graphite-plaintext, influx, json" in message


def test_unsupported_codec_name_in_a_record() -> None:
    text = _flow("stdio", '    codec = {"name": "tremor"}')
    line, under, message = _error(text, "deploy")
    assert (line, under) == (5, '"name"')
    assert "The codec `tremor` is not supported" in message


def test_unsupported_postprocessor_item() -> None:
    text = _flow("stdio", '    postprocessors = ["separate", "ingest-ns"]')
    line, under, message = _error(text, "deploy")
    assert (line, under) == (5, '"ingest-ns"')
    assert "postprocessor `ingest-ns` is not supported" in message


def test_sliding_window_without_slide_is_rejected_at_its_kind() -> None:
    text = "define window w from sliding\nwith\n  size = 3\nend;\n" + (
        "select aggr::stats::count() from in[w] into out;\n"
    )
    line, under, message = _error(text, "query")
    assert (line, under) == (1, "sliding")
    assert "`slide`" in message


def test_unknown_operator_is_rejected_at_its_kind() -> None:
    text = (
        "define operator o from generic::nosuch;\n"
        "create operator o;\n"
        "select event from in into o;\n"
        "select event from o into out;\n"
    )
    line, under, message = _error(text, "query")
    assert (line, under) == (1, "generic::nosuch")
    assert message.startswith("Unknown operator `generic::nosuch`; supported operators are:")
    assert "generic::counter" in message


@pytest.mark.parametrize(
    ("with_", "at", "says"),
    [
        ('    config = {"interval": "1s"}', '"interval"', "must be a non-negative integer"),
        ('    config = {"intervall": 1}', '"intervall"', "Unknown config key `intervall`"),
        ("    config = {}", "{}", "Missing required config key `interval`"),
        ("    metrics_interval_s = -1", "-1", "`metrics_interval_s`"),
    ],
)
def test_metronome_config_is_checked(with_: str, at: str, says: str) -> None:
    line, under, message = _error(_flow("metronome", with_), "deploy")
    assert line == 5 and under.startswith(at) and says in message


def test_codec_config_is_checked() -> None:
    text = _flow("stdio", '    codec = {"name": "json", "config": {"mode": "up"}}')
    line, under, message = _error(text, "deploy")
    assert line == 5 and under.startswith("{")
    assert "`mode` of codec `json` must be one of" in message


def _exit_config(config: str) -> str:
    return _flow("metronome", '    config = {"interval": 1}').replace(
        "define connector stop from exit;",
        f"define connector stop from exit with config = {config} end;",
    )


@pytest.mark.parametrize(
    "config", ['{"delay": 1000}', '{"graceful": false}', '{"delay": 0, "graceful": true}']
)
def test_exit_delay_and_graceful_build(config: str) -> None:
    check_program(Source("t", _exit_config(config)), "deploy")


@pytest.mark.parametrize(
    ("config", "under", "says"),
    [
        ('{"delay": -1}', '"delay"', "must be a non-negative integer"),
        ('{"delay": "1s"}', '"delay"', "must be a non-negative integer"),
        ('{"graceful": "no"}', '"graceful"', "must be a boolean"),
        ('{"dealy": 1}', '"dealy"', "Unknown config key `dealy`"),
    ],
)
def test_exit_config_is_checked(config: str, under: str, says: str) -> None:
    line, at, message = _error(_exit_config(config), "deploy")
    assert (line, at) == (7, under) and says in message


@pytest.mark.parametrize(
    ("config", "at", "says"),
    [
        ('  count = "3"', "count", "must be a non-negative integer"),
        ("  count = 3,\n  timeot = 5", "timeot", "Unknown config key `timeot`"),
    ],
)
def test_operator_config_is_checked(config: str, at: str, says: str) -> None:
    text = (
        f"define operator b from generic::batch\nwith\n{config}\nend;\n"
        "create operator b;\nselect event from in into b;\nselect event from b into out;\n"
    )
    line, under, message = _error(text, "query")
    assert under == at and says in message
    assert text.splitlines()[line - 1].strip().startswith(at)


def test_missing_required_operator_config() -> None:
    text = (
        "define operator b from generic::batch;\n"
        "create operator b;\nselect event from in into b;\nselect event from b into out;\n"
    )
    line, under, message = _error(text, "query")
    assert (line, under) == (1, "generic::batch")
    assert "Missing required config key `count`" in message


def test_bucket_takes_no_config() -> None:
    text = (
        "define operator b from grouper::bucket\nwith\n  rate = 1\nend;\n"
        "create operator b;\nselect event from in into b;\nselect event from b into out;\n"
    )
    line, under, message = _error(text, "query")
    assert (line, under) == (3, "rate")
    assert "valid keys: none" in message


def test_window_config_key_typo() -> None:
    text = "define window w from tumbling\nwith\n  sise = 3\nend;\n" + (
        "select aggr::stats::count() from in[w] into out;\n"
    )
    line, under, message = _error(text, "query")
    assert (line, under) == (3, "sise")
    assert "valid keys: `size`, `interval`, `max_groups`" in message
