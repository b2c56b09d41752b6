"""End to end: a JSON-lines file → pipeline → PostgreSQL (and ClickHouse), on servers started
here (tests/support/servers), through the generated flow job. Prints events/s (over the job's whole
wall time, Spark's start included) and the time to the first row (job start → the first row
visible to another connection, polled every 0.1 s). Never a unit test.

Usage::

    python benchmarks/connector_jdbc.py [--events 100000] [--no-clickhouse] [--stream]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.flow_timing import report as report_run  # noqa: E402
from benchmarks.flow_timing import timed_job, write_events  # noqa: E402
from tests.support.servers import clickhouse, postgres  # noqa: E402

PIPELINE = 'select {"id": event.id, "name": event.name, "score": event.score * 2} from in'
FLOW = """define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {{"path": {path}, "mode": "read"}}
  end;
  define connector dst from {kind} with config = {config} end;
  define pipeline p pipeline {pipeline} into out; end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def timed_run(folder: Path, text: str, count_rows: Callable[[], int], args: list[str]) -> dict:
    """Build and run the flow; the wall time, the first row's time, the rows at the end."""
    result = timed_job(folder, text, lambda: count_rows() > 0, args, poll_s=0.1)
    return {**result, "rows": count_rows()}


def report(name: str, events: int, result: dict) -> None:
    report_run(name, events, result, "first row", f"rows {result['rows']}")


def bench_postgres(folder: Path, data: Path, events: int, stream: bool) -> None:
    with postgres.postgres_server() as pg:
        pg.sql("CREATE TABLE bench_json (event jsonb)")
        pg.sql("CREATE TABLE bench_cols (id bigint, name text, score bigint)")
        cols = [
            {"name": n, "type": "bigint" if n != "name" else "text"}
            for n in ("id", "name", "score")
        ]
        for table, extra in (("bench_json", {}), ("bench_cols", {"columns": cols})):
            config = json.dumps({"url": f"127.0.0.1:{pg.port}", "table": table, **extra})
            text = FLOW.format(
                path=json.dumps(str(data)), kind="postgres", config=config, pipeline=PIPELINE
            )
            count = lambda t=table: int(pg.sql(f"SELECT count(*) FROM {t}")[0])  # noqa: E731
            report(f"postgres {table} batch", events, timed_run(folder, text, count, []))
        if stream:
            pg.sql("CREATE TABLE bench_stream (event jsonb)")
            config = json.dumps({"url": f"127.0.0.1:{pg.port}", "table": "bench_stream"})
            text = FLOW.format(
                path=json.dumps(str(data)), kind="postgres", config=config, pipeline=PIPELINE
            )
            count = lambda: int(pg.sql("SELECT count(*) FROM bench_stream")[0])  # noqa: E731
            args = ["--stream", "--checkpoint", str(folder / "ck"), "--trigger", "available-now"]
            report("postgres bench_stream stream", events, timed_run(folder, text, count, args))


def bench_clickhouse(folder: Path, data: Path, events: int) -> None:
    with clickhouse.clickhouse_server(folder / "ch") as ch:
        ch.sql(
            "CREATE TABLE bench (id Int64, name String, score Int64) ENGINE = MergeTree() "
            "ORDER BY id"
        )
        cols = [
            {"name": "id", "type": "Int64"},
            {"name": "name", "type": "String"},
            {"name": "score", "type": "Int64"},
        ]
        config = json.dumps({"url": f"127.0.0.1:{ch.port}", "table": "bench", "columns": cols})
        text = FLOW.format(
            path=json.dumps(str(data)), kind="clickhouse", config=config, pipeline=PIPELINE
        )
        count = lambda: int(ch.sql("SELECT count() FROM bench")[0])  # noqa: E731
        report("clickhouse bench batch", events, timed_run(folder, text, count, []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--no-clickhouse", action="store_true")
    parser.add_argument("--stream", action="store_true", help="also a streaming run (postgres)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tremorc-bench-jdbc-") as tmp:
        folder = Path(tmp)
        data = folder / "events.json"
        write_events(data, args.events)
        if postgres.binary() is None:
            print(f"PostgreSQL is not installed: run {postgres.INSTALL}")
        else:
            bench_postgres(folder, data, args.events, args.stream)
        if not args.no_clickhouse and clickhouse.binary() is not None:
            bench_clickhouse(folder, data, args.events)


if __name__ == "__main__":
    main()
