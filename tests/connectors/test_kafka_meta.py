"""``$kafka_producer`` on the ``kafka_producer`` sink, against a real broker: the producer half
of tremor-runtime ``tremor-cli/tests/integration/kafka_connectors`` (its ``in.json`` through
``let $kafka_producer = event.meta``, the config key ``snot``, a topic of two partitions). The
expected messages are ``tests.support.kafka_jobs.INTEGRATION_MESSAGES``, written by hand
from Tremor's test: a string key from the metadata wins over the config's, a non-string key (an
array) falls back to it, an integer partition is used, a non-integer one is not, string header
values are sent, and an empty headers record sends none. ``timestamp`` is not honoured (Spark's
Kafka sink has no timestamp column; README, Differences from Tremor).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.kafka_jobs import (
    INTEGRATION_MESSAGES,
    needs_kafka,
    new_topic,
    run_job,
    write_job,
)

pytestmark = needs_kafka

IN_JSON = """\
{"event":{"batch": true,"number": 1},"meta": {"key": "badger","partition": 0,"headers": {"foo": "bar"},"timestamp": 123}}
{"event":{"batch": true,"number": 2},"meta":{"headers": {}, "timestamp": 456}}
{"event":{"batch": false,"foo": "bar"},"meta": {"key": [1,2,3],"partition": "", "timestamp": 42}}
{"event":{"batch": false},"meta": {"timestamp":9}}
{"event":{"batch": true,"number": 3},"meta": {"headers": {}, "timestamp":4}}
{"event":{"batch": true,"number": 4},"meta": {"headers": {}, "timestamp":0}}
{"event":"exit","meta":{"key":"foo"}}
"""  # noqa: E501 - Tremor's in.json, line for line

PRODUCE = """define flow produce
flow
  define connector input from file
  with codec = "json", preprocessors = ["separate"], config = {"path": @IN@, "mode": "read"}
  end;
  define connector output from kafka_producer
  with
    codec = "json",
    config = {"brokers": [@BROKERS@], "topic": @TOPIC@, "key": "snot"}
  end;
  define pipeline meta
  pipeline
    define script m script
      let $kafka_producer = event.meta;
      emit event["event"]
    end;
    create script m;
    select event from in into m;
    select event from m into out;
  end;
  create connector input; create connector output; create pipeline meta;
  connect /connector/input to /pipeline/meta;
  connect /pipeline/meta to /connector/output;
end;
deploy flow produce;
"""


def test_producer_metadata_key_partition_headers(broker, tmp_path: Path) -> None:
    topic = new_topic("meta")
    broker.create_topic(topic, 2)
    (tmp_path / "in.json").write_text(IN_JSON)
    text = PRODUCE
    for name, value in (("IN", tmp_path / "in.json"), ("BROKERS", broker.bootstrap)):
        text = text.replace(f"@{name}@", json.dumps(str(value)))
    run_job(write_job(tmp_path, text.replace("@TOPIC@", json.dumps(topic))))
    got = broker.consume(topic, len(INTEGRATION_MESSAGES))
    # Only the first message sets an integer partition; the others go where the key hashes.
    # Tremor's librdkafka hashes with CRC32 (its expected partitions), Spark's Java producer
    # with murmur2: the same key lands in one partition, not necessarily Tremor's.
    seen = sorted(
        [
            (
                json.loads(m.value()),
                m.key(),
                m.partition() if m.key() == b"badger" else None,
                dict(m.headers()) if m.headers() else None,
            )
            for m in got
        ],
        key=repr,
    )
    expected = sorted(
        [
            (event, key, 0 if key == b"badger" else None, None if hs is None else dict(hs))
            for event, key, _partition, hs in INTEGRATION_MESSAGES
        ],
        key=repr,
    )
    snot = {m.partition() for m in got if m.key() == b"snot"}
    assert len(snot) == 1
    assert seen == expected
