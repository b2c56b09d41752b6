"""Builtin operators (``define operator x from ns::name``, TREMOR.md §4).

Invariant: every operator Tremor has is listed; a supported one names its
``runtime_support.tremor.builtin_operators`` class (``OPERATORS`` there must agree, see
tests/compiler/registry/test_registry.py), its config keys (Tremor's serde configs: unknown keys are
errors there too), its output ports and its state scope: ``global`` when one state sees every event
in order, ``keyed`` when the state splits by a key no event of another key can touch.
"""

from __future__ import annotations

from .common import Entry, Key, Registry

RT = "runtime_support.tremor.builtin_operators."
_TIMEOUT = Key(name="timeout", type="unsigned", required=True, doc="ns")
_BACKPRESSURE = (
    _TIMEOUT,
    Key(name="steps", type="array<unsigned>", doc="ms backoff steps"),
    Key(name="method", type="string", choices=("discard", "pause"), default="discard"),
)
_NO_ACKS = "passes every event to `out`: Spark has no downstream acknowledgements"

OPERATORS = Registry(
    "operator",
    (
        Entry(name="passthrough", factory=RT + "Forward", ports=("out",), doc="identity"),
        Entry(
            name="generic::counter",
            scope="global",
            factory=RT + "Counter",
            ports=("out",),
            doc="`{count, event}`, counting from 1",
        ),
        Entry(
            name="generic::batch",
            keys=(
                Key(name="count", type="unsigned", required=True, doc="events per batch"),
                Key(name="timeout", type="unsigned", doc="ns since the batch's first event"),
            ),
            scope="global",
            factory=RT + "Batch",
            ports=("out",),
            doc="batches events",
        ),
        Entry(
            name="generic::backpressure",
            keys=_BACKPRESSURE,
            scope="global",
            factory=RT + "Forward",
            ports=("out", "overflow"),
            doc="deprecated alias of `qos::backpressure`; " + _NO_ACKS,
        ),
        Entry(
            name="qos::backpressure",
            keys=_BACKPRESSURE,
            scope="global",
            factory=RT + "Forward",
            ports=("out", "overflow"),
            doc=_NO_ACKS,
        ),
        Entry(
            name="qos::percentile",
            keys=(
                _TIMEOUT,
                Key(name="step_down", type="number", default=0.05),
                Key(name="step_up", type="number", default=0.001),
            ),
            scope="global",
            factory=RT + "Forward",
            ports=("out", "overflow"),
            doc=_NO_ACKS,
        ),
        Entry(
            name="qos::roundrobin",
            keys=(Key(name="outputs", type="array<string>", default=["out"]),),
            scope="global",
            factory=RT + "RoundRobin",
            ports=("overflow",),
            doc="cycles events over the `outputs` ports",
        ),
        Entry(
            name="grouper::bucket",
            scope="keyed",
            keyed_by="$class",
            factory=RT + "Bucket",
            ports=("out", "overflow", "err"),
            doc="rate limit per `$class` (an LRU of `$dimensions` per class)",
        ),
        Entry(
            name="debug::history",
            keys=(
                Key(name="op", type="string", required=True),
                Key(name="name", type="string", required=True),
            ),
            scope="global",
            factory=RT + "History",
            ports=("out",),
            doc="appends `evt: <op>(<id>)` to `$[name]`, ids by arrival",
        ),
        Entry(
            name="bert::sequence_classification",
            supported=False,
            reason="an ML operator, feature-gated in Tremor",
        ),
        Entry(
            name="bert::summarization",
            supported=False,
            reason="an ML operator, feature-gated in Tremor",
        ),
    ),
)
