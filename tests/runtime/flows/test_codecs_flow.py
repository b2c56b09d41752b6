"""Codecs end to end, through generated troy jobs on Spark: a ``file`` source of influx lines
→ pipeline → a ``file`` sink of statsd lines (a malformed line reaching the source's ``err`` port
with the reason, as in Tremor),
in batch and ``--stream``; and MessagePack bytes in and out, exactly (bytes that are not UTF-8
included). The expected outputs are worked out here from the inputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgpack
import pytest

from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import run_stream_flow
from runtime_support.io.connectors.base import RunContext
from tests.runtime.flows.test_stream_flow import build, stream_args

INFLUX_TO_STATSD = """
define flow main
flow
  define connector src from file
  with codec = "influx", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dst from file
  with codec = "statsd", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define connector bad from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @ERR@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    select {"metric": "#{event.measurement}.#{event.tags.host}", "type": "g",
            "value": event.fields.v}
    from in into out;
  end;
  define pipeline errors
  pipeline
    select event from in into out;
  end;
  create connector src; create connector dst; create connector bad;
  create pipeline p; create pipeline errors;
  connect /connector/src to /pipeline/p;
  connect /connector/src/err to /pipeline/errors;
  connect /pipeline/p/out to /connector/dst;
  connect /pipeline/errors to /connector/bad;
end;
deploy flow main;
"""

BAD = "cpu,host=a"  # no fields: not line protocol


def influx_lines(start: int, count: int) -> list[str]:
    lines = []
    for i in range(start, start + count):
        value = f"{i}i" if i % 2 else f"{i}.5"
        lines.append(f"cpu,host=h{i % 3} v={value} {1_000_000 + i}")
    return lines


def statsd_expected(start: int, count: int) -> list[str]:
    return [f"cpu.h{i % 3}:{i if i % 2 else f'{i}.5'}|g" for i in range(start, start + count)]


def write(folder: Path, number: int, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"f{number:03d}.txt"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))


def lines_in(folder: Path) -> list[str]:
    return [
        line
        for part in sorted(folder.glob("part-*"))
        for line in part.read_text().split("\n")
        if line
    ]


def check_err(folder: Path) -> None:
    records = [json.loads(line) for line in lines_in(folder)]
    assert len(records) == 1
    assert records[0]["event"] == BAD
    assert records[0]["error"].startswith("Invalid influx input: Invalid Influx Line Protocol data")


@pytest.mark.spark
def test_influx_file_to_statsd_file_in_batch(spark, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("\n".join([*influx_lines(0, 6), BAD, *influx_lines(6, 5)]) + "\n")
    module = build(INFLUX_TO_STATSD, IN=source, OUT=tmp_path / "out", ERR=tmp_path / "err")
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index")) == 0
    assert lines_in(tmp_path / "out") == statsd_expected(0, 11)
    check_err(tmp_path / "err")


@pytest.mark.spark
def test_influx_file_folder_to_statsd_file_streaming(spark, tmp_path: Path) -> None:
    write(tmp_path / "in", 0, influx_lines(0, 4))
    write(tmp_path / "in", 1, [*influx_lines(4, 3), BAD])
    write(tmp_path / "in", 2, influx_lines(7, 4))
    module = build(INFLUX_TO_STATSD, IN=tmp_path / "in", OUT=tmp_path / "out", ERR=tmp_path / "err")
    run_stream_flow(
        spark, module.FLOW, module.run_pipeline, stream_args(tmp_path / "ck"), RunContext()
    )
    assert sorted(lines_in(tmp_path / "out")) == sorted(statsd_expected(0, 11))
    check_err(tmp_path / "err")


MSGPACK = """
define flow main
flow
  define connector src from file
  with codec = "msgpack", config = {"path": @IN@, "mode": "read"}
  end;
  define connector dst from file
  with codec = "msgpack", postprocessors = ["separate"],
    config = {"path": @OUT@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    select {"id": event.id + 1, "blob": event.blob, "f": event.f * 2.0, "tags": event.tags}
    from in into out;
  end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_msgpack_bytes_in_and_out_exactly(spark, tmp_path: Path) -> None:
    event = {"id": 41, "f": 0.25, "tags": ["a", "ü"]}
    source = tmp_path / "in.msgpack"  # no preprocessor: the whole file is one event
    source.write_bytes(msgpack.packb({**event, "blob": "\xff\x00é"}, use_bin_type=True))
    module = build(MSGPACK, IN=source, OUT=tmp_path / "out")
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index")) == 0
    data = b"".join(p.read_bytes() for p in sorted((tmp_path / "out").glob("part-*")))
    expected = {"id": 42, "blob": "\xff\x00é", "f": 0.5, "tags": ["a", "ü"]}
    assert data == msgpack.packb(expected, use_bin_type=True) + b"\n"


CSV_TO_YAML = """
define flow main
flow
  define connector console from stdio
  with codec = "csv", preprocessors = ["separate"] end;
  define connector out from stdio
  with codec = "yaml", postprocessors = ["separate"] end;
  define pipeline p
  pipeline
    select {"name": event[0], "n": event[1]} from in into out;
  end;
  create connector console; create connector out; create pipeline p;
  connect /connector/console to /pipeline/p;
  connect /pipeline/p to /connector/out;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_stdio_csv_in_yaml_out(spark, tmp_path: Path) -> None:
    (tmp_path / "in.csv").write_text('a,1\n"b, c",2\n', encoding="utf-8")
    module = build(CSV_TO_YAML)
    ctx = RunContext(stdin_path=str(tmp_path / "in.csv"), stdout_path=str(tmp_path / "out"))
    assert run_flow(spark, module.FLOW, module.run_pipeline, ctx) == 0
    assert (tmp_path / "out").read_text() == "name: a\nn: '1'\n\nname: b, c\nn: '2'\n\n"


JSON_ERRORS = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector dst from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @OUT@, "mode": "truncate"}
  end;
  define connector bad from file
  with codec = "json", postprocessors = ["separate"], config = {"path": @ERR@, "mode": "truncate"}
  end;
  define pipeline p pipeline select event.i from in into out; end;
  define pipeline errors pipeline select event from in into out; end;
  create connector src; create connector dst; create connector bad;
  create pipeline p; create pipeline errors;
  connect /connector/src to /pipeline/p;
  connect /connector/src/err to /pipeline/errors;
  connect /pipeline/p/out to /connector/dst;
  connect /pipeline/errors to /connector/bad;
end;
deploy flow main;
"""


@pytest.mark.spark
def test_json_source_err_port_gets_the_bad_lines(spark, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_bytes(b'{"i": 1}\n{"i": \n\n{"i": 3}\n\xff\n')
    module = build(JSON_ERRORS, IN=source, OUT=tmp_path / "out", ERR=tmp_path / "err")
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index")) == 0
    assert lines_in(tmp_path / "out") == ["1", "3"]
    records = [json.loads(line) for line in lines_in(tmp_path / "err")]
    assert [r["event"] for r in records] == ['{"i": ', "/w=="]  # the text; bytes as base64
    assert all(r["error"].startswith("Invalid JSON input: ") for r in records)
