"""The JDBC connectors against real servers started here: ``postgres`` (a tremorc extension) as
sink and source, batch and streaming (a replayed micro-batch adds no row), and ``clickhouse``
(Tremor's integration test ``clickhouse``: two records into a two-column table); compile
errors for what they reject. Expected rows are written by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from tests.support.paths import ROOT
from tests.support.servers import clickhouse, postgres

PEOPLE = [{"name": "Matthias", "nickname": "intern"}, {"name": "Sasha", "nickname": "Scrabsha"}]

needs_postgres = pytest.mark.skipif(
    postgres.binary() is None, reason=f"PostgreSQL is not installed: run {postgres.INSTALL}"
)
needs_clickhouse = pytest.mark.skipif(
    clickhouse.binary() is None, reason=f"ClickHouse is not installed: run {clickhouse.INSTALL}"
)


@pytest.fixture(scope="module")
def pg() -> Iterator[postgres.Postgres]:
    if postgres.binary() is None:
        pytest.skip(f"PostgreSQL is not installed: run {postgres.INSTALL}")
    with postgres.postgres_server() as server:
        yield server


def flow(connectors: str, source: str, sink: str, pipeline: str = "select event from in") -> str:
    """A flow of ``connectors`` (defines) from ``source`` through a pipeline into ``sink``."""
    return f"""
define flow main
flow
  {connectors}
  define pipeline p pipeline {pipeline} into out; end;
  create connector {source}; create connector {sink}; create pipeline p;
  connect /connector/{source} to /pipeline/p;
  connect /pipeline/p/out to /connector/{sink};
end;
deploy flow main;
"""


def fan_flow(connectors: str, sources: list[str], sinks: list[str]) -> str:
    """A flow of ``connectors``: one passthrough pipeline per source, into the sink at its
    position (one source: into every sink)."""
    pairs = (
        list(zip(sources, sinks, strict=True))
        if len(sources) > 1
        else [(sources[0], s) for s in sinks]
    )
    body = [connectors]
    for source in dict.fromkeys(sources):
        body.append(f"define pipeline p_{source} pipeline select event from in into out; end;")
        body.append(f"create connector {source}; create pipeline p_{source};")
        body.append(f"connect /connector/{source} to /pipeline/p_{source};")
    for source, sink in pairs:
        body.append(f"create connector {sink};")
        body.append(f"connect /pipeline/p_{source}/out to /connector/{sink};")
    return "define flow main\nflow\n" + "\n".join(body) + "\nend;\ndeploy flow main;\n"


def file_in(path: Path) -> str:
    return (
        'define connector src from file with codec = "json", preprocessors = ["separate"], '
        f'config = {{"path": {json.dumps(str(path))}, "mode": "read"}} end;'
    )


def file_out(path: Path, name: str = "dst") -> str:
    return (
        f'define connector {name} from file with codec = "json", postprocessors = ["separate"], '
        f'config = {{"path": {json.dumps(str(path))}, "mode": "truncate"}} end;'
    )


def run_flow(tmp: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    """Build ``text`` into a job and run it (``args``: the job's options)."""
    troy, job = tmp / "flow.troy", tmp / "job.py"
    troy.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    build = [sys.executable, "-m", "compiler", "build", str(troy), "-o", str(job)]
    subprocess.run(build, env=env, check=True, cwd=tmp, timeout=300)
    return subprocess.run(
        [sys.executable, str(job), *args],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=600,
    )


def lines(folder: Path) -> list[dict]:
    found = []
    for part in sorted(folder.glob("part-*")):
        found += [json.loads(line) for line in part.read_text().splitlines() if line]
    return found


def write_events(path: Path, events: list) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))


# Compile errors -----------------------------------------------------------------------------------


def check(text: str) -> CompileError:
    with pytest.raises(CompileError) as caught:
        compile_source(Source("t.troy", text), "deploy")
    return caught.value


def pg_define(config: str, extra: str = "") -> str:
    sink = f"define connector dst from postgres with {extra}config = {config} end;"
    return flow(file_in(Path("in.json")) + "\n" + sink, "src", "dst")


@pytest.mark.parametrize(
    ("config", "extra", "words"),
    [
        ('{"url": "h", "table": "t"}', 'codec = "json", ', "takes no codec"),
        ('{"url": "h", "table": "t"}', 'postprocessors = ["separate"], ', "no postprocessors"),
        ('{"url": "h"}', "", "needs `table`"),
        ('{"url": "h", "table": "t; drop table x"}', "", "must be a table name"),
        ('{"url": "h", "table": "t", "column": "a b"}', "", "must be an identifier"),
        ('{"url": "h", "table": "t", "columns": [{"name": "a", "type": "money"}]}', "", "money"),
        ('{"url": "h", "table": "t", "columns": [{"name": "a"}]}', "", "exactly `name` and"),
        (
            '{"url": "h", "table": "t", "column": "e", "columns": [{"name": "a", "type": "text"}]}',
            "",
            "exclude each other",
        ),
        ('{"url": "h", "table": "t", "dsn": "x"}', "", "Unknown config key `dsn`"),
    ],
)
def test_postgres_compile_errors(config: str, extra: str, words: str) -> None:
    err = check(pg_define(config, extra))
    assert words in str(err)


def test_clickhouse_compile_errors() -> None:
    define = 'define connector dst from clickhouse with config = {{"url": "h", {}}} end;'
    base = '"table": "t", "columns": [{"name": "a", "type": "String"}]'
    for config, words in [
        ('"table": "t", "columns": [{"name": "a", "type": "IPv4"}]', "type IPv4 is not supported"),
        (base + ', "compression": "zstd"', 'one of "none", "lz4"'),
        ('"table": "t"', "Missing required config key `columns`"),
    ]:
        text = flow(file_in(Path("in.json")) + define.format(config), "src", "dst")
        assert words in str(check(text))
    nullable = '"table": "t", "columns": [{"name": "a", "type": {"Nullable": "UInt8"}}]'
    text = flow(file_in(Path("x")) + define.format(nullable), "src", "dst")
    compile_source(Source("t.troy", text), "deploy")


def test_clickhouse_is_a_sink_only() -> None:
    define = (
        'define connector ch from clickhouse with config = {"url": "h", "table": "t", '
        '"columns": [{"name": "a", "type": "String"}]} end;'
    )
    err = check(flow(define + file_out(Path("out")), "ch", "dst"))
    assert "ch" in str(err)


# PostgreSQL -------------------------------------------------------------------------------------


def pg_sink(server: postgres.Postgres, config: str, name: str = "dst") -> str:
    return (
        f"define connector {name} from postgres with config = "
        f'{{"url": "127.0.0.1:{server.port}", {config}}} end;'
    )


@needs_postgres
def test_postgres_round_trip(pg: postgres.Postgres, tmp_path: Path) -> None:
    """Events → a jsonb column and into typed columns (one job, two sinks); read back by table
    and by query (one job, two sources): two drivers, not four."""
    pg.sql("CREATE TABLE rt_json (event jsonb); CREATE TABLE rt_cols (name text, nickname text)")
    write_events(tmp_path / "in.json", PEOPLE + [{"name": "Solo"}])
    columns = '"columns": [{"name": "name", "type": "text"}, {"name": "nickname", "type": "text"}]'
    sinks = pg_sink(pg, '"table": "rt_json"', "to_json")
    sinks += pg_sink(pg, f'"table": "rt_cols", {columns}', "to_cols")
    done = run_flow(
        tmp_path, fan_flow(file_in(tmp_path / "in.json") + sinks, ["src"], ["to_json", "to_cols"])
    )
    assert done.returncode == 0, done.stderr
    rows = pg.sql("SELECT event->>'name', event->>'nickname' FROM rt_json ORDER BY 1")
    assert rows == ["Matthias|intern", "Sasha|Scrabsha", "Solo|"]
    assert pg.sql("SELECT name, nickname IS NULL FROM rt_cols ORDER BY 1") == [
        "Matthias|f",
        "Sasha|f",
        "Solo|t",  # Solo has no nickname: NULL
    ]
    query = "SELECT name, nickname AS nick FROM rt_cols WHERE nickname IS NOT NULL ORDER BY 1 DESC"
    sources = (
        "define connector by_table from postgres with config = "
        f'{{"url": "127.0.0.1:{pg.port}", "table": "rt_json", "column": "event"}} end;'
        "define connector by_query from postgres with config = "
        f'{{"url": "127.0.0.1:{pg.port}", "query": {json.dumps(query)}}} end;'
    )
    outs = file_out(tmp_path / "back", "back") + file_out(tmp_path / "q", "q")
    done = run_flow(tmp_path, fan_flow(sources + outs, ["by_table", "by_query"], ["back", "q"]))
    assert done.returncode == 0, done.stderr
    assert sorted(lines(tmp_path / "back"), key=str) == sorted(PEOPLE + [{"name": "Solo"}], key=str)
    assert lines(tmp_path / "q") == [
        {"name": "Sasha", "nick": "Scrabsha"},
        {"name": "Matthias", "nick": "intern"},
    ]


@needs_postgres
def test_postgres_batched_event_is_a_row_per_element(pg: postgres.Postgres, tmp_path: Path) -> None:
    """A ``generic::batch`` event reaches the sink as Tremor's sinks iterate it: one row per
    element (5 events in batches of 2: two batches of 2; the fifth waits for a third, as in
    Tremor without a timeout)."""
    pg.sql("CREATE TABLE batched (event jsonb)")
    write_events(tmp_path / "in.json", [{"n": n} for n in range(5)])
    pipeline = (
        "define operator b from generic::batch with count = 2 end; create operator b; "
        "select event from in into b; select event from b"
    )
    text = flow(
        file_in(tmp_path / "in.json") + pg_sink(pg, '"table": "batched"'), "src", "dst", pipeline
    )
    done = run_flow(tmp_path, text)
    assert done.returncode == 0, done.stderr
    assert pg.sql("SELECT event->>'n' FROM batched ORDER BY 1") == ["0", "1", "2", "3"]


@needs_postgres
def test_postgres_column_type_errors_fail_the_write(pg: postgres.Postgres, tmp_path: Path) -> None:
    pg.sql("CREATE TABLE bad (n smallint)")
    write_events(tmp_path / "in.json", [{"n": 1}, {"n": 70000}])
    sink = pg_sink(pg, '"table": "bad", "columns": [{"name": "n", "type": "smallint"}]')
    done = run_flow(tmp_path, flow(file_in(tmp_path / "in.json") + sink, "src", "dst"))
    assert done.returncode != 0
    assert "column `n` (smallint) can not hold 70000" in done.stderr


REPLAY = """
import json, sys
from runtime_support.flows.connectors import jar_conf
from runtime_support.io.connectors.base import ConnectorSpec, build_sink
from runtime_support.spark.session import get_session

config, run = json.loads(sys.argv[1]), sys.argv[2]
spec = ConnectorSpec(
    "main::dst", "postgres", {"config": config}, sink="runtime_support.io.connectors.jdbc.JdbcSink"
)
spark = get_session(quiet=True, conf=jar_conf((spec,)))
sink = build_sink(spec)
rows = [(json.dumps({"replayed": i}), i, [0], "main/dst/in") for i in range(3)]
frame = spark.createDataFrame(rows, "value string, seq long, sub array<long>, port string")
for batch_id in (2, 3, 3, 4):  # 2: committed by the stream; 3 twice; 4 after a crashed attempt
    sink.write_batch(frame, batch_id, run)
"""


@needs_postgres
def test_postgres_stream_replay_adds_no_rows(pg: postgres.Postgres, tmp_path: Path) -> None:
    """Three micro-batches streamed; then the sink's micro-batch calls replayed as Spark makes
    them after a crash (same run, same batch id): a committed batch adds no row, a new one adds
    its rows once, one whose earlier attempt died after staging adds them once."""
    pg.sql("CREATE TABLE st (event jsonb)")
    folder = tmp_path / "in"
    folder.mkdir()
    for index in range(3):
        write_events(folder / f"{index}.json", [{"file": index, "i": i} for i in range(4)])
    source = (
        'define connector src from file with codec = "json", preprocessors = ["separate"], '
        f'config = {{"path": {json.dumps(str(folder))}, "mode": "read"}} end;'
    )
    text = flow(source + pg_sink(pg, '"table": "st"'), "src", "dst")
    checkpoint = tmp_path / "ck"
    options = ["--stream", "--checkpoint", str(checkpoint), "--trigger", "available-now"]
    done = run_flow(tmp_path, text, *options, "--files-per-batch", "1")
    assert done.returncode == 0, done.stderr
    assert pg.sql("SELECT count(*), count(DISTINCT event) FROM st") == ["12|12"]
    assert pg.sql("SELECT batch_id FROM _tremorc_batch ORDER BY 1") == ["0", "1", "2"]
    run = json.loads((checkpoint / "tremorc-flow.json").read_text())["run"]
    pg.sql(
        f"CREATE TABLE st_tremorc_{run}_4 (event jsonb); INSERT INTO st_tremorc_{run}_4 "
        """VALUES ('{"stale": true}')"""
    )
    config = {"url": f"127.0.0.1:{pg.port}", "table": "st"}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    replay = [sys.executable, "-c", REPLAY, json.dumps(config), run]
    done = subprocess.run(replay, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert pg.sql("SELECT count(*), count(DISTINCT event) FROM st") == ["18|15"]
    assert pg.sql("SELECT count(*) FROM st WHERE event ? 'replayed'") == ["6"]
    assert pg.sql("SELECT count(*) FROM st WHERE event ? 'stale'") == ["0"]
    assert pg.sql("SELECT batch_id FROM _tremorc_batch ORDER BY 1") == ["0", "1", "2", "3", "4"]
    assert pg.sql("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'st_tremorc_%'") == ["0"]


@needs_postgres
def test_postgres_source_can_not_stream(pg: postgres.Postgres, tmp_path: Path) -> None:
    source = (
        "define connector src from postgres with config = "
        f'{{"url": "127.0.0.1:{pg.port}", "query": "SELECT 1 AS x"}} end;'
    )
    text = flow(source + file_out(tmp_path / "out"), "src", "dst")
    done = run_flow(tmp_path, text, "--stream", "--checkpoint", str(tmp_path / "ck"))
    assert done.returncode == 2
    assert "Spark's JDBC source has no streaming reader" in done.stderr


# ClickHouse -------------------------------------------------------------------------------------


@needs_clickhouse
def test_clickhouse_integration(tmp_path: Path) -> None:
    """Tremor's integration test: in.json's two records into `tremor (name, nickname)`."""
    with clickhouse.clickhouse_server(tmp_path / "ch") as ch:
        ch.sql("CREATE TABLE tremor (name String, nickname String) ENGINE Memory")
        write_events(tmp_path / "in.json", PEOPLE)
        sink = (
            "define connector dst from clickhouse with config = "
            f'{{"url": "127.0.0.1:{ch.port}", "compression": "lz4", "table": "tremor", '
            '"columns": [{"name": "name", "type": "String"}, '
            '{"name": "nickname", "type": "String"}]} end;'
        )
        done = run_flow(tmp_path, flow(file_in(tmp_path / "in.json") + sink, "src", "dst"))
        assert done.returncode == 0, done.stderr
        rows = ch.sql("SELECT name, nickname FROM tremor ORDER BY name FORMAT JSONEachRow")
        assert [json.loads(row) for row in rows] == PEOPLE


# The example -------------------------------------------------------------------------------------


@needs_postgres
def test_example_file_to_postgres(pg: postgres.Postgres, tmp_path: Path) -> None:
    """examples/file_to_postgres as its README runs it (from the repository root), against
    this server: the rows its README shows."""
    pg.sql(
        "CREATE TABLE requests (host text, path text, status smallint, ms double precision, "
        "slow boolean); CREATE TABLE raw (event jsonb)"
    )
    text = (ROOT / "examples" / "file_to_postgres" / "flow.troy").read_text()
    assert text.count('"127.0.0.1:55432"') == 2
    (tmp_path / "flow.troy").write_text(text.replace("127.0.0.1:55432", f"127.0.0.1:{pg.port}"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "compiler", "run", str(tmp_path / "flow.troy")]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert pg.sql("SELECT host, path, status, ms, slow FROM requests ORDER BY ms") == [
        "web-1|/index.html|200|12.5|f",
        "web-3|/login|401|33|f",
        "web-1|/search|200|480|t",
        "web-3|/checkout|500|1210.75|t",
    ]
    assert pg.sql("SELECT count(*), min(event->>'host') FROM raw") == ["4|web-1"]


@needs_postgres
@pytest.mark.long
def test_postgres_100k_events(pg: postgres.Postgres, tmp_path: Path) -> None:
    """The done-when volume end to end (benchmarks/connector_jdbc.py times it): 100,000 events
    into typed columns, every one there once."""
    pg.sql("CREATE TABLE big (id bigint, name text)")
    count = 100_000
    write_events(tmp_path / "in.json", [{"id": i, "name": f"n{i % 97}"} for i in range(count)])
    columns = '"columns": [{"name": "id", "type": "bigint"}, {"name": "name", "type": "text"}]'
    sink = pg_sink(pg, f'"table": "big", {columns}')
    done = run_flow(tmp_path, flow(file_in(tmp_path / "in.json") + sink, "src", "dst"))
    assert done.returncode == 0, done.stderr
    assert pg.sql("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM big") == [
        f"{count}|{count}|0|{count - 1}"
    ]
