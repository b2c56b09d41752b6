"""Fixtures of the connector tests: ``broker``, a real Kafka broker per test module."""

from tests.support.kafka_jobs import broker  # noqa: F401 - a fixture, found here by pytest
