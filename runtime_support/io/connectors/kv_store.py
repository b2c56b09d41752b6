"""Tremor's ``kv`` store on one executor: the commands of ``$kv`` applied to a sqlite3 file
(tremor-connectors ``impls/kv.rs``; Tremor's store is sled, same ordering of keys).

The store is ``<path>/tremorc-kv.sqlite3``: one table of ``key BLOB PRIMARY KEY, value BLOB``
(keys compare as bytes, as sled's do, so ``scan`` ranges match) and one of applied streaming
micro-batches ``(connector, run, batch)``. Values are stored as sorted compact JSON, Tremor's
``Json<Sorted>`` codec, and ``cas`` compares those bytes. Commands (``$kv`` record, the first
present of ``get``, ``put``, ``swap``, ``cas``, ``delete``, ``scan`` whose value is a string or
binary is the command) answer as Tremor: per result ``("out", value, {"kv": {"op", "ok": key
bytes}, "correlation"?})``; a failure one ``("err", null, {"error": msg, "kv": {"op", "key"} |
null, "correlation"?})`` (the key there an array of byte values, as Tremor's).
Invariant: one :class:`Store` applies its commands in call order, inside one sqlite
transaction committed by :meth:`Store.commit`.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from runtime_support.tremor.jsonio import canonical_json, decode_json

STORE_FILE = "tremorc-kv.sqlite3"
COMMANDS = ("get", "put", "swap", "cas", "delete", "scan")
INVALID_DIR = "Invalid `dir`. Not a directory or not accessible."

Answer = tuple[str, Any, dict[str, Any]]


class KvError(Exception):
    """A command that fails (Tremor's ``kv::Error``); the message is Tremor's."""


def store_path(directory: str) -> str:
    """The sqlite file of the store in ``directory`` (ValueError: Tremor's message, when
    ``directory`` is not an accessible directory)."""
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"{INVALID_DIR} (path {directory!r})")
    return os.path.join(directory, STORE_FILE)


def _bytes(value: Any) -> bytes | None:
    """Tremor's ``get_bytes``: a string's UTF-8 bytes, a binary's bytes, else None."""
    if type(value) is bytes:
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return None


def parse_command(meta: dict[str, Any]) -> tuple[str, bytes, dict[str, Any]]:
    """``(op, key or scan start, $kv)`` of an event's ``$`` record, or KvError."""
    if "kv" not in meta:
        raise KvError("Missing `$kv` field for commands")
    kv = meta["kv"]
    if isinstance(kv, dict):
        for op in COMMANDS:
            key = _bytes(kv.get(op))
            if key is not None:
                return op, key, kv
    raise KvError(f"Invalid command: {display(kv)}")


def display(value: Any) -> str:
    """Tremor's ``Display`` of a value in a message: a string as is, the rest as JSON text."""
    if isinstance(value, str):
        return value
    if type(value) is bytes:
        return f"<<{list(value)!r}>>"
    return canonical_json(value)


def _decode(stored: bytes | None) -> Any:
    return None if stored is None else decode_json(stored)


class Store:
    """The commands of one task on the store at ``directory`` (one open transaction)."""

    def __init__(self, directory: str) -> None:
        self.db = sqlite3.connect(store_path(directory), timeout=600, isolation_level=None)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) "
            "WITHOUT ROWID"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS applied (connector TEXT, run TEXT, batch INTEGER, "
            "PRIMARY KEY (connector, run))"
        )
        self.db.execute("BEGIN IMMEDIATE")

    def applied(self, connector: str, run: str, batch: int) -> bool:
        """Was micro-batch ``batch`` of ``run`` (or a later one) committed already?"""
        row = self.db.execute(
            "SELECT batch FROM applied WHERE connector = ? AND run = ?", (connector, run)
        ).fetchone()
        return row is not None and row[0] >= batch

    def mark(self, connector: str, run: str, batch: int) -> None:
        """Record micro-batch ``batch`` of ``run`` as applied (in the open transaction)."""
        self.db.execute("INSERT OR REPLACE INTO applied VALUES (?, ?, ?)", (connector, run, batch))

    def commit(self) -> None:
        """Commit every command applied so far (and close)."""
        self.db.execute("COMMIT")
        self.db.close()

    def rollback(self) -> None:
        """Drop every command applied so far (and close)."""
        self.db.execute("ROLLBACK")
        self.db.close()

    def _get(self, key: bytes) -> bytes | None:
        row = self.db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def _put(self, key: bytes, value: Any) -> bytes | None:
        old = self._get(key)
        stored = canonical_json(value).encode("utf-8")
        self.db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, stored))
        return old

    def answer(self, value: Any, meta: dict[str, Any]) -> list[Answer]:
        """The response events of one command event (``value``: the event, ``meta``: its
        ``$``), the command applied."""
        correlation = {"correlation": meta["correlation"]} if "correlation" in meta else {}
        try:
            op, key, kv = parse_command(meta)
        except KvError as err:
            return [("err", None, {"error": str(err), "kv": None, **correlation})]
        try:
            results = self._execute(op, key, kv, value)
        except KvError as err:
            # Tremor's key here is a Vec<u8>: an array of byte values, not a binary.
            info = {"error": str(err), "kv": {"op": op, "key": list(key)}, **correlation}
            return [("err", None, info)]
        return [("out", v, {"kv": {"op": op, "ok": k}, **correlation}) for k, v in results]

    def _execute(self, op: str, key: bytes, kv: dict, value: Any) -> list[tuple[bytes, Any]]:
        if op == "get":
            return [(key, _decode(self._get(key)))]
        if op == "put":
            self._put(key, value)
            return [(key, value)]
        if op == "swap":
            return [(key, _decode(self._put(key, value)))]
        if op == "delete":
            old = self._get(key)
            self.db.execute("DELETE FROM kv WHERE key = ?", (key,))
            return [(key, _decode(old))]
        if op == "cas":
            return [(key, self._cas(key, kv, value))]
        return self._scan(key, _bytes(kv.get("end")))

    def _cas(self, key: bytes, kv: dict, value: Any) -> None:
        """Put ``value`` when the stored bytes are those of ``$kv.old`` (absent: no value)."""
        current = self._get(key)
        expected = canonical_json(kv["old"]).encode("utf-8") if "old" in kv else None
        if current != expected:
            shown = display(_decode(current))
            raise KvError(f"CAS error: expected {display(value)} but found {shown}.")
        self._put(key, value)

    def _scan(self, start: bytes, end: bytes | None) -> list[tuple[bytes, Any]]:
        if end is None:
            query = "SELECT key, value FROM kv WHERE key >= ? ORDER BY key"
            rows = self.db.execute(query, (start,))
        else:
            rows = self.db.execute(
                "SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key", (start, end)
            )
        return [(bytes(k), _decode(bytes(v))) for k, v in rows.fetchall()]
