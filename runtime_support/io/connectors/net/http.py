"""``http_client`` as a sink: one request per event, sent from the executors with ``requests``
(each partition one session, its requests one at a time in emission order).

The request: ``config.method`` (default POST) to ``config.url`` with ``config.headers`` (a value
or a list of values per name) and ``auth`` (``basic``, ``bearer``, ``elastic_api_key``). The
body codec follows Tremor's mime rules: the ``Content-Type`` header picks the codec from
``mime_mapping`` (or Tremor's default map), falling back to its ``*/*`` entry, then the
connector's ``codec``; without the header, the chosen codec's mime type (octet-stream when
the mapping chose none). A response that is not 2xx is reported on the executor's stderr
(Tremor sends it to ``err``); a request that can not be sent fails the task.
"""

from __future__ import annotations

import base64
import sys
from typing import Any

from runtime_support.io.codecs import Codec, codec_from
from runtime_support.io.connectors.base import ConnectorSpec
from runtime_support.io.connectors.net.datasource import NetSinkBase

#: Tremor's default mime type → codec and codec → mime type (tremor-connectors utils/mime.rs).
MIME_TYPES = {
    "application/json": "json",
    "application/yaml": "yaml",
    "text/csv": "csv",
    "text/plain": "string",
    "text/html": "string",
    "text/syslog": "syslog",
    "application/msgpack": "msgpack",
    "application/x-msgpack": "msgpack",
    "application/vnd.msgpack": "msgpack",
    "application/octet-stream": "binary",
}
_OCTETS = "application/octet-stream"
CODEC_MIME = {
    "json": "application/json",
    "csv": "text/csv",
    "string": "text/plain",
    "msgpack": "application/msgpack",
    "yaml": "application/yaml",
    "binary": "application/octet-stream",
    "syslog": "text/plain",
    "influx": "text/plain",
    "binflux": "application/octet-stream",
    "statsd": "text/plain",
    "dogstatsd": "text/plain",
}


def auth_header(auth: Any, alias: str) -> str | None:
    """The ``Authorization`` value of Tremor's ``auth`` config (None: no auth)."""
    if auth in (None, "none"):
        return None
    if isinstance(auth, dict) and len(auth) == 1:
        ((kind, value),) = auth.items()
        if kind == "basic" and isinstance(value, dict):
            pair = f"{value.get('username', '')}:{value.get('password', '')}"
            return "Basic " + base64.b64encode(pair.encode()).decode()
        if kind == "bearer" and isinstance(value, str):
            return f"Bearer {value}"
        if kind == "elastic_api_key" and isinstance(value, dict):
            pair = f"{value.get('id', '')}:{value.get('api_key', '')}"
            return "ApiKey " + base64.b64encode(pair.encode()).decode()
    raise ValueError(
        f'Invalid config for connector `{alias}`: `auth` must be "none", {{"basic": '
        '{"username", "password"}}, {"bearer": token} or {"elastic_api_key": {"id", "api_key"}}'
    )


class HttpClientSink(NetSinkBase):
    """Requests to ``url`` (see the module doc)."""

    def __init__(self, spec: ConnectorSpec) -> None:
        super().__init__(spec)
        config = spec.config
        self.url = config.get("url") or "http://localhost/"
        self.method = str(config.get("method", "POST")).upper()
        self.timeout = None if config.get("timeout") is None else config["timeout"] / 1e9
        self.headers: list[tuple[str, str]] = []
        for name, values in (config.get("headers") or {}).items():
            for value in values if isinstance(values, list) else [values]:
                self.headers.append((name, str(value)))
        auth = auth_header(config.get("auth"), spec.alias)
        if auth is not None:
            self.headers.append(("Authorization", auth))
        self.codec, content_type = self.body_codec(config.get("mime_mapping"))
        if content_type is not None:
            self.headers.append(("Content-Type", content_type))

    def body_codec(self, mapping: Any) -> tuple[Codec, str | None]:
        """Tremor's ``consolidate_mime``: the codec of the bodies and the ``Content-Type`` to
        add (None: a configured header sets it; octet-stream when no mapping names a codec)."""
        by_mime = mapping if isinstance(mapping, dict) else MIME_TYPES
        by_codec = dict(CODEC_MIME)
        for mime, codec in by_mime.items() if mapping is not None else ():
            if mime != "*/*":
                by_codec[str(codec.get("name") if isinstance(codec, dict) else codec)] = mime
        given = [v for k, v in self.headers if k.lower() == "content-type"]
        essence = given[0].split(";")[0].strip().lower() if given else "*/*"
        chosen = by_mime.get(essence, by_mime.get("*/*"))
        codec = self.codec if chosen is None else codec_from(chosen)
        if given:
            return codec, None
        return codec, by_codec.get(codec.name) if chosen is not None else _OCTETS

    def connect(self) -> Any:
        return _Requests(self)


class _Requests:
    """One ``requests`` session per partition; ``send`` is one request."""

    def __init__(self, sink: HttpClientSink) -> None:
        import requests

        self.sink, self.session = sink, requests.Session()

    def send(self, body: bytes) -> None:
        import requests

        sink = self.sink
        headers = requests.structures.CaseInsensitiveDict()
        for name, value in sink.headers:
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        response = self.session.request(
            sink.method, sink.url, data=body, headers=headers, timeout=sink.timeout
        )
        if not 200 <= response.status_code < 300:
            print(
                f"Error: {sink.alias}: {sink.method} {sink.url} answered {response.status_code}",
                file=sys.stderr,
            )

    def close(self) -> None:
        self.session.close()
