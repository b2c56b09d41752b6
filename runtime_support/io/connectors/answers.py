"""The response rows of a sink that answers on its ports (``elastic``, ``kv``, ``dns_client``),
as its ``mapInArrow`` yields them: ``seq, sub, port, value, meta``, ``value`` and ``meta`` JSON
text, ``(seq, sub)`` the answer's position in emission order (see runtime_support/flows/answers.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

RESPONSE_SCHEMA = "seq long, sub array<long>, port string, value string, meta string"
COLUMNS = ("seq", "sub", "port", "value", "meta")
BATCH_ROWS = 4096  # rows per Arrow record batch yielded


class AnsweringSink:
    """The writes of a sink that answers (its subclass defines ``responses(frame)``, a lazy
    DataFrame whose every evaluation sends the frame's requests): with its response ports
    unconnected, a write evaluates the responses once and counts them."""

    def responses(self, frame: Any) -> Any:  # pragma: no cover - each kind defines it
        raise NotImplementedError

    def write_frame(self, frame: Any, progress: Any) -> None:
        """Batch: every request of the run sent, the answers counted."""
        self.responses(frame).count()
        if progress.active:
            progress.add(frame.count())

    def write_batch(self, frame: Any, batch_id: int, run: str) -> None:
        """Stream: one micro-batch's requests sent (the answers go nowhere)."""
        self.responses(frame).count()


class AnswerRows:
    """Response rows collected as they are answered, yielded in Arrow record batches."""

    def __init__(self) -> None:
        import pyarrow as pa

        self.schema = pa.schema(
            [
                ("seq", pa.int64()),
                ("sub", pa.list_(pa.int64())),
                ("port", pa.string()),
                ("value", pa.string()),
                ("meta", pa.string()),
            ]
        )
        self.rows: dict[str, list] = {c: [] for c in COLUMNS}

    def add(self, seq: int, sub: list[int], port: str, value: str, meta: str) -> None:
        rows = self.rows
        rows["seq"].append(seq)
        rows["sub"].append(sub)
        rows["port"].append(port)
        rows["value"].append(value)
        rows["meta"].append(meta)

    def full(self) -> Iterator[Any]:
        """A record batch of what was collected, once there are :data:`BATCH_ROWS` rows."""
        if len(self.rows["seq"]) >= BATCH_ROWS:
            yield from self.rest()

    def rest(self) -> Iterator[Any]:
        """A record batch of what was collected (none when nothing was)."""
        import pyarrow as pa

        if self.rows["seq"]:
            yield pa.RecordBatch.from_pydict(self.rows, schema=self.schema)
            self.rows = {c: [] for c in COLUMNS}
