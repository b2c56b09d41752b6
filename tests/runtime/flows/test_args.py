"""runtime_support/flows/args.py: the value rule, the precedence and the masks (no Spark)."""

from __future__ import annotations

import io

import pytest

from runtime_support.flows.args import (
    ArgError,
    FlowArg,
    bind_args,
    parse_value,
    redacted,
    secret_masks,
)
from runtime_support.io.connectors.base import ConnectorSpec

ARGS = (
    FlowArg(name="host", value="localhost", sites=((0, ("config", "url")),)),
    FlowArg(name="port", value=9092, sites=((0, ("config", "ports", 1)),)),
    FlowArg(name="ratio", value=0.5, sites=((0, ("config", "ratio")),)),
)
SPEC = ConnectorSpec(
    alias="main::c",
    kind="file",
    params={"config": {"url": "localhost", "ports": [1, 9092], "ratio": 0.5}},
)


def test_values_are_json_where_they_parse_else_strings() -> None:
    assert parse_value("9092") == 9092
    assert parse_value("1.5") == 1.5
    assert parse_value("true") is True
    assert parse_value('"007"') == "007"
    assert parse_value('{"a": [1]}') == {"a": [1]}
    assert parse_value("/tmp/in.json") == "/tmp/in.json"
    assert parse_value("") == ""


def test_arg_over_environment_over_build_time_value() -> None:
    environ = {"TREMORC_ARG_HOST": "env-host", "TREMORC_ARG_PORT": "1", "PATH": "/bin"}
    (spec,) = bind_args((SPEC,), ARGS, ["port=2", "port=3", "ratio=2"], environ)
    assert spec.params == {"config": {"url": "env-host", "ports": [1, 3], "ratio": 2}}
    assert SPEC.params["config"]["url"] == "localhost"  # the job's own spec is left as built
    assert bind_args((SPEC,), ARGS, [], {})[0] is SPEC


def test_a_mistyped_value_names_no_value() -> None:
    with pytest.raises(ArgError) as info:
        bind_args((SPEC,), ARGS, ["port=secret-port"], {})
    assert "secret-port" not in str(info.value)


def test_masks_cover_the_text_and_the_string_it_parses_to() -> None:
    masks = secret_masks(ARGS, ['host="hunter2-host"'], {"TREMORC_ARG_PORT": "12"})
    assert masks == {'"hunter2-host"': "<arg host>", "hunter2-host": "<arg host>"}
    stream = io.StringIO()

    class Holder:
        stderr = stream

    with redacted(Holder, "stderr", masks):
        Holder.stderr.write("can not reach hunter2-host:12\n")
    assert Holder.stderr is stream
    assert stream.getvalue() == "can not reach <arg host>:12\n"
