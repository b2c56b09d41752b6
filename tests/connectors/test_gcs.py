"""``gcs_streamer`` on Hadoop's ``gs`` file system (the shaded gcs-connector) against
fake-gcs-server started here: file → pipeline → part files under the sink's path in a bucket,
batch and stream (one folder per micro-batch), and the compile errors. Expected objects and
events are written by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from runtime_support.io.connectors.gcs import jar_path, root_url
from tests.support.flow_jobs import build_and_run
from tests.support.paths import ROOT
from tests.support.servers import gcs

NEEDS_SERVER = pytest.mark.skipif(
    gcs.binary() is None or not os.path.exists(jar_path()), reason=gcs.skip_reason()
)

FLOW = """
define flow main
flow
  define connector src from file
  with
    codec = "json", preprocessors = ["separate"], config = {{"path": {path}, "mode": "read"}}
  end;
  define connector dst from gcs_streamer
  with codec = "json", postprocessors = ["separate"], config = {streamer} end;
  define pipeline p pipeline select {{"n": event.n, "twice": event.n * 2}} from in into out; end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""
EXPECTED = [{"n": 1, "twice": 2}, {"n": 2, "twice": 4}, {"n": 3, "twice": 6}]


def _events(objects: dict[str, bytes], prefix: str) -> list[dict]:
    found = []
    for name, data in objects.items():
        if name.startswith(prefix) and name.rsplit("/", 1)[-1].startswith("part-"):
            found += [json.loads(line) for line in data.decode().splitlines() if line]
    return sorted(found, key=lambda e: e["n"])


def _inputs(tmp: Path) -> Path:
    folder = tmp / "in"
    folder.mkdir()
    (folder / "a.json").write_text('{"n": 1}\n{"n": 2}\n')
    (folder / "b.json").write_text('{"n": 3}\n')
    return folder


def test_root_url_of_tremors_upload_endpoint() -> None:
    assert root_url("https://storage.googleapis.com/upload/storage/v1/") == (
        "https://storage.googleapis.com/"
    )
    assert root_url("http://127.0.0.1:4443/upload/storage/v1") == "http://127.0.0.1:4443/"
    assert root_url("http://127.0.0.1:4443") == "http://127.0.0.1:4443/"


@NEEDS_SERVER
def test_gcs_batch_and_stream(tmp_path: Path) -> None:
    with gcs.gcs_server(tmp_path / "gcs") as server:
        server.create_bucket("bucket")
        inputs = json.dumps(str(_inputs(tmp_path)))
        streamer = json.dumps({"bucket": "bucket", "path": "out", "url": server.upload_url})
        build_and_run(tmp_path, FLOW.format(path=inputs, streamer=streamer), {})
        assert _events(server.objects("bucket"), "out/") == EXPECTED
        streamer = json.dumps({"bucket": "bucket", "path": "live", "url": server.upload_url})
        options = ["--stream", "--checkpoint", str(tmp_path / "ck"), "--trigger", "available-now"]
        text = FLOW.format(path=inputs, streamer=streamer)
        build_and_run(tmp_path, text, {}, *options, "--files-per-batch", "1")
        objects = server.objects("bucket")
        assert _events(objects, "live/") == EXPECTED
        folders = {name.split("/")[1].rsplit("-", 1)[-1] for name in objects if "live/" in name}
        assert folders == {"0000000000", "0000000001"}  # one micro-batch per input file


@pytest.mark.parametrize(
    ("streamer", "posts", "words"),
    [
        ('{"bucket": "b"}', "", 'postprocessors are `["separate"]`'),
        ('{"bucket": "b", "token": {"json": {}}}', '"separate"', 'an inline `{"json": …}`'),
        ("{}", '"separate"', "Missing required config key `bucket`"),
        ('{"bucket": "b", "mode": "fast"}', '"separate"', '"yolo", "consistent"'),
    ],
)
def test_gcs_compile_errors(streamer: str, posts: str, words: str) -> None:
    text = FLOW.format(path='"x.json"', streamer=streamer)
    text = text.replace('postprocessors = ["separate"]', f"postprocessors = [{posts}]")
    with pytest.raises(CompileError) as caught:
        compile_source(Source("t.troy", text), "deploy")
    assert words in str(caught.value)


@pytest.mark.long
@NEEDS_SERVER
def test_hundred_thousand_events_batch_and_stream() -> None:
    """benchmarks/connector_gcs.py: 100k events files → pipeline → gcs, batch and stream (its
    own emulator); every event arrives once in both runs."""
    import subprocess
    import sys

    root = ROOT
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "connector_gcs.py"), "--events", "100000"],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=7200,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.count("all 100000 once") == 2, done.stdout
