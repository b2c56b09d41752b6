"""Kafka → pipeline → Kafka with the ``confluent-schema-registry`` codec at both ends, against a
real broker and a real schema registry (karapace): events/s and time to the first event, batch
and streaming (prints a table; the same run as the ``long`` test).

Usage::

    python benchmarks/connector_confluent.py [--events 100000] [--partitions 2] [--skip-stream]

A KRaft broker and karapace start on 127.0.0.1 (tests/support/servers/kafka.py, schema_registry.py;
``.ci/install.d/kafka.sh`` and ``schema_registry.sh`` install them). The input subject's Avro
record ``{n: long, text: string}`` and the output's ``{n: long, twice: long}`` are registered;
``--events`` messages in Confluent's wire format are produced. Figures as
benchmarks/connector_kafka.py; every output message is decoded and checked at the end.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.connector_kafka import Arrivals, _figures  # noqa: E402
from compiler.pipeline import compile_source, kind_of  # noqa: E402
from compiler.source import Source  # noqa: E402
from tests.support.servers import kafka as server  # noqa: E402
from tests.support.servers import schema_registry as registry_server  # noqa: E402

IN = {
    "type": "record",
    "name": "In",
    "fields": [{"name": "n", "type": "long"}, {"name": "text", "type": "string"}],
}
OUT = {
    "type": "record",
    "name": "Out",
    "fields": [{"name": "n", "type": "long"}, {"name": "twice", "type": "long"}],
}
FLOW = """define flow bench
flow
  define connector input from kafka_consumer
  with
    codec = CODEC,
    config = {
      "brokers": ["BROKER"], "topics": ["SOURCE"], "group_id": "bench",
      "mode": {"custom": {"rdkafka_options": {"auto.offset.reset": "earliest"}}}
    }
  end;
  define connector output from kafka_producer
  with
    codec = CODEC,
    config = {"brokers": ["BROKER"], "topic": "TARGET"}
  end;
  define pipeline twice
  pipeline
    select {"n": event.n, "twice": event.n * 2} from in into out;
  end;
  create connector input;
  create connector output;
  create pipeline twice;
  connect /connector/input to /pipeline/twice;
  connect /pipeline/twice to /connector/output;
end;
deploy flow bench;
"""


def _frame(schema_id: int, schema: dict, value: dict) -> bytes:
    import fastavro

    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), value)
    return b"\0" + schema_id.to_bytes(4, "big") + out.getvalue()


def _check(values: list[bytes], schema_id: int, events: int) -> None:
    """Every output message is Out{n, 2n} under ``schema_id``, each n once."""
    import fastavro

    schema = fastavro.parse_schema(OUT)
    seen = set()
    for value in values[:events]:
        assert value[0] == 0 and int.from_bytes(value[1:5], "big") == schema_id
        record = fastavro.schemaless_reader(io.BytesIO(value[5:]), schema, None)
        assert record["twice"] == 2 * record["n"]
        seen.add(record["n"])
    if seen != set(range(events)):
        raise SystemExit(f"{events - len(seen)} events missing or wrong")


def _run(broker, registry, folder: Path, source: str, events: int, stream: bool) -> dict:
    target = f"out-{uuid.uuid4().hex[:6]}"
    broker.create_topic(target, 1)
    out_id = registry.register(f"{target}-value", OUT)
    codec = json.dumps({"name": "confluent-schema-registry", "config": {"url": registry.url}})
    troy = FLOW.replace("CODEC", codec).replace("BROKER", broker.bootstrap)
    troy = troy.replace("SOURCE", source).replace("TARGET", target)
    job = folder / f"job-{target}.py"
    job.write_text(compile_source(Source("bench.troy", troy), kind_of(Path("bench.troy"))).job)
    arrivals = Arrivals(broker.bootstrap, target)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, str(job)]
    if stream:
        args += ["--stream", "--checkpoint", str(folder / f"ck-{target}"), "--trigger", "1s"]
    start = time.monotonic()
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not stream:
            _, err = process.communicate()
            if process.returncode:
                raise SystemExit(err.decode()[-4000:])
        if not arrivals.wait_for(events, 3600 if stream else 120):
            raise SystemExit(f"only {len(arrivals.times)} of {events} events arrived")
        row = _figures("stream" if stream else "batch", events, start, arrivals)
    finally:
        if stream:
            process.terminate()
            process.wait(timeout=120)
        arrivals.close()
    _check(arrivals.values, out_id, events)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--skip-stream", action="store_true")
    args = parser.parse_args()
    if server.classpath() is None or not registry_server.available():
        raise SystemExit(f"{server.skip_reason()}; {registry_server.skip_reason()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with server.kafka_broker(folder / "kafka") as broker:
            with registry_server.schema_registry(broker, folder / "karapace") as registry:
                source = "bench-in"
                broker.create_topic(source, args.partitions)
                in_id = registry.register(f"{source}-value", IN)
                started = time.monotonic()
                values = (
                    _frame(in_id, IN, {"n": n, "text": f"event {n}"}) for n in range(args.events)
                )
                broker.produce(source, [{"value": v} for v in values])
                print(f"produced {args.events} events in {time.monotonic() - started:.1f} s")
                rows = [_run(broker, registry, folder, source, args.events, False)]
                if not args.skip_stream:
                    rows.append(_run(broker, registry, folder, source, args.events, True))
                print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
