"""Local servers for the example: a Kafka broker (KRaft) and an Elasticsearch node on free ports
of 127.0.0.1 (tests/support/servers/*.py; install them with .ci/install.d/kafka.sh and elastic.sh).
Creates the topic `logs`, sends in.json's lines to it, writes `<folder>/flow.troy` (this
example's flow with the servers' addresses) and serves until Ctrl-C.

    python3 examples/kafka_to_elastic/servers.py /tmp/k2e
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository root: tests.support.servers

from tests.support.servers.elastic import elastic_server  # noqa: E402
from tests.support.servers.kafka import kafka_broker  # noqa: E402


def local_flow(brokers: str, nodes: str) -> str:
    """flow.troy with the servers' addresses as the connectors' argument defaults."""
    text = (HERE / "flow.troy").read_text()
    text = text.replace('brokers = "127.0.0.1:9092"', f'brokers = "{brokers}"')
    return text.replace('nodes = "http://127.0.0.1:9200"', f'nodes = "{nodes}"')


@contextmanager
def servers(folder: Path):
    """Both servers, the topic filled, ``folder/flow.troy`` written; yields ``(broker, es)``."""
    folder.mkdir(parents=True, exist_ok=True)
    with kafka_broker(folder / "kafka") as broker, elastic_server() as es:
        broker.create_topic("logs", 1)
        lines = (HERE / "in.json").read_text().splitlines()
        broker.produce("logs", [{"value": line} for line in lines if line.strip()])
        (folder / "flow.troy").write_text(local_flow(broker.bootstrap, es.url))
        yield broker, es


if __name__ == "__main__":
    where = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/k2e")
    with servers(where) as (kafka, elastic):
        print(f"Kafka at {kafka.bootstrap}, Elasticsearch at {elastic.url}")
        print(f"run: tremorc run {where / 'flow.troy'}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
