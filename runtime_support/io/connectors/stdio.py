"""The ``stdio`` connector: source of stdin (``-i FILE`` replaces it), sink to stdout (``-o FILE``
replaces it; the ``stderr`` port writes to stderr).

Stdin is split at the ``separate`` preprocessor's separator (a newline when none is configured),
or run through the preprocessor chain as one stream when it has other processors, and each
chunk decoded on the driver; the default codec is ``json`` (an undecodable chunk is reported on
stderr; with another codec it is an ``err`` event, see
:meth:`runtime_support.io.codecs.Codec.decoded_text`).
"""

from __future__ import annotations

import sys
from typing import Any

from runtime_support.io.codecs import codec_from, framing_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext, rows_frame
from runtime_support.tremor.jsonio import encode_json
from runtime_support.tremor.origin import encode_origin, hostname


class StdioSource:
    """Reads all of stdin (a batch job's input is finite)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("preprocessors"))
        self.separator = self.framing.separator or "\n"
        self.drop_empty = self.framing.drop_empty

    def _chunks(self, data: bytes) -> list[str]:
        """The chunks of the chain (a chunk it fails on: one line on stderr, as a bad chunk)."""
        from runtime_support.io.processors import Failed

        chain = self.framing.pre_chain()
        chunks = []
        for item in chain.process(data, 0) + chain.finish(0):
            if isinstance(item, Failed):
                print(f"Error: invalid input for the preprocessors: {item.reason}", file=sys.stderr)
            else:
                chunks.append(item[0].decode("utf-8", "surrogateescape"))
        return chunks

    def read(self, spark: Any, ctx: RunContext) -> Any:
        if ctx.stdin_path and ctx.stdin_path != "-":
            with open(ctx.stdin_path, encoding="utf-8", errors="surrogateescape") as handle:
                text = handle.read()
        else:
            text = sys.stdin.read()
        if self.framing.simple:
            chunks = text.split(self.separator)
            if chunks and chunks[-1] == "":
                chunks.pop()
            if self.drop_empty:
                chunks = [chunk for chunk in chunks if chunk]
        else:  # the preprocessor chain over all of stdin, as one stream
            chunks = self._chunks(text.encode("utf-8", "surrogateescape"))
        rows: list[tuple[int, str, int]] = []
        for chunk in chunks:
            if self.codec.name != "json":  # a rejected chunk is an `err` event, as from files
                decoded = self.codec.decoded_text(chunk, ctx.ingest(len(rows)))
                if decoded is not None:
                    rows.append((len(rows), decoded, ctx.ingest(len(rows))))
                continue
            try:
                keep, value = self.codec.decode(chunk)
            except ValueError as err:
                print(f"Error: invalid input for codec {self.codec.name}: {err}", file=sys.stderr)
                continue
            if keep:
                rows.append((len(rows), encode_json(value), ctx.ingest(len(rows))))
        return rows_frame(spark, rows, encode_origin("tremor-stdin", hostname(), None, []))


class StdioSink:
    """Writes encoded, framed events to stdout (or stderr for port ``stderr``)."""

    stops = False

    def __init__(self, spec: ConnectorSpec) -> None:
        self.codec = codec_from(spec.params.get("codec"))
        self.framing = framing_from(spec.params.get("postprocessors"))
        self.ctx: RunContext | None = None

    def open(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def write(self, port: str, value: Any) -> None:
        data = self.codec.encode(value)
        if data is None or self.ctx is None:
            return
        if port == "stderr":
            sys.stderr.buffer.write(self.framing.frame(data))
        else:
            self.ctx.stdout().write(self.framing.frame(data))

    def close(self) -> None:
        if self.ctx is not None:
            rest = self.framing.finish()  # what collect, chunk, streaming-compress hold back
            if rest:
                self.ctx.stdout().write(rest)
            self.ctx.close()
