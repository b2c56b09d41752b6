"""The codecs of Tremor's ``tremor-codec`` beyond json/string/binary/null, one module per
family; each is a class with ``decode(data, config, ingest_ns=0) -> (bool, value)`` and
``encode(value, config) -> str | bytes`` (see :mod:`runtime_support.codecs`).

Invariant: input may be ``str`` (surrogate-escaped bytes) or ``bytes``; binary formats see the
exact bytes (:func:`common.raw`). Malformed input and unencodable values raise
:class:`common.CodecError` (a ``ValueError``) with Tremor's message.
"""

from __future__ import annotations

from runtime_support.codec_impls.avro_codec import AvroCodec
from runtime_support.codec_impls.confluent import ConfluentCodec
from runtime_support.codec_impls.csv_codec import CsvCodec
from runtime_support.codec_impls.dogstatsd import DogStatsDCodec
from runtime_support.codec_impls.graphite import GraphiteCodec
from runtime_support.codec_impls.influx import BinfluxCodec, InfluxCodec
from runtime_support.codec_impls.msgpack_codec import MsgPackCodec
from runtime_support.codec_impls.statsd import StatsDCodec
from runtime_support.codec_impls.syslog import SyslogCodec
from runtime_support.codec_impls.yaml_codec import YamlCodec

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
