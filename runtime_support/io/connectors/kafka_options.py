"""Tremor's Kafka connector config (librdkafka names) → Spark's Kafka source/sink options.

Pure data and checks, no Spark: the compiler's registry (``compiler/registry/connectors.py``)
calls :func:`consumer_options` / :func:`producer_options` at compile time so a config the job
would ignore or mis-run is a compile error, and the runtime calls them again to build the
reader and writer. Invariant: every ``rdkafka_options`` key is either mapped to the Java
client's equivalent (passed as Spark's ``kafka.<name>`` option), accepted with a documented
meaning, or rejected by name with the reason (:class:`OptionError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONSUMER_MAP",
    "ConsumerSettings",
    "OptionError",
    "PRODUCER_MAP",
    "consumer_options",
    "producer_options",
]


class OptionError(ValueError):
    """A config value tremorc can not honour: ``path`` names it (``mode.custom.rdkafka_options.
    debug``), the message says why and what is supported."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


# librdkafka name → Java client name, where the Java client has the same setting.
_COMMON = {
    "client.id": "client.id",
    "security.protocol": "security.protocol",
    "sasl.mechanisms": "sasl.mechanism",
    "sasl.mechanism": "sasl.mechanism",
    "metadata.max.age.ms": "metadata.max.age.ms",
    "reconnect.backoff.ms": "reconnect.backoff.ms",
    "reconnect.backoff.max.ms": "reconnect.backoff.max.ms",
    "retry.backoff.ms": "retry.backoff.ms",
    "socket.connection.setup.timeout.ms": "socket.connection.setup.timeout.ms",
    "connections.max.idle.ms": "connections.max.idle.ms",
    "client.rack": "client.rack",
}
CONSUMER_MAP = {
    **_COMMON,
    "session.timeout.ms": "session.timeout.ms",
    "heartbeat.interval.ms": "heartbeat.interval.ms",
    "max.poll.interval.ms": "max.poll.interval.ms",
    "fetch.min.bytes": "fetch.min.bytes",
    "fetch.max.bytes": "fetch.max.bytes",
    "fetch.wait.max.ms": "fetch.max.wait.ms",
    "max.partition.fetch.bytes": "max.partition.fetch.bytes",
    "fetch.message.max.bytes": "max.partition.fetch.bytes",
    "isolation.level": "isolation.level",
    "check.crcs": "check.crcs",
}
PRODUCER_MAP = {
    **_COMMON,
    "acks": "acks",
    "request.required.acks": "acks",
    "compression.type": "compression.type",
    "compression.codec": "compression.type",
    "linger.ms": "linger.ms",
    "queue.buffering.max.ms": "linger.ms",
    "batch.size": "batch.size",
    "message.max.bytes": "max.request.size",
    "message.timeout.ms": "delivery.timeout.ms",
    "delivery.timeout.ms": "delivery.timeout.ms",
    "request.timeout.ms": "request.timeout.ms",
    "enable.idempotence": "enable.idempotence",
    "retries": "retries",
    "message.send.max.retries": "retries",
}
#: Accepted with no Spark setting: librdkafka's own logging and statistics.
_LOGGING = ("debug", "log_level", "statistics.interval.ms")
_NO_COMMIT = (
    "Spark keeps the consumer's offsets in the streaming checkpoint and never commits them to "
    "the group (so `false` is the only value)"
)
_OFFSET_RESET = {
    "smallest": "earliest",
    "earliest": "earliest",
    "beginning": "earliest",
    "largest": "latest",
    "latest": "latest",
    "end": "latest",
}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _mapped(options: Any, table: dict[str, str], where: str, what: str) -> dict[str, str]:
    """``kafka.<java name>`` options of a librdkafka ``options`` record (see the module doc)."""
    if not isinstance(options, dict):
        raise OptionError(where, f"`rdkafka_options` of {what} must be a record")
    out: dict[str, str] = {}
    for name, value in options.items():
        if name in _LOGGING:
            continue
        java = table.get(name)
        if java is None:
            known = ", ".join(sorted(table))
            raise OptionError(
                f"{where}.{name}",
                f"The librdkafka option `{name}` of {what} has no Spark equivalent in tremorc; "
                f"supported: {known} (and {', '.join(_LOGGING)}, which only log)",
            )
        out[f"kafka.{java}"] = _text(value)
    return out


@dataclass(frozen=True)
class ConsumerSettings:
    """What a ``kafka_consumer`` config means to Spark's Kafka source."""

    brokers: tuple[str, ...]
    topics: tuple[str, ...]
    group_id: str
    starting: str  # a stream's first start: earliest or latest (librdkafka's default: latest)
    options: dict[str, str]


def consumer_options(config: dict[str, Any]) -> ConsumerSettings:
    """The settings of a ``kafka_consumer`` config; :class:`OptionError` for what can not be
    honoured (the registry has checked the top-level keys and their types)."""
    brokers = _brokers(config.get("brokers"))
    topics = config.get("topics") or []
    if not topics:
        raise OptionError("topics", "`topics` of kafka_consumer must name at least one topic")
    mode = config.get("mode", "performance")
    options: dict[str, str] = {}
    starting = "latest"
    if mode == "performance":
        pass
    elif isinstance(mode, dict) and len(mode) == 1 and "transactional" in mode:
        _transactional(mode["transactional"])
    elif isinstance(mode, dict) and len(mode) == 1 and "custom" in mode:
        options, starting = _custom(mode["custom"])
    else:
        raise OptionError(
            "mode",
            '`mode` of kafka_consumer must be "performance", {"transactional": {…}} or '
            '{"custom": {"rdkafka_options": {…}, "retry_failed_events": …}}',
        )
    return ConsumerSettings(
        tuple(brokers), tuple(topics), str(config.get("group_id", "")), starting, options
    )


def _brokers(brokers: Any) -> list[str]:
    if not brokers or not all(isinstance(b, str) and ":" in b for b in brokers):
        raise OptionError("brokers", "`brokers` must list `host:port` strings")
    return list(brokers)


def _transactional(body: Any) -> None:
    if not isinstance(body, dict) or set(body) - {"commit_interval"}:
        raise OptionError(
            "mode.transactional", "`transactional` takes only `commit_interval` (nanoseconds)"
        )
    interval = body.get("commit_interval", 0)
    if type(interval) is not int or interval < 0:
        raise OptionError("mode.transactional.commit_interval", "must be a non-negative integer")


def _custom(body: Any) -> tuple[dict[str, str], str]:
    where = "mode.custom"
    if not isinstance(body, dict) or set(body) - {"rdkafka_options", "retry_failed_events"}:
        raise OptionError(where, "`custom` takes `rdkafka_options` and `retry_failed_events`")
    if type(body.get("retry_failed_events", False)) is not bool:
        raise OptionError(f"{where}.retry_failed_events", "must be a boolean")
    raw = dict(body.get("rdkafka_options") or {})
    starting = "latest"
    for name in ("enable.auto.commit", "enable.auto.offset.store"):
        if name in raw and _text(raw.pop(name)) != "false":
            raise OptionError(f"{where}.rdkafka_options.{name}", f"`{name}`: {_NO_COMMIT}")
    raw.pop("auto.commit.interval.ms", None)  # meaningless without auto commit
    if "auto.offset.reset" in raw:
        reset = _text(raw.pop("auto.offset.reset"))
        if reset not in _OFFSET_RESET:
            raise OptionError(
                f"{where}.rdkafka_options.auto.offset.reset",
                "`auto.offset.reset` must be one of " + ", ".join(sorted(_OFFSET_RESET)),
            )
        starting = _OFFSET_RESET[reset]
    return _mapped(raw, CONSUMER_MAP, f"{where}.rdkafka_options", "kafka_consumer"), starting


def producer_options(config: dict[str, Any]) -> dict[str, str]:
    """The ``kafka.*`` options of a ``kafka_producer`` config (:class:`OptionError` as above)."""
    _brokers(config.get("brokers"))
    raw = config.get("rdkafka_options") or {}
    if isinstance(raw, dict) and "transactional.id" in raw:
        raise OptionError(
            "rdkafka_options.transactional.id",
            "Spark's Kafka sink is not transactional (it writes at least once)",
        )
    return _mapped(raw, PRODUCER_MAP, "rdkafka_options", "kafka_producer")
