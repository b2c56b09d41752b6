"""Pre- and postprocessor chains of a connector (Tremor's ``tremor-interceptor``).

A chain is built from a connector's ``preprocessors`` / ``postprocessors`` value: names or
``{"name": …, "config": {…}}`` records, applied in order. :class:`PreChain` turns the bytes a
source reads into chunks for the codec, each with its ingest time, or ``err`` items (the reason:
a processor failed, or discarded a fragment Tremor only logs); :class:`PostChain` turns encoded
events into the bytes a sink writes. Both follow Tremor's ``preprocess`` / ``finish`` and
``postprocess`` / ``finish``: each processor's output feeds the next, and at the end of a stream
each processor finishes with what the one before it finished with. One difference: where Tremor
fails a whole read when a processor fails on one of its chunks, a chain fails that chunk only
(a ``Failed`` in its place); Tremor's read boundaries (8 KiB for a file) carry no meaning.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from runtime_support.io.processors.errors import ProcessorError
from runtime_support.io.processors.post import POSTPROCESSORS, make_postprocessor
from runtime_support.io.processors.pre import PREPROCESSORS, make_preprocessor

__all__ = [
    "Failed",
    "POSTPROCESSORS",
    "PREPROCESSORS",
    "PostChain",
    "PreChain",
    "ProcessorError",
    "make_postprocessor",
    "make_preprocessor",
    "names_configs",
    "postprocess_stream",
    "preprocess_stream",
]


def names_configs(spec: Any) -> list[tuple[str, Any]]:
    """A ``preprocessors`` / ``postprocessors`` value as ``[(name, config), …]``."""
    out = []
    for item in spec or ():
        if isinstance(item, dict):
            out.append((str(item.get("name", "")), item.get("config")))
        else:
            out.append((str(item), None))
    return out


@dataclass(frozen=True)
class Failed:
    """An ``err`` item of a chain: ``reason`` is the processor's error text."""

    reason: str


Item = Any  # (bytes, ingest_ns) or Failed


class PreChain:
    """The preprocessors of one stream (fresh state; one chain per file or connection)."""

    def __init__(self, spec: Any) -> None:
        self.processors = [make_preprocessor(n, c) for n, c in names_configs(spec)]

    def _through(self, processor: Any, items: list[Item], finishing: bool, ns: int) -> list[Item]:
        out: list[Item] = []
        if finishing and not any(not isinstance(i, Failed) for i in items):
            items = [*items, (None, ns)]  # type: ignore[list-item]
        for item in items:
            if isinstance(item, Failed):
                out.append(item)
                continue
            try:
                if finishing:
                    made = processor.finish(item[0], item[1])
                else:
                    made = processor.process(item[0], item[1])
            except ProcessorError as err:
                out.extend(Failed(r) for r in processor.dropped)
                out.append(Failed(str(err)))
            else:
                out.extend(Failed(r) for r in processor.dropped)
                out.extend(made)
            processor.dropped.clear()
        return out

    def process(self, data: bytes, ns: int) -> list[Item]:
        """The chunks of one read, in order; a chunk a processor fails on is one ``Failed``
        in its place (the other chunks of the read go on)."""
        items: list[Item] = [(data, ns)]
        for processor in self.processors:
            items = self._through(processor, items, False, ns)
        return items

    def finish(self, ns: int) -> list[Item]:
        """What the processors still hold at the end of the stream."""
        items: list[Item] = []
        for processor in self.processors:
            items = self._through(processor, items, True, ns)
        return items


def preprocess_stream(spec: Any, data: bytes, ns: int) -> list[tuple[bytes, int] | Failed]:
    """A whole stream read as one piece: ``process`` then ``finish``."""
    chain = PreChain(spec)
    return chain.process(data, ns) + chain.finish(ns)


class PostChain:
    """The postprocessors of one output stream (fresh state)."""

    def __init__(self, spec: Any) -> None:
        self.processors = [make_postprocessor(n, c) for n, c in names_configs(spec)]

    @property
    def dropped(self) -> list[str]:
        """Reasons of events a processor discarded (``chunk``: larger than ``max_bytes``)."""
        return [r for p in self.processors for r in getattr(p, "dropped", ())]

    def process(self, data: bytes, ingest_ns: int = 0, egress_ns: int = 0) -> list[bytes]:
        """The byte strings to write for one encoded event."""
        datas = [data]
        for processor in self.processors:
            datas = [out for d in datas for out in processor.process(d, ingest_ns, egress_ns)]
        return datas

    def finish(self) -> list[bytes]:
        """What the processors still hold at the end of the stream."""
        if not self.processors:
            return []
        datas = self.processors[0].finish(None)
        for processor in self.processors[1:]:
            if not datas:
                datas = processor.finish(None)
            else:
                datas = [out for d in datas for out in processor.finish(d)]
        return datas


def postprocess_stream(spec: Any, events: Iterable[bytes]) -> bytes:
    """The bytes a sink writes for ``events`` (encoded, in order) as one stream."""
    chain = PostChain(spec)
    out = [piece for event in events for piece in chain.process(event)]
    return b"".join(out + chain.finish())
