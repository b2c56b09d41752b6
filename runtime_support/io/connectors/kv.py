"""Tremor's ``kv`` connector: command events on ``in``, their answers on ``out``/``err`` (the
store and the commands: :mod:`.kv_store`).

Commands apply in emission order, exactly: the sink's rows go to ONE Spark task
(``repartition(1)`` then ``sortWithinPartitions(seq, sub)``; a ``scan`` reads every key, so
partitioning by key could not be exact), which applies them to the sqlite3 store under
``config.path`` inside one transaction, committed when the task has applied them all: a task
that fails leaves the store as it was and Spark's retry applies them once. The path is opened
by the executor that runs that task: on a cluster it must be a directory every executor sees
(a shared POSIX file system) or the cluster must have one executor.

Batch (``write_frame`` / :meth:`KvSink.responses`): the response rows ``seq, sub, port, value,
meta`` feed the pipelines connected to ``out``/``err`` in a second pass
(runtime_support/flows/answers.py); re-running a batch job applies its commands again to the
store it left. Streaming (``write_batch``, response ports unconnected, see
``flow_answers.check_stream``): each micro-batch's commands apply once, the micro-batch
``(run, batch_id)`` recorded in the same transaction, so a replayed micro-batch is skipped.
"""

from __future__ import annotations

import os
from typing import Any

from runtime_support.io.connectors.answers import RESPONSE_SCHEMA, AnsweringSink, AnswerRows
from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.kv_store import INVALID_DIR, Store


def kv_mapper(directory: str, mark: tuple[str, str, int] | None = None):
    """``mapInArrow`` over one partition of rows ``seq, sub, value, meta`` in emission order:
    the commands applied, the response rows out (``mark``: the streaming micro-batch
    ``(connector, run, batch_id)``, applied once)."""

    def run(batches: Any) -> Any:
        store = Store(directory)
        try:
            if mark is not None and store.applied(*mark):
                store.rollback()
                return
            yield from _answers(store, batches)
            if mark is not None:
                store.mark(*mark)
        except BaseException:
            store.rollback()
            raise
        store.commit()

    return run


def _answers(store: Store, batches: Any) -> Any:
    from runtime_support.tremor.event_meta import decode_meta, encode_meta
    from runtime_support.tremor.jsonio import decode_json, encode_json

    out = AnswerRows()
    for batch in batches:
        cols = batch.to_pydict()
        for seq, sub, text, meta_text in zip(
            cols["seq"], cols["sub"], cols["value"], cols["meta"], strict=True
        ):
            envelope = decode_meta(meta_text)
            meta = envelope.get("$") if isinstance(envelope.get("$"), dict) else {}
            value = None if text is None else decode_json(text)
            for index, (port, answer, info) in enumerate(store.answer(value, meta)):
                out.add(seq, [*sub, index], port, encode_json(answer), encode_meta(info))
        yield from out.full()
    yield from out.rest()


class KvSink(AnsweringSink):
    """The ``kv`` connector (sink; its ``out``/``err`` ports answer, see the module doc)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        from runtime_support.spark.session import under_spark_submit

        self.alias = spec.alias
        self.path = str(spec.config.get("path", ""))
        # Tremor checks the directory when it builds the connector; under spark-submit the
        # executor's file system may differ from the driver's: the task checks it there.
        if not under_spark_submit() and not os.path.isdir(self.path):
            raise ValueError(f"kv connector `{self.alias}`: {INVALID_DIR} (path {self.path!r})")

    def _commands(self, frame: Any) -> Any:
        from pyspark.sql import functions as F

        if "meta" not in frame.columns:
            frame = frame.withColumn("meta", F.lit(None).cast("string"))
        rows = frame.select("seq", "sub", "value", "meta").repartition(1)
        return rows.sortWithinPartitions("seq", "sub")

    def responses(self, frame: Any) -> Any:
        """Apply every command of ``frame`` (``value, seq, sub[, meta]``); the response rows
        (a lazy DataFrame: evaluate it once, each evaluation applies the commands)."""
        return self._commands(frame).mapInArrow(kv_mapper(self.path), RESPONSE_SCHEMA)

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """Stream: one micro-batch's commands, applied once per ``(run, batch_id)``."""
        mark = (self.alias, run, batch_id)
        self._commands(frame).mapInArrow(kv_mapper(self.path, mark), RESPONSE_SCHEMA).count()
