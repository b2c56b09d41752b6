"""100k events through each network connector against its real peer (``-m long``; the figures
come from benchmarks/connector_net.py, which this runs): TCP and HTTP deliver every event, UDP
(lossy by design) most of them."""

from __future__ import annotations

import pytest


@pytest.mark.long
@pytest.mark.spark
def test_100k_events_through_every_network_connector() -> None:
    from benchmarks.connector_net import run

    results = {r["connector"]: r for r in run(100_000)}
    for kind in ("tcp_server", "tcp_client", "http_client"):
        assert results[kind]["events"] == 100_000, results[kind]
    for kind in ("udp_server", "udp_client"):
        assert results[kind]["events"] >= 90_000, results[kind]
    assert all(r["first_event_s"] is not None for r in results.values())
