"""Tremor's ``elastic`` sink: the Elasticsearch bulk API from Spark's executors (``requests``,
see :mod:`.elastic_bulk` for the requests and the response events).

Batch (``write_frame``): the sink's rows, each partition in emission order, go through a
``mapInArrow`` that sends the bulk requests (up to ``concurrency`` in flight per partition)
and yields the response rows ``seq, sub, port, value, meta``; with nothing reading the
responses they are only counted (no event through the driver). :meth:`ElasticSink.responses`
gives them as a DataFrame for a flow that connects the connector's ``out``/``err`` ports.
Streaming (``write_batch``): the same per micro-batch; a replayed micro-batch sends its
requests again (at least once; exactly once in effect when every event sets ``$elastic._id``
with ``index`` or ``delete``, which ES applies idempotently).
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.answers import RESPONSE_SCHEMA, AnsweringSink, AnswerRows
from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.elastic_bulk import Settings, requests_of, run_requests


def settings_of(spec: ConnectorSpec) -> Settings:
    """The executors' :class:`Settings` of a checked ``config`` (compiler/registry/elastic.py)."""
    from runtime_support.io.connectors.net.http import auth_header

    config = spec.config
    timeout = config.get("timeout")
    tls = config.get("tls")
    tls = tls if isinstance(tls, dict) else {}
    cert = (tls["cert"], tls["key"]) if "cert" in tls and "key" in tls else None
    return Settings(
        nodes=tuple(config.get("nodes") or ()),
        index=config.get("index"),
        concurrency=int(config.get("concurrency", 4)),
        include_payload=config.get("include_payload_in_response") is True,
        headers=dict(config.get("headers") or {}),
        authorization=auth_header(config.get("auth"), spec.alias),
        timeout_s=None if timeout is None else timeout / 1e9,
        verify=tls.get("cafile", True),
        cert=cert,
    )


def bulk_mapper(settings: Settings):
    """``mapInArrow``: rows ``seq, sub, value, meta`` (emission order) → response rows."""

    def run(batches: Any) -> Any:
        from runtime_support.tremor.jsonio import encode_json

        keys: list[tuple[int, list[int]]] = []

        def rows() -> Any:
            for batch in batches:
                cols = batch.to_pydict()
                for seq, sub, value, meta in zip(
                    cols["seq"], cols["sub"], cols["value"], cols["meta"], strict=True
                ):
                    keys.append((seq, sub))
                    yield value, meta

        out = AnswerRows()
        done = 0

        def positioned(requests: Any) -> Any:
            nonlocal done
            for request in requests:
                first = keys[done]
                done += len(request.values)
                yield first, request

        for (seq, sub), answers in run_requests(settings, positioned(requests_of(rows()))):
            for index, (port, value, meta) in enumerate(answers):
                out.add(seq, [*sub, index], port, encode_json(value), encode_json(meta))
            yield from out.full()
        yield from out.rest()

    return run


class ElasticSink(AnsweringSink):
    """The ``elastic`` connector (sink; its ``out``/``err`` ports answer, see module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.spec = spec
        self.settings = settings_of(spec)

    def responses(self, frame: Any) -> Any:
        """Send every event of ``frame`` (``value, seq, sub[, meta]``); the response rows."""
        from pyspark.sql import functions as F

        if "meta" not in frame.columns:
            frame = frame.withColumn("meta", F.lit(None).cast("string"))
        rows = frame.select("seq", "sub", "value", "meta").sortWithinPartitions("seq", "sub")
        return rows.mapInArrow(bulk_mapper(self.settings), RESPONSE_SCHEMA)
