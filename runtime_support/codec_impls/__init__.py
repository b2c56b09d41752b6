"""The codecs of Tremor's ``tremor-codec`` beyond json/string/binary/null, one module per
family; each is a class with ``decode(data, config, ingest_ns=0) -> (bool, value)`` and
``encode(value, config) -> str | bytes`` (see :mod:`runtime_support.codecs`).

Invariant: input may be ``str`` (surrogate-escaped bytes) or ``bytes``; binary formats see the
exact bytes (:func:`common.raw`). Malformed input and unencodable values raise
:class:`common.CodecError` (a ``ValueError``) with Tremor's message.
"""

from __future__ import annotations

from .avro_codec import AvroCodec
from .confluent import ConfluentCodec
from .csv_codec import CsvCodec
from .dogstatsd import DogStatsDCodec
from .graphite import GraphiteCodec
from .influx import BinfluxCodec, InfluxCodec
from .msgpack_codec import MsgPackCodec
from .statsd import StatsDCodec
from .syslog import SyslogCodec
from .yaml_codec import YamlCodec

__all__ = [
    "AvroCodec",
    "BinfluxCodec",
    "ConfluentCodec",
    "CsvCodec",
    "DogStatsDCodec",
    "GraphiteCodec",
    "InfluxCodec",
    "MsgPackCodec",
    "StatsDCodec",
    "SyslogCodec",
    "YamlCodec",
]
