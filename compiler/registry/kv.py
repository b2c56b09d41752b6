"""The ``kv`` connector's registry entry and its check (TREMOR.md §6.3; tremor-connectors
``impls/kv.rs``: a structured connector whose only config key is ``path``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..source import Source, Span
from .common import Entry, Key, check_structured

_PATH = (
    "the directory of the store (it must exist, as Tremor's); tremorc keeps one sqlite3 file "
    "`tremorc-kv.sqlite3` in it, opened by the executor that applies the commands: on a "
    "cluster a directory every executor sees, or a one-executor cluster"
)

KV = Entry(
    name="kv",
    keys=(Key(name="path", type="string", required=True, doc=_PATH),),
    factory="runtime_support.io.connectors.kv.KvSink",
    ports=("in", "out", "err"),
    doc="sink: command events (`$kv`) applied in emission order by one Spark task to a sqlite3 "
    "store; `out`/`err` answer each command (batch: a second pass; a stream rejects them and "
    "applies each micro-batch once)",
)


def check_kv(params: dict[str, Any], value_span: Callable[[str], Span], source: Source) -> None:
    """``kv`` is structured (Tremor rejects a codec; tremorc also rejects processors, which
    Tremor's structured connectors never run)."""
    check_structured("kv", params, value_span, source)
