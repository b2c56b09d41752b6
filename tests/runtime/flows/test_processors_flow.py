"""Processors in real flow jobs on Spark: a ``file`` source with ``decompress`` + ``separate``
over a gzip and a zstd file, and ``file`` sinks with ``compress``/``base64``/``separate`` and
``streaming-compress`` postprocessors, in batch and as a stream. Inputs are compressed here by
the libraries themselves and outputs decoded by them; expected events come from the inputs."""

from __future__ import annotations

import base64
import gzip
import json
import lzma
import os
from pathlib import Path
from typing import Any

import cramjam
import pytest

from runtime_support.flows.batch import run_flow
from runtime_support.flows.streaming import run_stream_flow
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.file import FileSource
from runtime_support.spark.input_lines import SOURCE_ERROR
from tests.runtime.flows.test_stream_flow import build, stream_args

pytestmark = pytest.mark.spark

FLOW = """
define flow main
flow
  define connector src from file
  with codec = "json", preprocessors = ["decompress", "separate"],
    config = {"path": @IN@, "mode": "read"}
  end;
  define connector packed from file
  with codec = "json",
    postprocessors = [{"name": "compress", "config": {"algorithm": "zstd"}}, "base64", "separate"],
    config = {"path": @PACKED@, "mode": "truncate"}
  end;
  define connector xzed from file
  with codec = "json",
    postprocessors = ["separate", {"name": "streaming-compress", "config": {"algorithm": "xz2"}}],
    config = {"path": @XZ@, "mode": "truncate"}
  end;
  define pipeline p
  pipeline
    select {"f": event.f, "i": event.i, "big": event.i > 2} from in into out;
  end;
  create connector src; create connector packed; create connector xzed; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/packed;
  connect /pipeline/p/out to /connector/xzed;
end;
deploy flow main;
"""


def _lines(kind: str, count: int) -> bytes:
    return b"".join(b'{"f": "%s", "i": %d}\n' % (kind.encode(), i) for i in range(count))


def _inputs(folder: Path) -> list[dict[str, Any]]:
    """A gzip file, a zstd file and a plain one (autodetect passes it through)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.gz").write_bytes(gzip.compress(_lines("gz", 5)))
    (folder / "b.zst").write_bytes(bytes(cramjam.zstd.compress(_lines("zst", 4))))
    (folder / "c.json").write_bytes(_lines("plain", 3))
    for number, name in enumerate(("a.gz", "b.zst", "c.json")):
        os.utime(folder / name, (1_700_000_000 + number, 1_700_000_000 + number))
    counts = {"gz": 5, "zst": 4, "plain": 3}
    return [{"f": f, "i": i, "big": i > 2} for f, n in counts.items() for i in range(n)]


def _packed(folder: Path) -> list[dict[str, Any]]:
    """Every event of the compress + base64 + separate sink, decoded line by line."""
    lines = [line for p in sorted(folder.glob("part-*")) for line in p.read_bytes().splitlines()]
    return [json.loads(bytes(cramjam.zstd.decompress(base64.b64decode(x)))) for x in lines]


def _xz(folder: Path) -> list[dict[str, Any]]:
    """Every event of the streaming-compress sink: each part file is one xz stream of lines."""
    parts = [p.read_bytes() for p in sorted(folder.glob("part-*"))]
    assert all(p.count(b"\xfd7zXZ\x00") == 1 for p in parts)
    return [json.loads(x) for p in parts for x in lzma.decompress(p).splitlines()]


def _key(event: dict[str, Any]) -> tuple[str, int]:
    return event["f"], event["i"]


def test_batch_decompress_and_compress(spark, tmp_path: Path) -> None:
    expected = sorted(_inputs(tmp_path / "in"), key=_key)
    paths = {"IN": tmp_path / "in", "PACKED": tmp_path / "packed", "XZ": tmp_path / "xz"}
    module = build(FLOW, **paths)
    assert run_flow(spark, module.FLOW, module.run_pipeline, RunContext(ingest_ns="index")) == 0
    assert sorted(_packed(tmp_path / "packed"), key=_key) == expected
    assert sorted(_xz(tmp_path / "xz"), key=_key) == expected
    # each part file is in emission order: a file's events keep their order
    for part in sorted((tmp_path / "packed").glob("part-*")):
        decoded = _packed_file(part)
        for kind in ("gz", "zst", "plain"):
            own = [e["i"] for e in decoded if e["f"] == kind]
            assert own == sorted(own)


def _packed_file(part: Path) -> list[dict[str, Any]]:
    lines = part.read_bytes().splitlines()
    return [json.loads(bytes(cramjam.zstd.decompress(base64.b64decode(x)))) for x in lines]


def test_stream_equals_batch(stream_spark, tmp_path: Path) -> None:
    expected = sorted(_inputs(tmp_path / "in"), key=_key)
    paths = {"IN": tmp_path / "in", "PACKED": tmp_path / "packed", "XZ": tmp_path / "xz"}
    module = build(FLOW, **paths)
    args = stream_args(tmp_path / "ck")
    run_stream_flow(stream_spark, module.FLOW, module.run_pipeline, args, RunContext())
    assert sorted(_packed(tmp_path / "packed"), key=_key) == expected
    assert sorted(_xz(tmp_path / "xz"), key=_key) == expected
    batches = {p.name.split("-")[2] for p in (tmp_path / "packed").glob("part-*")}
    assert len(batches) == 3  # one micro-batch per file (files_per_batch 1)


def test_source_errors_are_err_records(spark, tmp_path: Path) -> None:
    """A file the chain fails on (gzip magic, not gzip) and a chunk the codec rejects are
    err records; the other files' and chunks' events go on."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.gz").write_bytes(b"\x1f\x8b\x08\x00 not gzip at all")
    (tmp_path / "in" / "b.txt").write_bytes(b'{"ok": 1}\n{bad\n')
    params = {
        "codec": "json",
        "preprocessors": ["decompress", "separate"],
        "config": {"path": str(tmp_path / "in"), "mode": "read"},
    }
    source = FileSource(ConnectorSpec("main::src", "file", params))
    rows = source.read(spark, RunContext(ingest_ns="index")).orderBy("seq").collect()
    assert [r.seq for r in rows] == [0, 1, 2]
    first = json.loads(rows[0].value)
    assert rows[0].origin == SOURCE_ERROR and first["source"] == "main::src"
    assert first["error"].startswith("gzip")
    assert json.loads(rows[1].value) == {"ok": 1} and rows[1].origin != SOURCE_ERROR
    bad = json.loads(rows[2].value)
    assert rows[2].origin == SOURCE_ERROR and bad["event"] == "{bad"
    assert bad["error"].startswith("Invalid JSON input")


def test_ingest_ns_and_length_prefix(spark, tmp_path: Path) -> None:
    """``length-prefixed`` then ``ingest-ns``: each message's first 8 bytes are its ingest time."""
    messages = [(1_000 + i).to_bytes(8, "big") + b'"m%d"' % i for i in range(3)]
    wire = b"".join(len(m).to_bytes(8, "big") + m for m in messages) + b"\x00" * 4  # tail kept
    (tmp_path / "in.bin").write_bytes(wire)
    params = {
        "codec": "json",
        "preprocessors": ["length-prefixed", "ingest-ns"],
        "config": {"path": str(tmp_path / "in.bin"), "mode": "read"},
    }
    source = FileSource(ConnectorSpec("main::src", "file", params))
    rows = source.read(spark, RunContext(ingest_ns="index")).orderBy("seq").collect()
    assert [(json.loads(r.value), r.ingest_ns) for r in rows] == [
        ("m0", 1_000),
        ("m1", 1_001),
        ("m2", 1_002),
    ]
