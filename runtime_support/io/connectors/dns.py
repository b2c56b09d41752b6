"""Tremor's ``dns_client`` connector: lookup requests (``$dns.lookup``) on ``in``, their answers
on ``out``/``err`` (one request, its answer: :mod:`.dns_lookup`).

The lookups run on the executors: ``mapInArrow`` over each partition of the sink's rows, in
emission order (``sortWithinPartitions(seq, sub)``), each row (an event, or one event of a
``generic::batch`` event, as Tremor's ``value_meta_iter``) one query with dnspython's stub
resolver, answered in its position ``(seq, sub + [0])``. The resolver is the executor's system
one (``/etc/resolv.conf``, as Tremor's ``tokio_from_system_conf``) or tremorc's ``nameservers``
extension key. A lookup reads: re-running a job or replaying a micro-batch asks again.

Batch (``write_frame`` / :meth:`DnsSink.responses`): the answers feed the pipelines connected to
``out``/``err`` in a second pass (runtime_support/flows/answers.py). Streaming (``write_batch``):
the response ports must be unconnected (``flow_answers.check_stream``); the lookups still run,
as Tremor's sink queries when its source is not connected.
"""

from __future__ import annotations

from typing import Any

from runtime_support.io.connectors.answers import RESPONSE_SCHEMA, AnsweringSink, AnswerRows
from runtime_support.io.connectors.base import ConnectorSpec

#: Seconds a lookup may take in all (dnspython's resolver ``lifetime``, its retries included).
TIMEOUT_S = 5.0


def dns_mapper(nameservers: list[str] | None, timeout: float = TIMEOUT_S):
    """``mapInArrow`` over rows ``seq, sub, value, meta`` → the response rows (one a row)."""

    def run(batches: Any) -> Any:
        from runtime_support.io.connectors.dns_lookup import answer, make_resolver
        from runtime_support.tremor.event_meta import decode_meta, encode_meta
        from runtime_support.tremor.jsonio import encode_json

        resolver = make_resolver(nameservers, timeout)
        out = AnswerRows()
        for batch in batches:
            cols = batch.to_pydict()
            for seq, sub, meta_text in zip(cols["seq"], cols["sub"], cols["meta"], strict=True):
                envelope = decode_meta(meta_text)
                meta = envelope.get("$") if isinstance(envelope, dict) else None
                port, value, info = answer(resolver, meta if isinstance(meta, dict) else {})
                out.add(seq, [*sub, 0], port, encode_json(value), encode_meta(info))
            yield from out.full()
        yield from out.rest()

    return run


class DnsSink(AnsweringSink):
    """The ``dns_client`` connector (sink; its ``out``/``err`` ports answer, see the module
    doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.alias = spec.alias
        servers = (spec.config or {}).get("nameservers")
        self.nameservers = None if servers is None else [str(s) for s in servers]

    def responses(self, frame: Any) -> Any:
        """Look up every request of ``frame`` (``value, seq, sub[, meta]``); the response rows
        (lazy: each evaluation queries again)."""
        from pyspark.sql import functions as F

        if "meta" not in frame.columns:
            frame = frame.withColumn("meta", F.lit(None).cast("string"))
        rows = frame.select("seq", "sub", "meta").sortWithinPartitions("seq", "sub")
        return rows.mapInArrow(dns_mapper(self.nameservers), RESPONSE_SCHEMA)
