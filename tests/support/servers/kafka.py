"""A real Apache Kafka broker for tests: KRaft mode (one process, broker and controller), on
127.0.0.1 at a free port, its log dirs under a temporary folder, stopped by its PID.

The broker runs from the classpath ``.ci/install.d/kafka.sh`` writes (``kafka_2.13`` and its
runtime dependencies from Maven Central). Invariant: when :func:`kafka_broker` yields, the
broker answers metadata requests, so topics can be created at once.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.servers.process import stop_process
from tests.support.spark_cluster import free_port, port_open_within

KAFKA_VERSION = os.environ.get("KAFKA_VERSION", "4.1.1")
CLASSPATH_FILE = Path.home() / ".cache" / "tremorc" / f"kafka-{KAFKA_VERSION}.classpath"
INSTALL = ".ci/install.d/kafka.sh"


def classpath() -> str | None:
    """The broker's classpath, or None when kafka.sh has not installed it (or java is absent)."""
    if not CLASSPATH_FILE.is_file() or not _which("java"):
        return None
    text = CLASSPATH_FILE.read_text().strip()
    jars = text.split(":")
    return text if jars and all(os.path.exists(jar) for jar in jars) else None


def skip_reason() -> str:
    return f"no Kafka broker: run {INSTALL} (installs its jars from Maven Central)"


def _which(name: str) -> bool:
    return any(
        os.access(os.path.join(folder, name), os.X_OK)
        for folder in os.environ.get("PATH", "").split(os.pathsep)
    )


@dataclass(frozen=True)
class Broker:
    """A running broker: ``bootstrap`` is ``127.0.0.1:<port>``; ``pid`` its JVM."""

    bootstrap: str
    pid: int
    log: Path

    def create_topic(self, name: str, partitions: int = 1) -> None:
        """Create ``name`` with the admin client (waits until it exists)."""
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        futures = admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=30)
        for future in futures.values():
            future.result(timeout=60)

    def produce(self, topic: str, messages: list[dict]) -> None:
        """Send ``messages`` (``value`` bytes/str, optional ``key``, ``partition``,
        ``headers``, ``timestamp`` ms) and wait until every one is acknowledged."""
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        failures: list[str] = []

        def report(err, _msg) -> None:
            if err is not None:
                failures.append(str(err))

        for message in messages:
            fields = {k: v for k, v in message.items() if v is not None}
            producer.produce(topic, on_delivery=report, **fields)
            producer.poll(0)
        producer.flush(60)
        assert not failures, failures

    def consume(self, topic: str, expect: int, timeout: float = 60.0) -> list:
        """Every message of ``topic`` from the beginning (confluent-kafka ``Message`` s), read
        until ``expect`` arrived and nothing more came for a second, or ``timeout``."""
        from confluent_kafka import Consumer

        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": f"check-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        consumer.subscribe([topic])
        got: list = []
        deadline = time.monotonic() + timeout
        quiet_since = None
        try:
            while time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is None:
                    if len(got) >= expect:
                        quiet_since = quiet_since or time.monotonic()
                        if time.monotonic() - quiet_since > 1.0:
                            break
                    continue
                quiet_since = None
                if msg.error() is None:
                    got.append(msg)
        finally:
            consumer.close()
        return got


@contextmanager
def kafka_broker(folder: Path) -> Iterator[Broker]:
    """Format a KRaft log dir under ``folder`` and run one combined broker+controller; the
    JVM is stopped by its PID (SIGTERM, then SIGKILL after 30 s) when the context ends."""
    cp = classpath()
    if cp is None:
        raise RuntimeError(skip_reason())
    port, controller = free_port(), free_port()
    folder.mkdir(parents=True, exist_ok=True)
    props = folder / "server.properties"
    props.write_text(_properties(folder / "logs", port, controller))
    log_path = folder / "broker.log"
    java = ["java", "-Xmx512m", "-XX:+UseSerialGC", "-cp", cp]
    cluster = str(uuid.uuid4().hex[:22])
    with open(log_path, "w") as log:
        subprocess.run(
            [*java, "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(props)],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
        process = subprocess.Popen(
            [*java, "kafka.Kafka", str(props)], stdout=log, stderr=subprocess.STDOUT
        )
    try:
        broker = Broker(f"127.0.0.1:{port}", process.pid, log_path)
        _wait_ready(broker, process, 120)
        yield broker
    finally:
        stop_process(process)


def _properties(logs: Path, port: int, controller: int) -> str:
    lines = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(logs),
        "num.partitions": "1",
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "group.initial.rebalance.delay.ms": "0",
        "auto.create.topics.enable": "false",
    }
    return "".join(f"{key}={value}\n" for key, value in lines.items())


def _wait_ready(broker: Broker, process: subprocess.Popen, timeout: float) -> None:
    """Until the broker lists its topics (metadata answered); fail with its log otherwise."""
    from confluent_kafka.admin import AdminClient

    deadline = time.monotonic() + timeout
    port = int(broker.bootstrap.rsplit(":", 1)[1])
    if not port_open_within(port, timeout):
        raise AssertionError("the Kafka broker did not listen:\n" + broker.log.read_text()[-3000:])
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            admin.list_topics(timeout=2)
            return
        except Exception:  # noqa: BLE001 - KafkaException until the broker is up
            time.sleep(0.5)
    raise AssertionError("the Kafka broker did not start:\n" + broker.log.read_text()[-3000:])
