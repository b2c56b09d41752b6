"""Which flow args a job may take at start (compiler/passes/deploy_args.py): placed values are
substituted at their key paths, every other use keeps the arg at build time with the reason."""

from __future__ import annotations

from compiler.ir.flow import FlowArg
from compiler.pipeline import check_program, compile_source
from compiler.source import Source
from compiler.testing.loader import load_job

EXIT = (
    "define connector e from exit; define pipeline p pipeline select event from in into out; "
    "end; create connector e; create pipeline p; connect /connector/c to /pipeline/p; "
    "connect /pipeline/p to /connector/e;"
)


def _flow(args: str, connector: str, create: str, deploy: str = "deploy flow f;") -> str:
    return f"define flow f args {args} flow {connector} {create} {EXIT} end; {deploy}"


def _args(text: str) -> dict[str, FlowArg]:
    deployment = check_program(Source("t.troy", text), "deploy").ir
    return {a.name: a for flow in deployment.flows for a in flow.args}  # type: ignore[attr-defined]


FILE = 'define connector c from file args path with codec = "json", config = {CONFIG} end;'


def _file(config: str) -> str:
    return FILE.replace("{CONFIG}", config)


def test_a_placed_path_is_set_at_its_key_path() -> None:
    text = _flow(
        'p = "a.json"',
        _file('{"path": args.path, "mode": "read"}'),
        "create connector c with path = args.p end;",
        'deploy flow f with p = "b.json" end;',
    )
    assert _args(text)["p"] == FlowArg(name="p", value="b.json", sites=(("c", ("config", "path")),))


def test_placement_in_nested_records_and_arrays() -> None:
    text = _flow(
        'ns = "10.0.0.2"',
        "define connector c from dns_client args ns with "
        'config = {"nameservers": ["10.0.0.1", args.ns]} end;',
        "create connector c with ns = args.ns end;",
    )
    assert _args(text)["ns"].sites == (("c", ("config", "nameservers", 1)),)


def test_processors_are_decided_with_the_build() -> None:
    text = _flow(
        'p = ","',
        'define connector c from file args path with codec = "json", '
        'preprocessors = [{"name": "separate", "config": {"separator": args.path}}], '
        'config = {"path": "x.json", "mode": "read"} end;',
        "create connector c with path = args.p end;",
    )
    arg = _args(text)["p"]
    assert arg.sites == ()
    assert (
        arg.fixed
        == "it sets `preprocessors.0.config.separator` of connector `c`, decided with the build"
    )


def test_an_operand_keeps_the_arg_at_build_time() -> None:
    for config in (
        '{"path": args.path + ".json", "mode": "read"}',
        '{"path": "#{args.path}", "mode": "read"}',
    ):
        text = _flow('p = "a"', _file(config), "create connector c with path = args.p end;")
        arg = _args(text)["p"]
        assert arg.sites == () and arg.fixed == "connector `c` computes with it"


def test_computing_in_the_create_keeps_the_arg_at_build_time() -> None:
    text = _flow(
        'p = "a"',
        _file('{"path": args.path, "mode": "read"}'),
        'create connector c with path = args.p + ".json" end;',
    )
    assert _args(text)["p"].fixed == "`create connector c` computes with it"


def test_a_shaping_key_keeps_the_arg_at_build_time() -> None:
    text = _flow(
        'm = "read"',
        'define connector c from file args mode with codec = "json", '
        'config = {"path": "in.json", "mode": args.mode} end;',
        "create connector c with mode = args.m end;",
    )
    assert (
        _args(text)["m"].fixed == "it sets `config.mode` of connector `c`, decided with the build"
    )


def test_a_pipeline_arg_is_set_when_the_job_is_built() -> None:
    text = (
        "define flow f args n = 1 flow define connector e from exit; "
        "define pipeline p args n = 0 pipeline select args.n from in into out; end; "
        'define connector m from metronome with config = {"interval": 1} end; '
        "create connector m; create connector e; create pipeline p with n = args.n end; "
        "connect /connector/m to /pipeline/p; connect /pipeline/p to /connector/e; end; "
        "deploy flow f;"
    )
    assert _args(text)["n"].fixed == "it is given to pipeline `p` (compiled into its code)"


def test_the_job_names_args_by_flow_when_several_flows_are_deployed() -> None:
    flow = _flow(
        'p = "a.json"',
        _file('{"path": args.path, "mode": "read"}'),
        "create connector c with path = args.p end;",
        "",
    )
    text = flow + " deploy flow one from f; deploy flow two from f;"
    module = load_job(compile_source(Source("t.troy", text), "deploy").job, "two_flows")
    assert [a.name for a in module.FLOW.args] == ["one.p", "two.p"]
    assert [a.sites for a in module.FLOW.args] == [
        ((0, ("config", "path")),),
        ((2, ("config", "path")),),
    ]
