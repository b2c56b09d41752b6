"""``s3_reader`` / ``s3_streamer`` on s3a against moto's S3 server started here: objects under a
prefix → pipeline → part files under the sink's path (batch, credentials from the environment
as in Tremor's integration tests), the same as a stream (credentials from ``auth``), and the
compile errors. Expected objects and events are written by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source
from compiler.source import Source
from tests.support.flow_jobs import build_and_run
from tests.support.servers import s3

pytestmark = pytest.mark.skipif(
    not s3.available(), reason=f"moto[server] is not installed: run {s3.INSTALL}"
)

FLOW = """
define flow main
flow
  define connector src from s3_reader
  with codec = "json", preprocessors = ["separate"], config = {reader} end;
  define connector dst from s3_streamer
  with codec = "json", postprocessors = ["separate"], config = {streamer} end;
  define pipeline p pipeline select {{"n": event.n, "twice": event.n * 2}} from in into out; end;
  create connector src; create connector dst; create pipeline p;
  connect /connector/src to /pipeline/p;
  connect /pipeline/p/out to /connector/dst;
end;
deploy flow main;
"""


def events(server: s3.S3Server, bucket: str, prefix: str) -> list[dict]:
    found = []
    for key in server.keys(bucket, prefix):
        if key.rsplit("/", 1)[-1].startswith("part-"):
            found += [json.loads(line) for line in server.text(bucket, key).splitlines() if line]
    return sorted(found, key=lambda e: e["n"])


def put_inputs(server: s3.S3Server, bucket: str) -> None:
    server.bucket(bucket)
    client = server.client()
    client.put_object(Bucket=bucket, Key="in/a.json", Body=b'{"n": 1}\n{"n": 2}\n')
    client.put_object(Bucket=bucket, Key="in/b.json", Body=b'{"n": 3}\n\n')
    client.put_object(Bucket=bucket, Key="other/c.json", Body=b'{"n": 100}\n')


def test_s3_batch_round_trip(tmp_path: Path) -> None:
    with s3.s3_server(tmp_path / "moto") as server:
        put_inputs(server, "bucket")
        endpoint = {"url": server.url, "aws_region": s3.REGION}
        reader = json.dumps({"bucket": "bucket", "prefix": "in/", **endpoint})
        streamer = json.dumps({"bucket": "bucket", "path": "out", "mode": "yolo", **endpoint})
        env = {"AWS_ACCESS_KEY_ID": s3.KEY, "AWS_SECRET_ACCESS_KEY": s3.SECRET}
        build_and_run(tmp_path, FLOW.format(reader=reader, streamer=streamer), env)
        assert events(server, "bucket", "out/") == [
            {"n": 1, "twice": 2},
            {"n": 2, "twice": 4},
            {"n": 3, "twice": 6},
        ]
        assert server.keys("bucket", "in/") == ["in/a.json", "in/b.json"]  # inputs untouched


def test_s3_stream_writes_one_folder_per_micro_batch(tmp_path: Path) -> None:
    with s3.s3_server(tmp_path / "moto") as server:
        put_inputs(server, "bucket")
        auth = {"access_key_id": s3.KEY, "secret_access_key": s3.SECRET}
        endpoint = {"url": server.url, "aws_region": s3.REGION, "auth": auth}
        reader = json.dumps({"bucket": "bucket", "prefix": "in/", **endpoint})
        streamer = json.dumps({"bucket": "bucket", "path": "live", **endpoint})
        options = ["--stream", "--checkpoint", str(tmp_path / "ck"), "--trigger", "available-now"]
        env = {"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}
        text = FLOW.format(reader=reader, streamer=streamer)
        build_and_run(tmp_path, text, env, *options, "--files-per-batch", "1")
        assert events(server, "bucket", "live/") == [
            {"n": 1, "twice": 2},
            {"n": 2, "twice": 4},
            {"n": 3, "twice": 6},
        ]
        folders = {key.split("/")[1].rsplit("-", 1)[-1] for key in server.keys("bucket", "live/")}
        assert folders == {"0000000000", "0000000001"}  # one micro-batch per object


@pytest.mark.parametrize(
    ("reader", "streamer", "posts", "words"),
    [
        ('{"bucket": "b"}', '{"bucket": "b"}', "", 'postprocessors are `["separate"]`'),
        ('{"bucket": "b"}', '{"bucket": "b"}', '"separate", "base64"', "nothing else"),
        (
            '{"bucket": "b", "auth": {"access_key_id": "k"}}',
            '{"bucket": "b"}',
            '"separate"',
            "`auth`",
        ),
        (
            '{"prefix": "x"}',
            '{"bucket": "b"}',
            '"separate"',
            "Missing required config key `bucket`",
        ),
        (
            '{"bucket": "b"}',
            '{"bucket": "b", "mode": "fast"}',
            '"separate"',
            '"yolo", "consistent"',
        ),
    ],
)
def test_s3_compile_errors(reader: str, streamer: str, posts: str, words: str) -> None:
    text = FLOW.format(reader=reader, streamer=streamer)
    text = text.replace('postprocessors = ["separate"]', f"postprocessors = [{posts}]")
    with pytest.raises(CompileError) as caught:
        compile_source(Source("t.troy", text), "deploy")
    assert words in str(caught.value)


@pytest.mark.long
def test_s3_100k_events(tmp_path: Path) -> None:
    """The done-when volume end to end (benchmarks/connector_s3.py times it): 100,000 events in
    10 objects → pipeline → part files, every one there once with its doubled field."""
    count = 100_000
    with s3.s3_server(tmp_path / "moto") as server:
        server.bucket("bucket")
        client = server.client()
        for index in range(10):
            body = "".join(f'{{"n": {n}}}\n' for n in range(index * 10_000, (index + 1) * 10_000))
            client.put_object(Bucket="bucket", Key=f"in/{index}.json", Body=body.encode())
        endpoint = {"url": server.url, "aws_region": s3.REGION}
        reader = json.dumps({"bucket": "bucket", "prefix": "in/", **endpoint})
        streamer = json.dumps({"bucket": "bucket", "path": "out", **endpoint})
        env = {"AWS_ACCESS_KEY_ID": s3.KEY, "AWS_SECRET_ACCESS_KEY": s3.SECRET}
        build_and_run(tmp_path, FLOW.format(reader=reader, streamer=streamer), env)
        found = events(server, "bucket", "out/")
        assert [event["n"] for event in found] == list(range(count))
        assert all(event["twice"] == 2 * event["n"] for event in found)
