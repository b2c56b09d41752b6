"""``kafka_consumer`` / ``kafka_producer`` against a real Kafka broker (KRaft, started by the
test, see tests/support/servers/kafka.py): batch topic → pipeline → topic, Tremor's own integration
test
``tremor-cli/tests/integration/kafka_connectors`` (its consume flow and expected lines, ported by
hand), a streaming run killed with SIGKILL and restarted from its checkpoint, and the compile
errors of what Spark's Kafka connector can not do. Expected values are written here, never
produced by the code under test."""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from compiler.diagnostics import CompileError
from compiler.pipeline import compile_source, kind_of
from compiler.source import Source
from tests.support.kafka_jobs import (
    ENV,
    INTEGRATION_MESSAGES,
    TIMEOUT,
    needs_kafka,
    new_topic,
    run_job,
    write_job,
)
from tests.support.paths import ROOT
from tests.support.proc_tree import kill_tree

pytestmark = needs_kafka


def _consumer(brokers: str, topic: str, mode: str = '"performance"') -> str:
    return f"""
  define connector input from kafka_consumer
  with
    codec = "json",
    config = {{
      "brokers": ["{brokers}"],
      "topics": ["{topic}"],
      "group_id": "tremorc-test",
      "mode": {mode}
    }}
  end;"""


def _producer(brokers: str, topic: str) -> str:
    return f"""
  define connector output from kafka_producer
  with
    codec = "json",
    config = {{"brokers": ["{brokers}"], "topic": "{topic}", "key": "snot"}}
  end;"""


TAG = """
  define pipeline tag
  pipeline
    select {
      "n": event.n,
      "key": $kafka_consumer.key,
      "partition": $kafka_consumer.partition,
      "offset": $kafka_consumer.offset,
      "topic": $kafka_consumer.topic,
      "timestamp": $kafka_consumer.timestamp,
      "headers": $kafka_consumer.headers
    } from in into out;
  end;"""


def _flow(*parts: str) -> str:
    body = "".join(parts)
    return f"""define flow k2k
flow{body}
  create connector input;
  create connector output;
  create pipeline tag;
  connect /connector/input to /pipeline/tag;
  connect /pipeline/tag to /connector/output;
end;
deploy flow k2k;
"""


def test_batch_topic_to_pipeline_to_topic(broker, tmp_path: Path) -> None:
    source, target = new_topic("in"), new_topic("out")
    broker.create_topic(source, 2)
    broker.create_topic(target, 1)
    messages = [
        {"value": json.dumps({"n": n}), "key": f"k{n}".encode(), "partition": n % 2}
        for n in range(40)
    ]
    # as tremor-connectors/tests/kafka/consumer.rs sends its first record: timestamp 42 ms and a
    # header, read back as 42_000_000 ns and a binary header value
    messages[0].update(timestamp=42, headers={"header": b"snot"})
    broker.produce(source, messages)
    flow = _flow(_consumer(broker.bootstrap, source), _producer(broker.bootstrap, target), TAG)
    job = write_job(tmp_path, flow)
    run_job(job)
    out = broker.consume(target, 40)
    assert len(out) == 40
    assert {m.key() for m in out} == {b"snot"}
    events = [json.loads(m.value()) for m in out]
    # n went to partition n % 2 at offset n // 2; the key is binary, rendered as base64
    for event in events:
        n = event["n"]
        assert event["partition"] == n % 2 and event["offset"] == n // 2
        assert event["topic"] == source
        assert base64.b64decode(event["key"]) == f"k{n}".encode()
    assert sorted(e["n"] for e in events) == list(range(40))
    first = next(e for e in events if e["n"] == 0)
    assert first["timestamp"] == 42_000_000
    assert first["headers"] == {"header": base64.b64encode(b"snot").decode()}
    assert all(e["headers"] is None for e in events if e["n"] != 0)
    for partition in (0, 1):  # each partition's order is kept (Tremor keeps no other)
        ns = [e["n"] for e in events if e["partition"] == partition]
        assert ns == sorted(ns)


# Its assert.yaml, with the topic name `tremor_test` replaced by this test's topic.
INTEGRATION_EXPECTED = [
    '{"event":{"batch":true,"number":1},"meta":{"kafka_consumer":{"headers":{"foo":"YmFy"},'
    '"key":"badger","offset":0,"partition":0,"timestamp":null,"topic":"tremor_test"}}}',
    '{"event":{"batch":true,"number":2},"meta":{"kafka_consumer":{"headers":null,"key":"snot",'
    '"offset":0,"partition":1,"timestamp":null,"topic":"tremor_test"}}}',
    '{"event":{"batch":false,"foo":"bar"},"meta":{"kafka_consumer":{"headers":null,"key":"snot",'
    '"offset":1,"partition":1,"timestamp":null,"topic":"tremor_test"}}}',
    '{"event":{"batch":false},"meta":{"kafka_consumer":{"headers":null,"key":"snot","offset":2,'
    '"partition":1,"timestamp":null,"topic":"tremor_test"}}}',
    '{"event":{"batch":true,"number":3},"meta":{"kafka_consumer":{"headers":null,"key":"snot",'
    '"offset":3,"partition":1,"timestamp":null,"topic":"tremor_test"}}}',
    '{"event":{"batch":true,"number":4},"meta":{"kafka_consumer":{"headers":null,"key":"snot",'
    '"offset":4,"partition":1,"timestamp":null,"topic":"tremor_test"}}}',
]
# Its consume flow (config.troy), with tests/lib/integration.tremor's connectors inlined: the
# exit connector without `delay` (a batch job stops at once), the output file as part files.
INTEGRATION_FLOW = """
define flow kafka_consume
flow
  define connector consumer from kafka_consumer
  with
    metrics_interval_s = 1,
    reconnect = {"retry": {"interval_ms": 3000, "max_retries": 10}},
    codec = "json",
    config = {
        "brokers": ["BROKER"],
        "group_id": "test1",
        "topics": ["TOPIC"],
        "mode": {
          "custom": {
            "retry_failed_events": false,
            "rdkafka_options": {
              "enable.auto.commit": "false",
              "auto.offset.reset": "beginning",
              "debug": "consumer"
            }
          }
        }
      }
  end;
  define connector exit from exit;
  define connector write_file from file
  with
    codec = {"name": "json", "config": {"mode": "sorted"}},
    postprocessors = ["separate"],
    config = {"path": "out.log", "mode": "truncate"}
  end;

  define pipeline consume
  into out, exit, err
  pipeline
    define script clean_kafka_meta
    script
      use std::string;
      let $kafka_consumer.key = string::from_utf8_lossy($kafka_consumer.key);
      let $kafka_consumer.timestamp = null;
      event
    end;
    create script clean_kafka_meta;

    select event from in into clean_kafka_meta;
    select {"event": event, "meta": $} from clean_kafka_meta where event != "exit" into out;
    select event from clean_kafka_meta where event == "exit" into exit;
    select event from clean_kafka_meta/err into err;
  end;

  create connector exit;
  create connector write_file;
  create connector consumer;
  create pipeline consume;
  connect /connector/consumer to /pipeline/consume;
  connect /pipeline/consume/out to /connector/write_file;
  connect /pipeline/consume/exit to /connector/exit;
end;
deploy flow kafka_consume;
"""


def test_tremor_integration_kafka_connectors(broker, tmp_path: Path) -> None:
    topic = new_topic("tremor_test")
    broker.create_topic(topic, 2)
    broker.produce(
        topic,
        [
            {"value": json.dumps(v), "key": k, "partition": p, "headers": h}
            for v, k, p, h in INTEGRATION_MESSAGES
        ],
    )
    troy = INTEGRATION_FLOW.replace("BROKER", broker.bootstrap).replace("TOPIC", topic)
    run_job(write_job(tmp_path, troy), cwd=tmp_path)
    lines = [
        line
        for part in sorted((tmp_path / "out.log").glob("part-*"))
        for line in part.read_text().splitlines()
    ]
    expected = [line.replace('"tremor_test"', json.dumps(topic)) for line in INTEGRATION_EXPECTED]
    assert sorted(lines) == sorted(expected)


class _Producing:
    """A client thread producing ``{"n": 0, 1, …}`` (``n`` to partition ``n % 2``) in bursts
    of 20 every 0.3 s until :meth:`stop`; ``count`` is how many it produced."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.count = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": self.bootstrap})
        while not self.done.is_set():
            for _ in range(20):
                value = json.dumps({"n": self.count})
                producer.produce(self.topic, value, partition=self.count % 2)
                self.count += 1
            producer.flush(30)
            time.sleep(0.3)
        assert producer.flush(60) == 0

    def stop(self) -> int:
        self.done.set()
        self.thread.join()
        return self.count


def _commits(checkpoint: Path) -> int:
    folder = checkpoint / "query" / "commits"
    return sum(n.isdigit() for n in os.listdir(folder)) if folder.is_dir() else 0


def test_stream_sigkill_and_restart_keeps_every_event(broker, tmp_path: Path) -> None:
    """Killed with SIGKILL mid-stream (while events still arrive) and restarted from the
    checkpoint, the output topic holds every input event once or more: Spark's Kafka sink is at
    least once, so the micro-batch in flight at the kill can be written twice (counted, and
    printed for the report)."""
    source, target = new_topic("sin"), new_topic("sout")
    broker.create_topic(source, 2)
    broker.create_topic(target, 1)
    mode = '{"custom": {"rdkafka_options": {"auto.offset.reset": "earliest"}}}'
    job = write_job(
        tmp_path,
        _flow(_consumer(broker.bootstrap, source, mode), _producer(broker.bootstrap, target), TAG),
    )
    checkpoint = tmp_path / "ck"
    producing = _Producing(broker.bootstrap, source)
    args = [sys.executable, str(job), "--stream", "--checkpoint", str(checkpoint)]
    running = subprocess.Popen(
        [*args, "--trigger", "1s"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while _commits(checkpoint) < 2 and running.poll() is None:
            assert time.monotonic() < deadline, "no second micro-batch"
            time.sleep(0.1)
        time.sleep(random.Random(20261124).uniform(0.0, 2.0))
        assert running.poll() is None, "the stream ended before the kill"
    finally:
        kill_tree(running.pid)
        running.wait()
        total = producing.stop()
    run_job(job, "--stream", "--checkpoint", str(checkpoint), "--trigger", "available-now")
    out = [json.loads(m.value())["n"] for m in broker.consume(target, total)]
    seen = Counter(out)
    assert set(seen) == set(range(total))  # every input event, none lost
    print(f"kafka stream after SIGKILL: {total} events in, {len(out) - total} duplicates out")
    firsts = list(dict.fromkeys(out))  # each event's first copy, in topic order
    for partition in (0, 1):  # each input partition's events in order
        ns = [n for n in firsts if n % 2 == partition]
        assert ns == sorted(ns)


def _check(troy: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(Source("flow.troy", troy), kind_of(Path("flow.troy")))
    return info.value


def _consumer_flow(mode: str) -> str:
    return f"""define flow f
flow
  define connector input from kafka_consumer
  with
    codec = "json",
    config = {{"brokers": ["127.0.0.1:9092"], "topics": ["t"], "group_id": "g", "mode": {mode}}}
  end;
  create connector input;
end;
deploy flow f;
"""


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (
            '{"custom": {"rdkafka_options": {"queued.min.messages": "5"}}}',
            "The librdkafka option `queued.min.messages` of kafka_consumer has no Spark "
            "equivalent in tremorc; supported: ",
        ),
        (
            '{"custom": {"rdkafka_options": {"enable.auto.commit": true}}}',
            "`enable.auto.commit`: Spark keeps the consumer's offsets in the streaming checkpoint",
        ),
        ('"fast"', '`mode` of kafka_consumer must be "performance"'),
        ('{"transactional": {"commit_every": 1}}', "`transactional` takes only"),
    ],
)
def test_consumer_config_that_spark_can_not_honour_is_a_compile_error(mode, message) -> None:
    troy = _consumer_flow(mode)
    error = _check(troy)
    assert message in str(error)
    assert troy[error.span.start : error.span.end].strip('"') == "mode"  # the caret's place


def test_consumer_config_keys_checked() -> None:
    troy = _consumer_flow('"performance"').replace('"group_id": "g"', '"group": "g"')
    assert "Unknown config key `group`" in str(_check(troy))


def test_producer_transactional_id_is_rejected() -> None:
    troy = """define flow f
flow
  define connector output from kafka_producer
  with
    config = {
      "brokers": ["127.0.0.1:9092"],
      "topic": "t",
      "rdkafka_options": {"transactional.id": "x"}
    }
  end;
  create connector output;
end;
deploy flow f;
"""
    assert "Spark's Kafka sink is not transactional" in str(_check(troy))


def test_mapped_options_reach_spark_names() -> None:
    from runtime_support.io.connectors.kafka_options import consumer_options, producer_options

    settings = consumer_options(
        {
            "brokers": ["a:1", "b:2"],
            "topics": ["t"],
            "group_id": "g",
            "mode": {
                "custom": {
                    "rdkafka_options": {
                        "auto.offset.reset": "smallest",
                        "fetch.wait.max.ms": 50,
                        "enable.auto.commit": "false",
                        "debug": "all",
                    }
                }
            },
        }
    )
    assert settings.starting == "earliest"
    assert settings.options == {"kafka.fetch.max.wait.ms": "50"}
    options = producer_options(
        {
            "brokers": ["a:1"],
            "topic": "t",
            "rdkafka_options": {"compression.codec": "lz4", "queue.buffering.max.ms": "0"},
        }
    )
    assert options == {"kafka.compression.type": "lz4", "kafka.linger.ms": "0"}


@pytest.mark.long
def test_hundred_thousand_events_batch_and_stream() -> None:
    """benchmarks/connector_kafka.py: 100k events topic → pipeline → topic, batch and stream
    (its own broker); every event arrives in both runs (it fails otherwise)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "connector_kafka.py"), "--events", "100000"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=7200,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert [(row["run"], row["events"]) for row in rows] == [("batch", 100000), ("stream", 100000)]
