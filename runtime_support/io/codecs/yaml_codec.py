"""``yaml``: YAML ⇄ value (Tremor uses ``serde_yaml``, YAML 1.2), with PyYAML's safe loader
and dumper switched to YAML 1.2's core schema (``yes``/``on`` stay strings, no timestamps,
``0o17`` octal).

Invariants: one document per chunk (an empty one is ``null``); record keys are the keys' text;
binary values are written as arrays of bytes (``serde_yaml`` serialises bytes as a sequence);
the output is block style, no document markers.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from runtime_support.io.codecs.common import CodecError, text

__all__ = ["YamlCodec"]


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present
_SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Loader(_SAFE_LOADER):  # type: ignore[misc,valid-type]
    """SafeLoader with YAML 1.2 core-schema resolvers."""


class _Dumper(_SAFE_DUMPER):  # type: ignore[misc,valid-type]
    """SafeDumper quoting by the same resolvers."""


_CORE = (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
)

for _cls in (_Loader, _Dumper):
    _cls.yaml_implicit_resolvers = {}
    for _tag, _pattern, _first in _CORE:
        _cls.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))
    _cls.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])


def _int(loader: Any, node: Any) -> int:
    value = loader.construct_scalar(node)
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    return int(value, 10)


_Loader.add_constructor("tag:yaml.org,2002:int", _int)


def _mapping(loader: Any, node: Any) -> dict[str, Any]:
    """A mapping whose scalar keys are their text as written (``1: a`` has the key ``"1"``, as
    ``serde_yaml`` reads a key into a string); other keys are rejected."""
    out: dict[str, Any] = {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise CodecError("Invalid YAML: mapping keys must be strings")
        out[key_node.value] = loader.construct_object(value_node, deep=True)
    return out


_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


class YamlCodec:
    """``yaml``: no config."""

    @staticmethod
    def decode(data: str | bytes, config: Any, ingest_ns: int = 0) -> tuple[bool, Any]:
        try:
            value = yaml.load(text(data), Loader=_Loader)  # noqa: S506 - a SafeLoader
        except yaml.YAMLError as err:
            raise CodecError(f"Invalid YAML: {err}".replace("\n", " ")) from None
        return True, _checked(value)

    @staticmethod
    def encode(value: Any, config: Any) -> str:
        out = yaml.dump(
            _plain(value),
            Dumper=_Dumper,
            default_flow_style=False,
            sort_keys=False,
            allow_unicode=True,
            width=2**31 - 1,
        )
        return out[:-4] if out.endswith("\n...\n") else out


def _checked(value: Any) -> Any:
    """Tremor values only: string keys, no dates or sets (the core schema makes none)."""
    if isinstance(value, dict):
        if not all(type(k) is str for k in value):
            raise CodecError("Invalid YAML: mapping keys must be strings")
        return {k: _checked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_checked(v) for v in value]
    if value is None or type(value) in (bool, int, float, str):
        return value
    raise CodecError(f"Invalid YAML: unsupported value {type(value).__name__}")


def _plain(value: Any) -> Any:
    if type(value) is bytes:
        return list(value)
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    if type(value) is list:
        return [_plain(v) for v in value]
    return value
