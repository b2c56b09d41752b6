"""Pre- and postprocessors (a connector's ``preprocessors`` / ``postprocessors``, TREMOR.md §6.2).

Invariant: every processor Tremor ships is listed per direction; the supported ones are what
``runtime_support.codecs.framing_from`` implements, with the config keys it honours.
"""

from __future__ import annotations

from .common import Entry, Key, Registry

FRAMING = "runtime_support.codecs.framing_from"
_SEPARATOR = Key(name="separator", type="string", default="\n", doc="the event separator")
_LATER = "tremorc does not implement it yet"
_BINARY = "tremorc does not implement binary framing yet"
_WHOLE = "input is split at every separator; fragment length and buffering are not configurable"

PREPROCESSORS = Registry(
    "preprocessor",
    (
        Entry(
            name="separate",
            keys=(
                _SEPARATOR,
                Key(name="max_length", type="unsigned", rejected=_WHOLE),
                Key(name="buffered", type="bool", rejected=_WHOLE),
            ),
            factory=FRAMING,
            doc="split at separator",
        ),
        Entry(name="remove-empty", factory=FRAMING, doc="drop empty messages"),
        Entry(name="base64", supported=False, reason=_LATER),
        Entry(name="decompress", supported=False, reason=_LATER),
        Entry(name="gelf-chunking", supported=False, reason=_BINARY),
        Entry(name="ingest-ns", supported=False, reason=_BINARY),
        Entry(name="length-prefixed", supported=False, reason=_BINARY),
        Entry(name="textual-length-prefixed", supported=False, reason=_LATER),
    ),
)

POSTPROCESSORS = Registry(
    "postprocessor",
    (
        Entry(name="separate", keys=(_SEPARATOR,), factory=FRAMING, doc="append separator"),
        Entry(name="base64", supported=False, reason=_LATER),
        Entry(name="chunk", supported=False, reason=_LATER),
        Entry(name="collect", supported=False, reason=_LATER),
        Entry(name="compress", supported=False, reason=_LATER),
        Entry(name="gelf-chunking", supported=False, reason=_BINARY),
        Entry(name="ingest-ns", supported=False, reason=_BINARY),
        Entry(name="length-prefixed", supported=False, reason=_BINARY),
        Entry(name="streaming-compress", supported=False, reason=_LATER),
        Entry(name="textual-length-prefixed", supported=False, reason=_LATER),
    ),
)
