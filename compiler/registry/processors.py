"""Pre- and postprocessors (a connector's ``preprocessors`` / ``postprocessors``, TREMOR.md §6.2).

Invariant: every processor Tremor ships is listed per direction with its config keys; the
supported ones are built by ``runtime_support.io.processors`` (its PREPROCESSORS / POSTPROCESSORS
tables, which tests/compiler/registry/test_registry.py holds against these), whose config errors
the compile-time check reports at the processor (``check_processor_config``).
"""

from __future__ import annotations

from .common import Entry, Key, Registry

PRE = "runtime_support.io.processors.pre."
POST = "runtime_support.io.processors.post."
_SEPARATOR = Key(name="separator", type="string", default="\n", doc="one byte: the separator")
_ALGORITHMS = ("gzip", "zlib", "xz2", "snappy", "lz4", "zstd", "br")
_LEVEL = Key(
    name="level", type="integer", doc="xz2: 0..9, zstd: -7..22, lz4: >= 0; no other algorithm"
)
_INGEST = (
    "a sink's events carry no ingest time in tremorc (the job's outputs are value, seq, sub), "
    "so there is none to prepend"
)

PREPROCESSORS = Registry(
    "preprocessor",
    (
        Entry(
            name="separate",
            keys=(
                _SEPARATOR,
                Key(
                    name="max_length",
                    type="unsigned",
                    default=0,
                    doc="longer fragments are discarded, each an `err` record (0: no limit)",
                ),
                Key(
                    name="buffered",
                    type="bool",
                    default=True,
                    doc="false: every read ends an event (a file is one read)",
                ),
            ),
            factory=PRE + "Separate",
            doc="split at separator (named alone: no length limit, see docs/tremor-users.md)",
        ),
        Entry(name="remove-empty", factory=PRE + "RemoveEmpty", doc="drop empty messages"),
        Entry(name="base64", factory=PRE + "Base64", doc="base64-decode"),
        Entry(
            name="decompress",
            keys=(
                Key(
                    name="algorithm",
                    type="string",
                    default="autodetect",
                    choices=("autodetect", *_ALGORITHMS),
                    doc="autodetect: by magic bytes, other data passes through",
                ),
            ),
            factory=PRE + "Decompress",
            doc="decompress (a file source reads each file as one piece)",
        ),
        Entry(name="gelf-chunking", factory=PRE + "GelfChunking", doc="reassemble GELF chunks"),
        Entry(
            name="ingest-ns",
            factory=PRE + "IngestNs",
            doc="first 8 bytes: the chunk's ingest time (big-endian u64)",
        ),
        Entry(
            name="length-prefixed",
            factory=PRE + "LengthPrefixed",
            doc="split by 8-byte big-endian length prefixes",
        ),
        Entry(
            name="textual-length-prefixed",
            factory=PRE + "TextualLengthPrefixed",
            doc="split by ASCII length + space (RFC 5425)",
        ),
    ),
)

POSTPROCESSORS = Registry(
    "postprocessor",
    (
        Entry(
            name="separate", keys=(_SEPARATOR,), factory=POST + "Separate", doc="append separator"
        ),
        Entry(name="base64", factory=POST + "Base64", doc="base64-encode"),
        Entry(
            name="chunk",
            keys=(Key(name="max_bytes", type="unsigned", required=True, doc="> 0"),),
            factory=POST + "Chunk",
            doc="pack events into chunks of at most max_bytes (larger events are dropped)",
        ),
        Entry(
            name="collect",
            keys=(Key(name="max_bytes", type="unsigned", default=0, doc="0: only at the end"),),
            factory=POST + "Collect",
            doc="concatenate events (a file sink: per part file)",
        ),
        Entry(
            name="compress",
            keys=(
                Key(name="algorithm", type="string", required=True, choices=_ALGORITHMS),
                _LEVEL,
            ),
            factory=POST + "Compress",
            doc="compress each event",
        ),
        Entry(
            name="gelf-chunking",
            factory=POST + "GelfChunking",
            doc="split into GELF chunks of 8192 bytes",
        ),
        Entry(name="ingest-ns", supported=False, reason=_INGEST),
        Entry(
            name="length-prefixed",
            factory=POST + "LengthPrefixed",
            doc="prepend 8-byte big-endian length",
        ),
        Entry(
            name="streaming-compress",
            keys=(
                Key(name="algorithm", type="string", required=True, choices=("xz2", "zstd")),
                Key(name="level", type="integer", doc="xz2: 0..9 (6), zstd: -7..22 (0)"),
            ),
            factory=POST + "StreamingCompress",
            doc="one compressed stream over the events (a file sink: per part file)",
        ),
        Entry(
            name="textual-length-prefixed",
            factory=POST + "TextualLengthPrefixed",
            doc="prepend ASCII length + space",
        ),
    ),
)
