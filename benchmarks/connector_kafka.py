"""Kafka → pipeline → Kafka against a real broker: events/s and time to the first event, batch
and streaming (prints a table; never a unit test, and the same run as the ``long`` test).

Usage::

    python benchmarks/connector_kafka.py [--events 100000] [--partitions 2] [--skip-stream]

A KRaft broker is started on 127.0.0.1 (tests/support/servers/kafka.py; ``.ci/install.d/kafka.sh``
installs it); ``--events`` JSON events are produced into a topic of ``--partitions``
partitions. The flow reads them with ``kafka_consumer``, runs a script that reads
``$kafka_consumer`` and rewrites each event, and writes them with ``kafka_producer``. A consumer
on the output topic times every message from the job's start:

- batch: ``python job.py`` (JVM start included): time to the first output message, time to the
  last, events/s over the whole run and over first→last (the steady rate);
- stream: ``python job.py --stream --checkpoint DIR --trigger 1s`` over the same backlog: the
  same figures, then the latency of one more event produced once the backlog is written.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compiler.pipeline import compile_source, kind_of  # noqa: E402
from compiler.source import Source  # noqa: E402
from tests.support.servers import kafka as server  # noqa: E402

FLOW = """define flow bench
flow
  define connector input from kafka_consumer
  with
    codec = "json",
    config = {
      "brokers": ["BROKER"], "topics": ["SOURCE"], "group_id": "bench",
      "mode": {"custom": {"rdkafka_options": {"auto.offset.reset": "earliest"}}}
    }
  end;
  define connector output from kafka_producer
  with
    codec = "json",
    config = {"brokers": ["BROKER"], "topic": "TARGET"}
  end;
  define pipeline enrich
  pipeline
    define script enrich
    script
      let event.partition = $kafka_consumer.partition;
      let event.offset = $kafka_consumer.offset;
      let event.big = event.n > 1000;
      event
    end;
    create script enrich;
    select event from in into enrich;
    select event from enrich into out;
  end;
  create connector input;
  create connector output;
  create pipeline enrich;
  connect /connector/input to /pipeline/enrich;
  connect /pipeline/enrich to /connector/output;
end;
deploy flow bench;
"""


class Arrivals:
    """A consumer thread on ``topic`` noting when each message arrived."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        from confluent_kafka import Consumer

        self.times: list[float] = []
        self.values: list[bytes] = []
        self.stop = False
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"bench-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
            }
        )
        self.consumer.subscribe([topic])
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            for msg in self.consumer.consume(10_000, 0.2):
                if msg.error() is None:
                    self.times.append(time.monotonic())
                    self.values.append(msg.value())
        self.consumer.close()

    def wait_for(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while len(self.times) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        return len(self.times) >= count

    def close(self) -> None:
        self.stop = True
        self.thread.join()


def _job(folder: Path, bootstrap: str, source: str, target: str) -> Path:
    troy = FLOW.replace("BROKER", bootstrap).replace("SOURCE", source).replace("TARGET", target)
    job = folder / f"job-{target}.py"
    job.write_text(compile_source(Source("bench.troy", troy), kind_of(Path("bench.troy"))).job)
    return job


def _figures(name: str, events: int, start: float, arrivals: Arrivals) -> dict:
    first, last = arrivals.times[0] - start, arrivals.times[events - 1] - start
    steady = events / max(1e-9, last - first)
    row = {"run": name, "events": events, "first_s": first, "last_s": last}
    row.update({"events_per_s": events / last, "steady_events_per_s": steady})
    print(
        f"{name:7} {events:>8} events  first event {first:7.1f} s  last {last:7.1f} s  "
        f"{events / last:9.0f} events/s overall  {steady:9.0f} events/s first→last"
    )
    return row


def _batch(broker, folder: Path, source: str, events: int) -> dict:
    target = f"out-{uuid.uuid4().hex[:6]}"
    broker.create_topic(target, 1)
    job = _job(folder, broker.bootstrap, source, target)
    arrivals = Arrivals(broker.bootstrap, target)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    subprocess.run([sys.executable, str(job)], env=env, check=True, capture_output=True)
    arrived = arrivals.wait_for(events, 120)
    arrivals.close()
    if not arrived:
        raise SystemExit(f"batch: only {len(arrivals.times)} of {events} events arrived")
    return _figures("batch", events, start, arrivals)


def _stream(broker, folder: Path, source: str, events: int) -> dict:
    target = f"sout-{uuid.uuid4().hex[:6]}"
    broker.create_topic(target, 1)
    job = _job(folder, broker.bootstrap, source, target)
    arrivals = Arrivals(broker.bootstrap, target)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, str(job), "--stream", "--checkpoint", str(folder / "ck")]
    start = time.monotonic()
    process = subprocess.Popen(
        [*args, "--trigger", "1s"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        if not arrivals.wait_for(events, 3600):
            raise SystemExit(f"stream: only {len(arrivals.times)} of {events} events arrived")
        row = _figures("stream", events, start, arrivals)
        sent = time.monotonic()
        broker.produce(source, [{"value": json.dumps({"n": -1})}])
        arrivals.wait_for(events + 1, 300)
        row["latency_s"] = arrivals.times[events] - sent
        print(f"stream  one more event once caught up: {row['latency_s']:.2f} s to the output")
        return row
    finally:
        process.terminate()
        process.wait(timeout=120)
        arrivals.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--skip-stream", action="store_true")
    args = parser.parse_args()
    if server.classpath() is None:
        raise SystemExit(server.skip_reason())
    with tempfile.TemporaryDirectory() as tmp, server.kafka_broker(Path(tmp) / "kafka") as broker:
        source = "bench-in"
        broker.create_topic(source, args.partitions)
        started = time.monotonic()
        broker.produce(
            source,
            [{"value": json.dumps({"n": n, "text": f"event {n}"})} for n in range(args.events)],
        )
        print(f"produced {args.events} events in {time.monotonic() - started:.1f} s")
        rows = [_batch(broker, Path(tmp), source, args.events)]
        if not args.skip_stream:
            rows.append(_stream(broker, Path(tmp), source, args.events))
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
