"""``http_server`` as a source: requests received on the driver, one event per decoded body.

The server is the standard library's ``ThreadingHTTPServer`` (HTTP/1.1, keep-alive, a thread
per connection): no dependency beyond Python, and the work per request is small (decode, queue
to the spool), so an async server would not buy throughput under the GIL. A request's body is
decoded by the codec its ``Content-Type`` names in ``mime_mapping`` (Tremor's default map
without it), else the mapping's ``*/*``, else the connector's ``codec``, else ``binary``; the
configured preprocessors frame it (one body may hold many events). An empty body (``GET``) is
one ``null`` event, as in Tremor. Every event carries ``$http_server``:
``{"request": {"headers", "method", "protocol", "uri", "version"}, "request_id"}``.

Responses: a Spark job can not answer with a pipeline event (the compiler rejects a connect to
the server's ``in``). Each request is answered ``202 Accepted`` (empty body) once its events
are durably spooled (stream: synced to the spool under the checkpoint; batch: taken into the
run), ``400`` when the codec rejects the body, ``503`` when the spool did not take it within
30 s. Without a response path Tremor sends no answer at all.
"""

from __future__ import annotations

import itertools
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from runtime_support.io.codecs import Codec, codec_from
from runtime_support.io.connectors.base import ConnectorSpec, RunContext
from runtime_support.io.connectors.net.datasource import Decoder, ServerSource
from runtime_support.io.connectors.net.http import MIME_TYPES
from runtime_support.io.connectors.net.udp import _family
from runtime_support.spark.input_lines import CODEC_ERROR
from runtime_support.tremor.event_meta import encode_meta

SPOOL_WAIT_S = 30


class _Decoder(Decoder):
    """A :class:`Decoder` leaving out the chunks its codec rejected, and counting them (the
    request is answered ``400``)."""

    rejected = 0

    def _events(self, chunks: list[bytes]) -> list[str]:
        got = super()._events(chunks)
        good = [value for value in got if not value.startswith(CODEC_ERROR)]
        self.rejected += len(got) - len(good)
        return good


class HttpServerSource(ServerSource):
    """Requests received on ``url`` (see the module doc)."""

    scheme = "http-server"
    has_meta = True

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        mapping = spec.config.get("mime_mapping")
        self.by_mime = mapping if isinstance(mapping, dict) else MIME_TYPES
        self.configured = spec.params.get("codec")
        self.ids = itertools.count(1)  # Tremor's request ids start at 1

    @property
    def origin(self) -> str:
        from runtime_support.tremor.origin import encode_origin

        return encode_origin(self.scheme, "localhost", None, [])

    def codec_for(self, content_type: str | None) -> Codec:
        """Tremor's mime rules (see the module doc)."""
        essence = (content_type or "").split(";")[0].strip().lower()
        chosen = self.by_mime.get(essence, self.by_mime.get("*/*"))
        if chosen is None:
            chosen = self.configured if self.configured is not None else "binary"
        return codec_from(chosen)

    def events(self, body: bytes, content_type: str | None, meta: dict) -> tuple[list[str], int]:
        """The spool values (``<value>\\t<meta>``) of one request and its rejected chunks."""
        text = encode_meta({"http_server": {"request": meta, "request_id": next(self.ids)}})
        if not body:
            return [f"null\t{text}"], 0
        decoder = _Decoder(self.codec_for(content_type), self.framing, self.alias)
        values = decoder.feed(body) + decoder.finish()
        return self.tagged(values, text), decoder.rejected

    def serve(self, emit: Any, stop: threading.Event) -> None:
        server = ThreadingHTTPServer((self.host, self.port), _Handler, bind_and_activate=False)
        if _family(self.host) != server.address_family:  # an IPv6 url
            server.socket.close()
            server.address_family = _family(self.host)
            server.socket = socket.socket(server.address_family, server.socket_type)
        server.daemon_threads = True
        server.server_bind()
        server.server_activate()
        server.source, server.emit = self, emit  # type: ignore[attr-defined]
        threading.Thread(target=_stop_on, args=(server, stop), daemon=True).start()
        with server:
            server.serve_forever(poll_interval=0.2)

    def read(self, spark: Any, ctx: RunContext) -> Any:
        got: list[str] = []
        done = threading.Event()

        def emit(values: list[str], taken: threading.Event) -> None:
            if not done.is_set():
                got.extend(values)
                taken.set()
            if len(got) >= ctx.ticks:
                done.set()

        if ctx.ticks > 0:
            thread = threading.Thread(target=self.serve, args=(emit, done), daemon=True)
            thread.start()
            done.wait()
            thread.join()
        return self.frame(spark, ctx, got[: ctx.ticks])


def _stop_on(server: ThreadingHTTPServer, stop: threading.Event) -> None:
    stop.wait()
    server.shutdown()


class _Handler(BaseHTTPRequestHandler):
    """Every method: read the body, emit its events, answer once they are taken."""

    protocol_version = "HTTP/1.1"
    server_version = "tremorc-http-server"

    def handle_one_request(self) -> None:
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline:
            self.close_connection = True
            return
        if self.parse_request():
            self._answer()
        self.wfile.flush()

    def _answer(self) -> None:
        source: HttpServerSource = self.server.source  # type: ignore[attr-defined]
        body = self._body()
        meta = {
            "headers": _headers(self.headers),
            "method": self.command,
            "protocol": "http",
            "uri": self.path,
            "version": self.request_version,
        }
        try:
            values, rejected = source.events(body, self.headers.get("Content-Type"), meta)
        except ValueError as err:  # a codec tremorc lacks, named by the mime mapping
            print(f"Error: {source.alias}: {err}", file=sys.stderr)
            return self._reply(400, str(err))
        if rejected and not values:
            return self._reply(400, "the codec rejected the body")
        taken = threading.Event()
        self.server.emit(values, taken)  # type: ignore[attr-defined]
        self._reply(202 if taken.wait(SPOOL_WAIT_S) else 503, "")

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _reply(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """No access log on stderr (Tremor logs none either)."""


def _headers(message: Any) -> dict[str, list[str]]:
    """Tremor's header record: lower-case name → every value, in order."""
    out: dict[str, list[str]] = {}
    for name, value in message.items():
        out.setdefault(name.lower(), []).append(value)
    return out
