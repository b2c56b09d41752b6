"""Codecs (a connector's ``codec``, TREMOR.md §6.1).

Invariant: every codec Tremor ships is listed; the supported ones are implemented by
``runtime_support.codecs`` (its ``CODECS`` table mirrors the factories, see
tests/test_registry.py) and declare the config keys it honours.
"""

from __future__ import annotations

from .common import Entry, Key, Registry

RT = "runtime_support.codecs."

_SUPPORTED = (
    Entry(
        name="binary",
        factory=RT + "BinaryCodec",
        doc="raw bytes ⇄ binary value (non-binary values are encoded as JSON)",
    ),
    Entry(
        name="json",
        keys=(
            Key(
                name="mode",
                type="string",
                default="unsorted",
                choices=("sorted", "unsorted"),
                doc="`sorted`: key-sorted output",
            ),
        ),
        factory=RT + "JsonCodec",
        doc="JSON ⇄ value; output compact",
    ),
    Entry(name="null", factory=RT + "NullCodec", doc="drops data"),
    Entry(name="string", factory=RT + "StringCodec", doc="UTF-8 text ⇄ string"),
)

_LATER = "tremorc does not implement it yet"
_UNSUPPORTED = {
    "avro": _LATER,
    "binflux": _LATER,
    "confluent-schema-registry": "needs a schema registry service",
    "csv": _LATER,
    "dogstatsd": _LATER,
    "graphite-plaintext": _LATER,
    "influx": _LATER,
    "msgpack": _LATER,
    "statsd": _LATER,
    "syslog": _LATER,
    "tremor": "Tremor's internal inter-node format",
    "yaml": _LATER,
}

CODECS = Registry(
    "codec",
    _SUPPORTED + tuple(Entry(name=n, supported=False, reason=r) for n, r in _UNSUPPORTED.items()),
)
