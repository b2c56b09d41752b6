"""Tremor's ``elastic`` sink on the executors: bulk requests from events and ``$elastic``, and
the response events of Tremor's ``out`` / ``err`` ports (tremor-connectors ``impls/elastic.rs``).

One request per event, or per ``generic::batch`` event (its events arrive as consecutive rows
marked ``[index, size]``, see ``runtime_support.tremor.graph.MetaValue``). Each event's ``$elastic``
gives its bulk action (``index`` default, ``create``/``update``/``delete`` need ``_id``), its
``_index``, ``_id``, ``routing``, ``pipeline``, ``version``, ``version_type``, ``if_seq_no``,
``if_primary_term``, ``retry_on_conflict``, ``raw_payload``; the request-wide options (URL
index, ``_type``, ``routing``, ``refresh``, ``timeout``, ``pipeline``) come from the last event
of a request. Responses, as Tremor: per bulk item ``{action: item[, payload]}`` with
``$elastic = {_id, _index, [version,] action, success}`` and ``$correlation`` copied, on
``out`` (success) or ``err`` (an item with ``error``); a request that fails as a whole (HTTP
error, bad ``$elastic``) one ``err`` event ``{[payload]}`` with ``$elastic.success = false``
and ``$error``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from runtime_support.tremor.jsonio import decode_json, encode_json

ACTIONS = ("index", "create", "update", "delete")
_ITEM_KEYS = {
    "index": ("_index", "_id", "routing", "pipeline", "version", "version_type", "if_seq_no",
              "if_primary_term"),
    "create": ("_index", "_id", "routing", "pipeline"),
    "delete": ("_index", "_id", "routing", "version", "version_type", "if_seq_no",
               "if_primary_term"),
    "update": ("_index", "_id", "routing", "version", "version_type", "if_seq_no",
               "if_primary_term", "retry_on_conflict"),
}  # fmt: skip


class BadMeta(ValueError):
    """``$elastic`` that makes no bulk operation (Tremor fails the whole request)."""


@dataclass(frozen=True)
class Settings:
    """The sink's config, as the executors need it."""

    nodes: tuple[str, ...]
    index: str | None = None
    concurrency: int = 4
    include_payload: bool = False
    headers: dict[str, Any] = field(default_factory=dict)
    authorization: str | None = None  # the Authorization header of ``auth``
    timeout_s: float | None = None
    verify: bool | str = True  # ``tls.cafile``
    cert: tuple[str, str] | None = None  # ``tls.cert``, ``tls.key``


def _elastic(meta: Any) -> dict[str, Any]:
    found = meta.get("elastic") if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def operation(value: Any, meta: dict[str, Any]) -> list[str]:
    """The bulk body lines of one event (action line, then the source unless ``delete``)."""
    es = _elastic(meta)
    action = es.get("action")
    action = "index" if action is None else action
    if action not in ACTIONS:
        raise BadMeta(f"Invalid Elasticsearch action: {action}")
    if action != "index" and not isinstance(es.get("_id"), str):
        raise BadMeta(f"Missing `$elastic._id` for action {action}")
    head = {k: es[k] for k in _ITEM_KEYS[action] if es.get(k) is not None}
    lines = [encode_json({action: head})]
    if action == "update":
        lines.append(encode_json(value if es.get("raw_payload") is True else {"doc": value}))
    elif action != "delete":
        lines.append(encode_json(value))
    return lines


def request_target(meta: dict[str, Any], default_index: str | None) -> tuple[str, dict]:
    """The bulk path (``/[index[/type]]/_bulk``) and query parameters of a request."""
    es = _elastic(meta)
    index = es.get("_index") if isinstance(es.get("_index"), str) else default_index
    path = "/_bulk"
    if index:
        doc_type = es.get("_type")
        path = f"/{index}/{doc_type}/_bulk" if isinstance(doc_type, str) else f"/{index}/_bulk"
    params = {k: es[k] for k in ("routing", "timeout", "pipeline") if isinstance(es.get(k), str)}
    refresh = es.get("refresh")
    if isinstance(refresh, bool):
        params["refresh"] = "true" if refresh else "false"
    elif refresh == "wait_for":
        params["refresh"] = "wait_for"
    elif refresh is not None:
        raise BadMeta(f"Invalid value for `$elastic.refresh`: {encode_json(refresh)}")
    return path, params


@dataclass
class Request:
    """The events of one bulk request: values and ``$`` records; ``batch``: from one batch."""

    values: list[Any]
    metas: list[dict[str, Any]]
    batch: bool


def requests_of(rows: Iterable[tuple[str, str | None]]) -> Iterator[Request]:
    """Rows ``(value JSON, meta JSON)`` in emission order → requests (a batch's rows one)."""
    open_: Request | None = None
    size = 0
    for text, meta_text in rows:
        envelope = decode_json(meta_text) if meta_text else {}
        meta = _meta_record(envelope.get("$") if isinstance(envelope, dict) else None)
        batch = envelope.get("batch") if isinstance(envelope, dict) else None
        value = decode_json(text)
        if not batch:
            if open_ is not None:
                yield open_
                open_ = None
            yield Request([value], [meta], False)
            continue
        index, size = int(batch[0]), int(batch[1])
        if index == 0 and open_ is not None:
            yield open_
            open_ = None
        open_ = open_ or Request([], [], True)
        open_.values.append(value)
        open_.metas.append(meta)
        if len(open_.values) >= size:
            yield open_
            open_ = None
    if open_ is not None:
        yield open_


def _meta_record(meta: Any) -> dict[str, Any]:
    from runtime_support.tremor.event_meta import _untagged

    return _untagged(meta) if isinstance(meta, dict) else {}


class Client:
    """HTTP to the nodes (round robin per request, as Tremor's client list)."""

    def __init__(self, settings: Settings) -> None:
        import requests

        self.settings = settings
        self.session = requests.Session()
        self.session.headers.update({"Content-Type": "application/x-ndjson"})
        for name, value in settings.headers.items():
            self.session.headers[name] = ", ".join(value) if isinstance(value, list) else value
        if settings.authorization is not None:
            self.session.headers["Authorization"] = settings.authorization
        self.session.verify = settings.verify
        self.session.cert = settings.cert
        self.turn = itertools.count()

    def bulk(self, request: Request) -> list[tuple[str, Any, dict]]:
        """The response events ``(port, value, meta)`` of one request."""
        try:
            body = "".join(
                line + "\n"
                for value, meta in zip(request.values, request.metas, strict=True)
                for line in operation(value, meta)
            )
            path, params = request_target(request.metas[-1], self.settings.index)
            node = self.settings.nodes[next(self.turn) % len(self.settings.nodes)].rstrip("/")
            reply = self.session.post(
                node + path, data=body.encode("utf-8"), params=params,
                timeout=self.settings.timeout_s,
            )  # fmt: skip
            reply.raise_for_status()
            return self._items(request, reply.json())
        except Exception as err:  # noqa: BLE001 - Tremor reports any request failure on err
            return [self._failed(request, err)]

    def _items(self, request: Request, answer: Any) -> list[tuple[str, Any, dict]]:
        items = answer.get("items") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise ValueError(f"Invalid Response from ES: {encode_json(answer)}")
        out = []
        for item, value, meta in zip(items, request.values, request.metas, strict=False):
            if not isinstance(item, dict) or not item:
                continue
            action, result = next(iter(item.items()))
            ok = not (isinstance(result, dict) and "error" in result)
            info = {"_id": result.get("_id"), "_index": result.get("_index")}
            if ok:
                info["version"] = result.get("_version")
            info.update(action=action, success=ok)
            out.append(("out" if ok else "err", self._data({action: result}, value), _with(
                {"elastic": info}, meta)))  # fmt: skip
        return out

    def _failed(self, request: Request, err: Exception) -> tuple[str, Any, dict]:
        payload = request.values if request.batch else request.values[0]
        metas = request.metas
        meta: dict[str, Any] = {"elastic": {"success": False}, "error": str(err)}
        if request.batch:
            found = [m["correlation"] for m in metas if "correlation" in m]
            if found:
                meta["correlation"] = found
        elif "correlation" in metas[0]:
            meta["correlation"] = metas[0]["correlation"]
        return ("err", self._data({}, payload), meta)

    def _data(self, data: dict[str, Any], payload: Any) -> dict[str, Any]:
        if self.settings.include_payload:
            data["payload"] = payload
        return data


def _with(meta: dict[str, Any], event_meta: dict[str, Any]) -> dict[str, Any]:
    if "correlation" in event_meta:
        meta["correlation"] = event_meta["correlation"]
    return meta


def run_requests(settings: Settings, requests: Iterable[tuple[Any, Request]]) -> Iterator[tuple]:
    """``(key, request)`` → ``(key, response events)`` in request order, up to ``concurrency``
    requests in flight."""
    client = Client(settings)
    window = max(1, settings.concurrency)
    stream = iter(requests)
    with ThreadPoolExecutor(max_workers=window) as pool:
        while True:
            chunk = list(itertools.islice(stream, window * 4))
            if not chunk:
                return
            answers = pool.map(client.bulk, [request for _, request in chunk])
            yield from zip((key for key, _ in chunk), answers, strict=True)
