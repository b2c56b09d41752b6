"""The done-when volume end to end (benchmarks/connector_elastic.py times it): 100,000 events
file → pipeline → elastic in bulk requests of 500, every one indexed once (``-m long``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.connector_elastic import run
from tests.support.servers import elastic as es_server

pytestmark = pytest.mark.skipif(es_server.es_home() is None, reason=es_server.skip_reason())


@pytest.mark.long
def test_hundred_thousand_events(tmp_path: Path) -> None:
    with es_server.elastic_server() as es:
        figures = run(es, tmp_path, 100_000, 500)
        assert figures["documents"] == 100_000
        assert es.get("/bench/_doc/99999")["_source"] == {
            "id": 99999,
            "name": f"user-{99999 % 977}",
            "score": 2 * (99999 % 1000),
        }
