"""100k events through the ``http_server`` source from ``requests`` clients (``-m long``; the
figures come from benchmarks/connector_http_server.py, which this runs): every event arrives,
every request is answered 202."""

from __future__ import annotations

import pytest


@pytest.mark.long
@pytest.mark.spark
def test_100k_events_through_http_server() -> None:
    from benchmarks.connector_http_server import run

    result = run(100_000, per_request=100, clients=8)
    assert result["events"] == 100_000, result
    assert result["accepted"] == result["requests"] == 1000, result
    assert result["first_event_s"] is not None
